// What the Vulkan backend makes of a model's weights: one device buffer with
// every tensor the plan's operations name (ops.hpp) in its stored precision
// (f32; f16; int8 + per-row scales) and the f32 vectors (biases, v_a),
// uploaded once per model on the first Vulkan prepare and shared by every
// Translator on it. The backend keeps them, not the Model: a registry keyed
// by the model's weights holds them while a translator does, so the device
// memory goes with the last Vulkan translator of a model.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "backends/ops.hpp"
#include "backends/vulkan/vulkan_device.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

namespace vk {

constexpr uint32_t kNone = 0xFFFFFFFFu;  // no such tensor (the shaders' NONE)

// A matrix in the weights buffer: word offsets of its data and (int8) scales.
struct MatrixRef {
  uint32_t data = kNone;
  uint32_t scales = kNone;
  uint32_t type = 0;  // 0 f32, 1 f16, 2 int8 (common.glsl)
  int rows = 0;
  int cols = 0;
  uint64_t bytes = 0;  // what a product reads of it: the stored matrix and its scales
};

struct RnnRef {
  MatrixRef w_ih, w_hh;
  uint32_t b_ih = kNone, b_hh = kNone;
};

struct VulkanWeights {
  ~VulkanWeights();
  // The device copies of the tensors an operation names, by the host
  // tensor's address (an empty ref or kNone for null).
  const MatrixRef& matrix(const Matrix* m) const;
  uint32_t vector(const float* v) const;
  const RnnRef& rnn(const RnnWeights* g) const;

  Device* device = nullptr;
  Buffer buffer;
  std::unordered_map<const Matrix*, MatrixRef> matrices;
  std::unordered_map<const float*, uint32_t> vectors;
  std::unordered_map<const RnnWeights*, RnnRef> rnns;
};

}  // namespace vk

// The weights the operations of `plan` name, on `device`: the upload a living
// translator of this model already holds, else a new one (thread-safe); an
// error (the reason) if the upload failed, e.g. for lack of device memory.
// The caller keeps *out as long as it uses them.
Status vulkan_weights(const Plan& plan, vk::Device* device, std::shared_ptr<const vk::VulkanWeights>* out);

}  // namespace softalign::internal
