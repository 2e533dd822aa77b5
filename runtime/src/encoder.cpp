// The encoder: source embeddings, L_e bidirectional GRU layers, the attention
// keys and the bridge (initial decoder state).
#include <cmath>
#include <cstring>

#include "cpu_engine.hpp"

namespace softalign::internal {

void CpuEngine::encode(const int32_t* src, int s) {
  const Weights& w = m_.w;
  // Layer 0's input: the embeddings, [s, e] contiguous.
  for (int j = 0; j < s; ++j) kernels::get_row(k_, w.src_emb, src[j], enc_a_ + static_cast<std::size_t>(j) * e_);
  float* in = enc_a_;
  float* out = enc_b_;
  for (int layer = 0; layer < c_.enc_layers; ++layer) {
    // Input projections over all positions at once.
    cw_.enc_proj_fwd[layer]->run(k_, in, s, gi_f_, xq_, xs_, *pool_);
    cw_.enc_proj_bwd[layer]->run(k_, in, s, gi_b_, xq_, xs_, *pool_);
    for (int dir = 0; dir < 2; ++dir) {
      const GruWeights& g = dir == 0 ? w.enc_fwd[layer] : w.enc_bwd[layer];
      const float* gi = dir == 0 ? gi_f_ : gi_b_;
      std::memset(h_, 0, sizeof(float) * n_);
      for (int step = 0; step < s; ++step) {
        const int j = dir == 0 ? step : s - 1 - step;
        kernels::matvec(k_, g.w_hh, h_, g.b_hh, gh_, xq_);
        k_.gru_cell(gi + static_cast<std::size_t>(j) * 3 * n_, gh_, h_, n_, h_);
        std::memcpy(out + static_cast<std::size_t>(j) * 2 * n_ + dir * n_, h_, sizeof(float) * n_);
      }
    }
    std::swap(in, out);
  }
  std::memcpy(ann_, in, sizeof(float) * s * 2 * n_);  // this sentence's annotations [s, 2n]
  if (key_dim_ > 0) cw_.keys.run(k_, ann_, s, keys_buf_, xq_, xs_, *pool_);
  if (c_.variant == Variant::kEncDec) {
    std::memcpy(fixed_ctx_, ann_ + static_cast<std::size_t>(s - 1) * 2 * n_, sizeof(float) * n_);
    std::memcpy(fixed_ctx_ + n_, ann_ + n_, sizeof(float) * n_);
  }
}

// s_0 = tanh(W_bridge x + b) for every decoder layer, x = ←h_0 (encdec: the
// fixed context); the input-feeding h̃_{-1} = 0.
void CpuEngine::init_state(float* state) {
  const float* x = c_.variant == Variant::kEncDec ? fixed_ctx_ : ann_ + n_;
  kernels::matvec(k_, m_.w.bridge_w, x, m_.w.bridge_b, state, xq_);
  const int ld = c_.dec_layers * d_;
  for (int i = 0; i < ld; ++i) state[i] = std::tanh(state[i]);
  for (int i = ld; i < state_size_; ++i) state[i] = 0.0f;
}

}  // namespace softalign::internal
