// The encoder: source embeddings, L_e one- or two-way GRU or LSTM layers, the
// attention keys and the bridge (initial decoder state).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/cpu_engine.hpp"

namespace softalign::internal {

void CpuEngine::cell_step(const float* gi, const float* gh, const float* h, float* c, int hidden, float* h_out) const {
  if (lstm_)
    k_.lstm_cell(gi, gh, c, hidden, h_out, c);
  else
    k_.gru_cell(gi, gh, h, hidden, h_out);
}

// The encoder's operations (ops.hpp) in order, for n sources.
void CpuEngine::start(const int32_t* const* srcs, const int* lens, int n) {
  nonfinite_ = false;
  for (int b = 0; b < n; ++b) {
    // Without the source's EOS the encoder reads one position fewer, and
    // attention covers at least one (an empty source's zero annotation).
    enc_len_[b] = shapes_.skip_source_eos ? lens[b] - 1 : lens[b];
    src_len_[b] = std::max(enc_len_[b], 1);
  }
  for (const EncoderOperation& op : plan_.encoder) run_encoder_op(op, srcs, enc_len_, n);
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
      if (op.layer == shapes_.enc_layers - 1)
        for (int b = 0; b < n; ++b)
          if (lens[b] == 0) {  // no position read: the one attended position is zeros
            use_sentence(b);
            std::memset(ann_, 0, sizeof(float) * A_);
          }
      break;
    case EncoderOp::kKeys:
      for (int b = 0; b < n; ++b) {
        const int s = use_sentence(b);
        cw_->keys.run(k_, ann_, s, keys_buf_, xq_, xs_, pool_);
      }
      break;
    case EncoderOp::kFixedContext:
      break;  // c = F_top: the top layer recorded its final states (use_sentence's fixed_ctx_)
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
// the last one's rows are copied into the sentence's annotations. Each
// direction's last state (and cell) is the layer's final state.
void CpuEngine::encode_layer(const EncoderOperation& op, int s) {
  const int layer = op.layer;
  const float* in = layer % 2 == 0 ? enc_a_ : enc_b_;
  float* out = layer % 2 == 0 ? enc_b_ : enc_a_;
  const int directions = op.backward ? 2 : 1;
  if (s > 0) {  // an empty source (no EOS read) has no rows
    cw_->enc_proj_fwd[layer]->run(k_, in, s, gi_f_, xq_, xs_, pool_);
    if (op.backward) cw_->enc_proj_bwd[layer]->run(k_, in, s, gi_b_, xq_, xs_, pool_);
  }
  use_sentence(0);
  for (int dir = 0; dir < directions; ++dir) {
    const RnnWeights& g = dir == 0 ? *op.forward : *op.backward;
    const float* gi = dir == 0 ? gi_f_ : gi_b_;
    const bool right_to_left = dir == 1 || op.reverse;
    std::memset(h_, 0, sizeof(float) * n_);
    std::memset(c_, 0, sizeof(float) * n_);
    for (int step = 0; step < s; ++step) {
      const int j = right_to_left ? s - 1 - step : step;
      kernels::matvec(k_, g.w_hh, h_, g.b_hh, gh_, xq_);
      cell_step(gi + static_cast<std::size_t>(j) * g_ * n_, gh_, h_, c_, n_, h_);
      std::memcpy(out + static_cast<std::size_t>(j) * A_ + dir * n_, h_, sizeof(float) * n_);
    }
    const std::size_t final_at = static_cast<std::size_t>(layer) * A_ + dir * n_;
    std::memcpy(finals_ + final_at, h_, sizeof(float) * n_);
    std::memcpy(final_cells_ + final_at, c_, sizeof(float) * n_);
  }
  if (layer == shapes_.enc_layers - 1)
    std::memcpy(ann_, out, sizeof(float) * s * A_);  // this sentence's annotations [s, A]
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
  const std::size_t per_sentence = static_cast<std::size_t>(S_) * A_;
  int longest = 0;
  for (int b = 0; b < n; ++b) longest = std::max(longest, lens[b]);
  float* out = (shapes_.enc_layers - 1 - layer) % 2 == 0 ? ann_all_ : enc_all_;
  const float* in = layer == 0 ? nullptr : (out == ann_all_ ? enc_all_ : ann_all_);
  const int in_width = layer == 0 ? e_ : A_;
  const int directions = op.backward ? 2 : 1;
  for (int dir = 0; dir < directions; ++dir) {
    const RnnWeights& g = dir == 0 ? *op.forward : *op.backward;
    const Linear& proj = dir == 0 ? *cw_->enc_proj_fwd[layer] : *cw_->enc_proj_bwd[layer];
    const bool right_to_left = dir == 1 || op.reverse;
    std::memset(enc_h_, 0, sizeof(float) * n * n_);
    std::memset(enc_c_, 0, sizeof(float) * n * n_);
    for (int step = 0; step < longest; ++step) {
      int count = 0;
      for (int b = 0; b < n; ++b) {
        if (lens[b] <= step) continue;
        const int j = right_to_left ? lens[b] - 1 - step : step;
        float* x = enc_x_ + static_cast<std::size_t>(count) * in_width;
        if (layer == 0)
          kernels::get_row(k_, src_emb_, srcs[b][j], x);
        else
          std::memcpy(x, in + b * per_sentence + static_cast<std::size_t>(j) * A_, sizeof(float) * in_width);
        std::memcpy(enc_hq_ + static_cast<std::size_t>(count) * n_, enc_h_ + static_cast<std::size_t>(b) * n_,
                    sizeof(float) * n_);
        enc_rows_[count] = b;
        enc_pos_[count] = j;
        ++count;
      }
      proj.run(k_, enc_x_, count, enc_gi_, xq_, xs_, pool_);
      rows_product(g.w_hh, enc_hq_, count, g.b_hh, enc_gh_);
      for (int i = 0; i < count; ++i) {
        const std::size_t b = enc_rows_[i];
        float* h = enc_h_ + b * n_;
        cell_step(enc_gi_ + static_cast<std::size_t>(i) * g_ * n_, enc_gh_ + static_cast<std::size_t>(i) * g_ * n_,
                  enc_hq_ + static_cast<std::size_t>(i) * n_, enc_c_ + b * n_, n_, h);
        std::memcpy(out + b * per_sentence + static_cast<std::size_t>(enc_pos_[i]) * A_ + dir * n_, h,
                    sizeof(float) * n_);
      }
    }
    // A sentence's state stops changing after its last position: its final state.
    for (int b = 0; b < n; ++b) {
      use_sentence(b);
      const std::size_t final_at = static_cast<std::size_t>(layer) * A_ + dir * n_;
      std::memcpy(finals_ + final_at, enc_h_ + static_cast<std::size_t>(b) * n_, sizeof(float) * n_);
      std::memcpy(final_cells_ + final_at, enc_c_ + static_cast<std::size_t>(b) * n_, sizeof(float) * n_);
    }
  }
}

// The decoder's first state (WEIGHTS_FORMAT.md "Bridge"): every layer's s_0,
// then with LSTM every layer's cell, from the current sentence's final
// states (use_sentence); a fed-back h~_{-1} = 0.
void CpuEngine::init_state(const EncoderOperation& bridge, float* state) {
  const int ld = shapes_.dec_layers * d_;
  float* cells = state + shapes_.cell_offset;  // LSTM only
  const std::size_t all_finals = static_cast<std::size_t>(shapes_.enc_layers) * A_;
  switch (bridge.init) {
    case DecoderInit::kTanhBackward:
    case DecoderInit::kTanhFinal: {
      const float* x = bridge.init == DecoderInit::kTanhFinal ? fixed_ctx_ : ann_ + n_;  // F_top or ←h_0
      kernels::matvec(k_, *bridge.matrix, x, bridge.bias, state, xq_);
      for (int i = 0; i < ld; ++i) state[i] = std::tanh(state[i]);
      if (lstm_) std::memcpy(cells, state, sizeof(float) * ld);
      break;
    }
    case DecoderInit::kFinal:  // L_e = L_d and A = d: the finals are the states, layer by layer
      std::memcpy(state, finals_, sizeof(float) * all_finals);
      if (lstm_) std::memcpy(cells, final_cells_, sizeof(float) * all_finals);
      break;
    case DecoderInit::kReluFinal: {
      // [F_0 ; ... ; F_{L-1}] cut into enc_directions consecutive pieces of L n
      // floats, each through the one shared layer.
      const std::size_t piece = static_cast<std::size_t>(shapes_.enc_layers) * n_;
      for (int p = 0; p < shapes_.directions; ++p) {
        kernels::matvec(k_, *bridge.matrix, finals_ + p * piece, bridge.bias, state + p * piece, xq_);
        if (lstm_)
          kernels::matvec(k_, *bridge.cell_matrix, final_cells_ + p * piece, bridge.cell_bias, cells + p * piece, xq_);
      }
      for (int i = 0; i < ld; ++i) state[i] = std::max(state[i], 0.0f);
      if (lstm_)
        for (int i = 0; i < ld; ++i) cells[i] = std::max(cells[i], 0.0f);
      break;
    }
    case DecoderInit::kLastForward:  // n = d: the top layer's forward final state, for every layer
      for (int k = 0; k < shapes_.dec_layers; ++k)
        std::memcpy(state + static_cast<std::size_t>(k) * d_, fixed_ctx_, sizeof(float) * d_);
      if (lstm_) std::memcpy(cells, state, sizeof(float) * ld);
      break;
    case DecoderInit::kZero:
      std::memset(state, 0, sizeof(float) * shapes_.fed_offset);
      break;
  }
  for (int i = shapes_.fed_offset; i < state_size_; ++i) state[i] = 0.0f;
}

}  // namespace softalign::internal
