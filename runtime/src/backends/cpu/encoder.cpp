// The encoder: source embeddings, L_e bidirectional GRU layers, the attention
// keys and the bridge (initial decoder state).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/cpu_engine.hpp"

namespace softalign::internal {

// The encoder's operations (ops.hpp) in order, for n sources.
void CpuEngine::start(const int32_t* const* srcs, const int* lens, int n) {
  nonfinite_ = false;
  for (int b = 0; b < n; ++b) src_len_[b] = lens[b];
  for (const EncoderOperation& op : plan_.encoder) run_encoder_op(op, srcs, lens, n);
}

void CpuEngine::run_encoder_op(const EncoderOperation& op, const int32_t* const* srcs, const int* lens, int n) {
  switch (op.op) {
    case EncoderOp::kEmbed:
      // One source: its rows, [s, e] contiguous, are layer 0's input. A
      // batch's layer 0 takes each position's row as it steps there.
      if (n == 1)
        for (int j = 0; j < lens[0]; ++j)
          kernels::get_row(k_, *op.matrix, srcs[0][j], enc_a_ + static_cast<std::size_t>(j) * e_);
      break;
    case EncoderOp::kLayer:
      if (n == 1)
        encode_layer(op, lens[0]);
      else
        encode_layer_together(op, srcs, lens, n);
      break;
    case EncoderOp::kKeys:
      for (int b = 0; b < n; ++b) {
        const int s = use_sentence(b);
        cw_->keys.run(k_, ann_, s, keys_buf_, xq_, xs_, pool_);
      }
      break;
    case EncoderOp::kFixedContext:
      for (int b = 0; b < n; ++b) {
        const int s = use_sentence(b);
        std::memcpy(fixed_ctx_, ann_ + static_cast<std::size_t>(s - 1) * 2 * n_, sizeof(float) * n_);
        std::memcpy(fixed_ctx_ + n_, ann_ + n_, sizeof(float) * n_);
      }
      break;
    case EncoderOp::kBridge:
      for (int b = 0; b < n; ++b) {
        use_sentence(b);
        init_state(op, state_cur_ + static_cast<std::size_t>(b) * state_size_);
      }
      break;
  }
}

// One source's layer: its input projections over all positions at once, then
// each direction's recurrence. Layers ping-pong between enc_a_ and enc_b_;
// the last one's rows are copied into the sentence's annotations.
void CpuEngine::encode_layer(const EncoderOperation& op, int s) {
  const int layer = op.layer;
  const float* in = layer % 2 == 0 ? enc_a_ : enc_b_;
  float* out = layer % 2 == 0 ? enc_b_ : enc_a_;
  cw_->enc_proj_fwd[layer]->run(k_, in, s, gi_f_, xq_, xs_, pool_);
  cw_->enc_proj_bwd[layer]->run(k_, in, s, gi_b_, xq_, xs_, pool_);
  for (int dir = 0; dir < 2; ++dir) {
    const GruWeights& g = dir == 0 ? *op.forward : *op.backward;
    const float* gi = dir == 0 ? gi_f_ : gi_b_;
    std::memset(h_, 0, sizeof(float) * n_);
    for (int step = 0; step < s; ++step) {
      const int j = dir == 0 ? step : s - 1 - step;
      kernels::matvec(k_, g.w_hh, h_, g.b_hh, gh_, xq_);
      k_.gru_cell(gi + static_cast<std::size_t>(j) * 3 * n_, gh_, h_, n_, h_);
      std::memcpy(out + static_cast<std::size_t>(j) * 2 * n_ + dir * n_, h_, sizeof(float) * n_);
    }
  }
  if (layer == shapes_.enc_layers - 1) {
    use_sentence(0);
    std::memcpy(ann_, out, sizeof(float) * s * 2 * n_);  // this sentence's annotations [s, 2n]
  }
}

// The recurrences of n sentences run side by side: at each position step one
// product over the sentences still running (their input projections, then
// their recurrent products), so each weight row is read once per step for the
// batch instead of once per sentence and position. Each row gets the numbers
// encode_layer() gives it (Linear and rows_product compute every row as
// alone). Layer outputs go straight to the sentences' annotations
// (ann_all_); a deeper encoder ping-pongs with enc_all_ so that the last
// layer lands there.
void CpuEngine::encode_layer_together(const EncoderOperation& op, const int32_t* const* srcs, const int* lens, int n) {
  const int layer = op.layer;
  const std::size_t per_sentence = static_cast<std::size_t>(S_) * 2 * n_;
  int longest = 0;
  for (int b = 0; b < n; ++b) longest = std::max(longest, lens[b]);
  float* out = (shapes_.enc_layers - 1 - layer) % 2 == 0 ? ann_all_ : enc_all_;
  const float* in = layer == 0 ? nullptr : (out == ann_all_ ? enc_all_ : ann_all_);
  const int in_width = layer == 0 ? e_ : 2 * n_;
  for (int dir = 0; dir < 2; ++dir) {
    const GruWeights& g = dir == 0 ? *op.forward : *op.backward;
    const Linear& proj = dir == 0 ? *cw_->enc_proj_fwd[layer] : *cw_->enc_proj_bwd[layer];
    std::memset(enc_h_, 0, sizeof(float) * n * n_);
    for (int step = 0; step < longest; ++step) {
      int count = 0;
      for (int b = 0; b < n; ++b) {
        if (lens[b] <= step) continue;
        const int j = dir == 0 ? step : lens[b] - 1 - step;
        float* x = enc_x_ + static_cast<std::size_t>(count) * in_width;
        if (layer == 0)
          kernels::get_row(k_, src_emb_, srcs[b][j], x);
        else
          std::memcpy(x, in + b * per_sentence + static_cast<std::size_t>(j) * 2 * n_, sizeof(float) * in_width);
        std::memcpy(enc_hq_ + static_cast<std::size_t>(count) * n_, enc_h_ + static_cast<std::size_t>(b) * n_,
                    sizeof(float) * n_);
        enc_rows_[count] = b;
        enc_pos_[count] = j;
        ++count;
      }
      proj.run(k_, enc_x_, count, enc_gi_, xq_, xs_, pool_);
      rows_product(g.w_hh, enc_hq_, count, g.b_hh, enc_gh_);
      for (int i = 0; i < count; ++i) {
        float* h = enc_h_ + static_cast<std::size_t>(enc_rows_[i]) * n_;
        k_.gru_cell(enc_gi_ + static_cast<std::size_t>(i) * 3 * n_, enc_gh_ + static_cast<std::size_t>(i) * 3 * n_,
                    enc_hq_ + static_cast<std::size_t>(i) * n_, n_, h);
        std::memcpy(out + enc_rows_[i] * per_sentence + static_cast<std::size_t>(enc_pos_[i]) * 2 * n_ + dir * n_, h,
                    sizeof(float) * n_);
      }
    }
  }
}

// s_0 = tanh(W_bridge x + b) for every decoder layer, x = ←h_0 or the
// fixed context (bridge.bridge_input); a fed-back h̃_{-1} = 0 (use_sentence's buffers).
void CpuEngine::init_state(const EncoderOperation& bridge, float* state) {
  const float* x = bridge.bridge_input == BridgeInput::kFixedContext ? fixed_ctx_ : ann_ + n_;
  kernels::matvec(k_, *bridge.matrix, x, bridge.bias, state, xq_);
  const int ld = shapes_.dec_layers * d_;
  for (int i = 0; i < ld; ++i) state[i] = std::tanh(state[i]);
  for (int i = ld; i < state_size_; ++i) state[i] = 0.0f;
}

}  // namespace softalign::internal
