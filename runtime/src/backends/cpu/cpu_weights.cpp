#include "backends/cpu/cpu_weights.hpp"

#include "model/model_impl.hpp"
#include "model/step_plan.hpp"

namespace softalign::internal {

namespace {

// Linear layers (measurements in linear.hpp). The encoder input projections
// and the attention keys run many rows through small matrices: there
// XNNPACK's f32 operator is 1.5x faster than our kernels and its packed copy
// is small, so f32/f16 models use it (Linear::init keeps int8 in our
// kernels). The output layer stays on our kernels over the mapped weights:
// XNNPACK's copy of it costs 8 MB and 10 ms for 1.3x on beams.
constexpr bool kXnnpack = true;
constexpr bool kXnnpackOutput = false;

}  // namespace

Status build_cpu_weights(const ModelImpl& m, CpuWeights* cw) {
  const ModelConfig& c = m.config;
  const Weights& w = m.w;
  Status st;
  for (int layer = 0; layer < c.enc_layers; ++layer) {
    cw->enc_proj_fwd.push_back(std::make_unique<Linear>());
    cw->enc_proj_bwd.push_back(std::make_unique<Linear>());
    st = cw->enc_proj_fwd.back()->init(w.enc_fwd[layer].w_ih, w.enc_fwd[layer].b_ih, kXnnpack);
    if (st.ok()) st = cw->enc_proj_bwd.back()->init(w.enc_bwd[layer].w_ih, w.enc_bwd[layer].b_ih, kXnnpack);
    if (!st.ok()) return st;
  }
  if (attention_key_dim(c) > 0)
    st = cw->keys.init(key_matrix(c, w), key_bias(c, w, static_cast<const float*>(nullptr)), kXnnpack);
  if (st.ok()) st = cw->generator.init(w.gen_w, w.gen_b, kXnnpackOutput);
  return st;
}

}  // namespace softalign::internal
