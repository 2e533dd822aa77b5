#include "backends/vulkan/vulkan_weights.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>

#include "model/model_impl.hpp"

namespace softalign::internal {

namespace vk {

VulkanWeights::~VulkanWeights() {
  if (device != nullptr) device->destroy_buffer(&buffer);
}

namespace {

// Lays the tensors out (word-aligned) in a host image of the buffer.
class Packer {
 public:
  MatrixRef matrix(const kernels::Matrix& m) {
    MatrixRef r;
    if (m.data == nullptr || m.rows == 0) return r;
    r.rows = m.rows;
    r.cols = m.cols;
    const std::size_t n = static_cast<std::size_t>(m.rows) * m.cols;
    switch (m.type) {
      case WeightType::kF32: r.type = 0; r.data = put(m.data, n * 4); break;
      case WeightType::kF16: r.type = 1; r.data = put(m.data, n * 2); break;
      case WeightType::kI8:
        r.type = 2;
        r.data = put(m.data, n);
        r.scales = put(m.scales, static_cast<std::size_t>(m.rows) * 4);
        break;
    }
    return r;
  }
  // A matrix the products read (shaders/product.glsl): a row's columns in
  // 16-byte groups (int8 16 values, f16 8, f32 4; zero padded), group g of
  // row r at byte 16 (g rows + r), from a 16-byte aligned start.
  MatrixRef product_matrix(const kernels::Matrix& m) {
    MatrixRef r;
    if (m.data == nullptr || m.rows == 0) return r;
    r.rows = m.rows;
    r.cols = m.cols;
    const std::size_t elem = m.type == WeightType::kF32 ? 4 : m.type == WeightType::kF16 ? 2 : 1;
    const std::size_t per = 16 / elem, groups = (static_cast<std::size_t>(m.cols) + per - 1) / per;
    const std::size_t rows = static_cast<std::size_t>(m.rows), row_bytes = m.cols * elem;
    std::vector<uint8_t> grouped(groups * rows * 16, 0);
    const auto* src = static_cast<const uint8_t*>(m.data);
    for (std::size_t row = 0; row < rows; ++row)
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t from = g * 16, n = std::min<std::size_t>(16, row_bytes - from);
        std::memcpy(grouped.data() + (g * rows + row) * 16, src + row * row_bytes + from, n);
      }
    align(16);
    r.type = m.type == WeightType::kF32 ? 0 : m.type == WeightType::kF16 ? 1 : 2;
    r.data = put(grouped.data(), grouped.size());
    if (m.type == WeightType::kI8) r.scales = put(m.scales, rows * 4);
    r.bytes = grouped.size() + (m.type == WeightType::kI8 ? rows * 4 : 0);
    return r;
  }
  uint32_t vector(const float* v, int n) { return v == nullptr ? kNone : put(v, static_cast<std::size_t>(n) * 4); }
  GruRef gru(const GruWeights& g) {
    GruRef r;
    r.w_ih = product_matrix(g.w_ih);
    r.w_hh = product_matrix(g.w_hh);
    r.b_ih = vector(g.b_ih, 3 * g.hidden);
    r.b_hh = vector(g.b_hh, 3 * g.hidden);
    return r;
  }
  std::vector<uint8_t> image;
  bool too_large = false;

 private:
  void align(std::size_t bytes) { image.resize((image.size() + bytes - 1) / bytes * bytes, 0); }
  uint32_t put(const void* data, std::size_t bytes) {
    const std::size_t at = image.size();
    if ((at + bytes + 3) / 4 >= kNone) {
      too_large = true;
      return kNone;
    }
    image.resize(at + ((bytes + 3) & ~std::size_t{3}), 0);
    std::memcpy(image.data() + at, data, bytes);
    return static_cast<uint32_t>(at / 4);
  }
};

Status build(const ModelImpl& m, Device* device, VulkanWeights* vw) {
  const Weights& w = m.w;
  const ModelConfig& c = m.config;
  Packer p;
  vw->src_emb = p.matrix(w.src_emb);
  vw->tgt_emb = p.matrix(w.tgt_emb);
  for (const GruWeights& g : w.enc_fwd) vw->enc_fwd.push_back(p.gru(g));
  for (const GruWeights& g : w.enc_bwd) vw->enc_bwd.push_back(p.gru(g));
  for (const GruWeights& g : w.dec) vw->dec.push_back(p.gru(g));
  vw->bridge_w = p.product_matrix(w.bridge_w);
  vw->bridge_b = p.vector(w.bridge_b, w.bridge_w.rows);
  vw->att_W_a = p.product_matrix(w.att_W_a);
  vw->att_U_a = p.product_matrix(w.att_U_a);
  vw->att_U_a_b = p.vector(w.att_U_a_b, c.att_hidden);
  vw->att_v_a = p.vector(w.att_v_a, c.att_hidden);
  vw->att_W_q = p.product_matrix(w.att_W_q);
  vw->att_W_k = p.product_matrix(w.att_W_k);
  vw->att_W_loc = p.product_matrix(w.att_W_loc);
  vw->att_W_p = p.product_matrix(w.att_W_p);
  vw->att_v_p = p.vector(w.att_v_p, c.att_hidden);
  vw->dec_W_c = p.product_matrix(w.dec_W_c);
  vw->out_U_o = p.product_matrix(w.out_U_o);
  vw->out_U_o_b = p.vector(w.out_U_o_b, w.out_U_o.rows);
  vw->out_V_o = p.product_matrix(w.out_V_o);
  vw->out_C_o = p.product_matrix(w.out_C_o);
  vw->gen_w = p.product_matrix(w.gen_w);
  vw->gen_b = p.vector(w.gen_b, w.gen_w.rows);
  const VkDeviceSize bytes = p.image.size();
  if (p.too_large || bytes > device->properties.limits.maxStorageBufferRange)
    return Status(StatusCode::kUnsupported,
                  "the model's weights (" + std::to_string(bytes >> 20) +
                      " MiB) exceed the Vulkan device's largest storage buffer (" +
                      std::to_string(device->properties.limits.maxStorageBufferRange >> 20) + " MiB)");
  if (bytes > device->device_local_bytes)
    return Status(StatusCode::kResourceExhausted, "the Vulkan device has too little memory for the model's weights");
  Status st = device->create_buffer(bytes, false, &vw->buffer);
  if (!st.ok()) return Status(st.code(), "cannot allocate the weights on the Vulkan device: " + st.message());
  vw->device = device;
  return device->upload(vw->buffer, 0, p.image.data(), bytes);
}

}  // namespace

}  // namespace vk

Status vulkan_weights(const ModelImpl& model, vk::Device* device, std::shared_ptr<const vk::VulkanWeights>* out) {
  // Keyed by the Model's address: while a translator holds an upload it holds
  // its Model too, so an address is not reused for another Model meanwhile.
  static std::mutex mu;
  static std::unordered_map<const ModelImpl*, std::weak_ptr<const vk::VulkanWeights>> uploads;
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = uploads.begin(); it != uploads.end();)  // the uploads no translator holds any more
    it = it->second.expired() ? uploads.erase(it) : std::next(it);
  if (auto held = uploads[&model].lock()) {
    *out = std::move(held);
    return Status::Ok();
  }
  auto vw = std::make_shared<vk::VulkanWeights>();
  Status st = vk::build(model, device, vw.get());
  if (!st.ok()) return st;
  uploads[&model] = vw;
  *out = std::move(vw);
  return Status::Ok();
}

}  // namespace softalign::internal
