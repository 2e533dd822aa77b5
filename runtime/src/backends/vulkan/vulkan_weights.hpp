// What the Vulkan backend makes of a model's weights: one device buffer with
// every tensor in its stored precision (f32; f16; int8 + per-row scales) and
// the f32 vectors (biases, v_a), uploaded once per Model on the first Vulkan
// prepare and shared by every Translator on it. The backend keeps them, not
// the Model: a registry keyed by the Model holds them while a translator does,
// so the device memory goes with the last Vulkan translator of a Model.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/vulkan/vulkan_device.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

struct ModelImpl;

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

struct GruRef {
  MatrixRef w_ih, w_hh;
  uint32_t b_ih = kNone, b_hh = kNone;
};

struct VulkanWeights {
  ~VulkanWeights();
  Device* device = nullptr;
  Buffer buffer;
  MatrixRef src_emb, tgt_emb, bridge_w, att_W_a, att_U_a, out_U_o, out_V_o, out_C_o, gen_w;
  MatrixRef att_W_q, att_W_k, att_W_loc, att_W_p, dec_W_c;  // luong
  uint32_t bridge_b = kNone, att_U_a_b = kNone, att_v_a = kNone, att_v_p = kNone, out_U_o_b = kNone, gen_b = kNone;
  std::vector<GruRef> enc_fwd, enc_bwd, dec;
};

}  // namespace vk

// The model's weights on `device`: the upload a living translator of this
// Model already holds, else a new one (thread-safe); an error (the reason)
// if the upload failed, e.g. for lack of device memory. The caller keeps
// *out as long as it uses them.
Status vulkan_weights(const ModelImpl& model, vk::Device* device, std::shared_ptr<const vk::VulkanWeights>* out);

}  // namespace softalign::internal
