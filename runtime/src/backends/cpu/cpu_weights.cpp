#include "backends/cpu/cpu_weights.hpp"

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

Status build_cpu_weights(const Plan& plan, CpuWeights* cw) {
  Status st;
  for (const EncoderOperation& op : plan.encoder) {
    if (op.op == EncoderOp::kLayer) {
      cw->enc_proj_fwd.push_back(std::make_unique<Linear>());
      cw->enc_proj_bwd.push_back(op.backward ? std::make_unique<Linear>() : nullptr);  // none one-way
      st = cw->enc_proj_fwd.back()->init(op.forward->w_ih, op.forward->b_ih, kXnnpack);
      if (st.ok() && op.backward) st = cw->enc_proj_bwd.back()->init(op.backward->w_ih, op.backward->b_ih, kXnnpack);
    } else if (op.op == EncoderOp::kKeys) {
      st = cw->keys.init(*op.matrix, op.bias, kXnnpack);
    }
    if (!st.ok()) return st;
  }
  const StepOperation& output = *plan.find(StepOp::kOutput);
  return cw->generator.init(*output.matrix, output.bias, kXnnpackOutput);
}

}  // namespace softalign::internal
