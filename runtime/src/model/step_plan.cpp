#include "model/step_plan.hpp"

#include "model/model_impl.hpp"

namespace softalign::internal {

std::vector<EncoderOperation> plan_encoder(const ModelConfig& c) {
  std::vector<EncoderOperation> ops = {{EncoderOp::kEmbed}};
  for (int layer = 0; layer < c.enc_layers; ++layer) ops.push_back({EncoderOp::kLayer, layer});
  if (attention_key_dim(c) > 0) ops.push_back({EncoderOp::kKeys});
  if (c.variant == Variant::kEncDec) ops.push_back({EncoderOp::kFixedContext});
  ops.push_back({EncoderOp::kBridge});
  return ops;
}

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
