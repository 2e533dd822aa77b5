#include "step_plan.hpp"

namespace softalign::internal {

std::vector<StepOperation> plan_decoder_step(const ModelConfig& c) {
  std::vector<StepOperation> ops = {{StepOp::kInput}};
  // Bahdanau attends with the previous state, before the GRU.
  if (c.variant == Variant::kBahdanau) {
    ops.push_back({StepOp::kQuery});
    ops.push_back({StepOp::kAttendAdditive});
  }
  for (int layer = 0; layer < c.dec_layers; ++layer) ops.push_back({StepOp::kGru, layer});
  // Luong attends with the new state, after it.
  if (c.variant == Variant::kLuong) {
    ops.push_back({StepOp::kAttendLuong});
    ops.push_back({StepOp::kCombine});
  } else {
    ops.push_back({StepOp::kMaxout});
  }
  ops.push_back({StepOp::kOutput});
  return ops;
}

}  // namespace softalign::internal
