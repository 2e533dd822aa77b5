#include "backends/vulkan/vulkan_weights.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>


namespace softalign::internal {

namespace vk {

VulkanWeights::~VulkanWeights() {
  if (device != nullptr) device->destroy_buffer(&buffer);
}

const MatrixRef& VulkanWeights::matrix(const Matrix* m) const {
  static const MatrixRef none;
  const auto it = matrices.find(m);
  return it == matrices.end() ? none : it->second;
}

uint32_t VulkanWeights::vector(const float* v) const {
  const auto it = vectors.find(v);
  return it == vectors.end() ? kNone : it->second;
}

const RnnRef& VulkanWeights::rnn(const RnnWeights* g) const {
  static const RnnRef none;
  const auto it = rnns.find(g);
  return it == rnns.end() ? none : it->second;
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
  RnnRef rnn(const RnnWeights& g) {
    RnnRef r;
    r.w_ih = product_matrix(g.w_ih);
    r.w_hh = product_matrix(g.w_hh);
    r.b_ih = vector(g.b_ih, g.w_ih.rows);  // gates × hidden (GRU 3, LSTM 4)
    r.b_hh = vector(g.b_hh, g.w_hh.rows);
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

// Each tensor once, in the layout its operation reads it in: embeddings as
// stored (rows looked up), every other matrix as the products read it.
class Uploads {
 public:
  Uploads(Packer& p, VulkanWeights* vw) : p_(p), vw_(vw) {}
  void embedding(const Matrix* m) {
    if (m != nullptr && !vw_->matrices.count(m)) vw_->matrices[m] = p_.matrix(*m);
  }
  void product(const Matrix* m) {
    if (m != nullptr && !vw_->matrices.count(m)) vw_->matrices[m] = p_.product_matrix(*m);
  }
  void vector(const float* v, int n) {
    if (v != nullptr && !vw_->vectors.count(v)) vw_->vectors[v] = p_.vector(v, n);
  }
  void rnn(const RnnWeights* g) {
    if (g != nullptr && !vw_->rnns.count(g)) vw_->rnns[g] = p_.rnn(*g);
  }

 private:
  Packer& p_;
  VulkanWeights* vw_;
};

Status build(const Plan& plan, Device* device, VulkanWeights* vw) {
  const PlanShapes& sh = plan.shapes;
  Packer p;
  Uploads up(p, vw);
  for (const EncoderOperation& op : plan.encoder) {
    if (op.op == EncoderOp::kEmbed) {
      up.embedding(op.matrix);
    } else {
      up.product(op.matrix);
      up.vector(op.bias, op.matrix != nullptr ? op.matrix->rows : 0);
      up.product(op.cell_matrix);  // relu-final's for LSTM cells
      up.vector(op.cell_bias, op.cell_matrix != nullptr ? op.cell_matrix->rows : 0);
    }
    up.rnn(op.forward);
    up.rnn(op.backward);
  }
  for (const StepOperation& op : plan.step) {
    if (op.op == StepOp::kInput) {
      up.embedding(op.matrix);
    } else {
      up.product(op.matrix);
    }
    up.vector(op.vector, sh.att_hidden);
    up.rnn(op.rnn);
    up.product(op.position);
    up.vector(op.position_vector, sh.att_hidden);
    up.product(op.from_state);
    up.product(op.from_embedding);
    up.product(op.from_context);
    const Matrix* biased = op.op == StepOp::kMaxout ? op.from_state : op.matrix;
    up.vector(op.bias, biased != nullptr ? biased->rows : 0);
  }
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

Status vulkan_weights(const Plan& plan, vk::Device* device, std::shared_ptr<const vk::VulkanWeights>* out) {
  // Keyed by the plan's address (the Model's): while a translator holds an
  // upload it holds its Model too, so an address is not reused for another
  // model meanwhile.
  static std::mutex mu;
  static std::unordered_map<const Plan*, std::weak_ptr<const vk::VulkanWeights>> uploads;
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = uploads.begin(); it != uploads.end();)  // the uploads no translator holds any more
    it = it->second.expired() ? uploads.erase(it) : std::next(it);
  if (auto held = uploads[&plan].lock()) {
    *out = std::move(held);
    return Status::Ok();
  }
  auto vw = std::make_shared<vk::VulkanWeights>();
  Status st = vk::build(plan, device, vw.get());
  if (!st.ok()) return st;
  uploads[&plan] = vw;
  *out = std::move(vw);
  return Status::Ok();
}

}  // namespace softalign::internal
