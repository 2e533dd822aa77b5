#include "backends/cpu/cpu_shortlist.hpp"

#include <cstring>

namespace softalign::internal {

namespace {
std::size_t element_bytes(WeightType t) { return t == WeightType::kF32 ? 4 : t == WeightType::kF16 ? 2 : 1; }

// Packs row `id` of w (with its scale and bias) as packed row `at`.
void pack_row(const kernels::Matrix& w, const float* bias, int id, int at, uint8_t* rows, float* scales,
              float* packed_bias) {
  const std::size_t row_bytes = static_cast<std::size_t>(w.cols) * element_bytes(w.type);
  std::memcpy(rows + at * row_bytes, static_cast<const uint8_t*>(w.data) + id * row_bytes, row_bytes);
  if (w.type == WeightType::kI8) scales[at] = w.scales[id];
  packed_bias[at] = bias ? bias[id] : 0.0f;
}
}  // namespace

void PackedOutputRows::layout(Arena& a, bool enabled, const kernels::Matrix& w, const float* bias, int sentences) {
  w_ = w;
  bias_ = bias;
  vocab_ = w.rows;
  if (!enabled) return;
  const std::size_t vocab = static_cast<std::size_t>(w.rows);
  first_ = a.take<int32_t>(static_cast<std::size_t>(sentences));
  rows_ = a.take<uint8_t>(vocab * w.cols * element_bytes(w.type));
  scales_ = a.take<float>(vocab);
  packed_bias_ = a.take<float>(vocab);
  union_pos_ = a.take<int32_t>(vocab);
  gather_ids_ = a.take<int32_t>(vocab);
}

void PackedOutputRows::pack(const SentenceVocabularies& vocab, int n, bool pack_union) {
  union_size_ = 0;
  if (!vocab.active()) return;
  const bool as_union = pack_union && n > 1 && w_.type == WeightType::kI8;
  if (as_union) {
    union_size_ = vocab.union_columns(nullptr, n, union_pos_);
    for (int v = 0; v < vocab_; ++v)
      if (union_pos_[v] >= 0) pack_row(w_, bias_, v, union_pos_[v], rows_, scales_, packed_bias_);
    return;
  }
  int packed = 0;
  for (int b = 0; b < n; ++b) {
    const int size = vocab.width(b);
    const int32_t* ids = vocab.ids(b);
    first_[b] = -1;
    if (packed + size > vocab_) continue;
    first_[b] = packed;
    for (int i = 0; i < size; ++i, ++packed) pack_row(w_, bias_, ids[i], packed, rows_, scales_, packed_bias_);
  }
}

void PackedOutputRows::output_layer(const kernels::KernelTable& k, const SentenceVocabularies& vocab,
                                    const Linear& full, int b, const float* x, int rows, float* y, int8_t* xq,
                                    float* xs, pthreadpool* pool) const {
  const int size = vocab.width(b);
  const int32_t* own = vocab.ids(b);
  kernels::Matrix packed = w_;
  packed.rows = union_size_ > 0 ? union_size_ : size;
  packed.scales = w_.type == WeightType::kI8 ? scales_ : nullptr;
  packed.data = rows_;
  Linear layer;
  if (union_size_ > 0) {
    // The sentence's rows inside the packed union.
    for (int i = 0; i < size; ++i) gather_ids_[i] = union_pos_[own[i]];
    layer.init(packed, packed_bias_, false);  // views only (no XNNPACK): cannot fail, allocates nothing
    layer.run_gather(k, gather_ids_, size, x, rows, y, xq, xs, pool);
    return;
  }
  if (first_[b] < 0) {
    full.run_gather(k, own, size, x, rows, y, xq, xs, pool);
    return;
  }
  packed.data = rows_ + static_cast<std::size_t>(first_[b]) * w_.cols * element_bytes(w_.type);
  packed.scales = w_.type == WeightType::kI8 ? scales_ + first_[b] : nullptr;
  layer.init(packed, packed_bias_ + first_[b], false);
  layer.run(k, x, rows, y, xq, xs, pool);
}

bool PackedOutputRows::use_union(const kernels::KernelTable& k, const SentenceVocabularies& vocab, int count,
                                 const int32_t* row_sent) const {
  if (union_size_ == 0 || k.i8_lanes_min_inputs == 0 || count < k.i8_lanes_min_inputs) return false;
  std::size_t own_columns = 0;
  for (int i = 0; i < count; ++i) {
    if (i > 0 && row_sent[i] == row_sent[i - 1]) return false;  // a sentence with several rows (a beam)
    own_columns += static_cast<std::size_t>(vocab.width(row_sent[i]));
  }
  return static_cast<std::size_t>(union_size_) * count <= 4 * own_columns;
}

void PackedOutputRows::union_output_layer(const kernels::KernelTable& k, const SentenceVocabularies& vocab, int count,
                                          const int32_t* row_sent, const float* x, float* y, int8_t* xq, float* xs,
                                          pthreadpool* pool) const {
  kernels::Matrix packed = w_;
  packed.rows = union_size_;
  packed.data = rows_;
  packed.scales = scales_;
  Linear layer;
  layer.init(packed, packed_bias_, false);  // views only (no XNNPACK): cannot fail, allocates nothing
  layer.run(k, x, count, y, xq, xs, pool);  // y: count rows × union_size_
  // Each row keeps its sentence's columns, in place: row i's block starts at
  // or before its union row (Σ widths ≤ i × union) and its own columns' union
  // positions only grow, so no value is overwritten before it is read.
  std::size_t out = 0;
  for (int i = 0; i < count; ++i) {
    const float* row = y + static_cast<std::size_t>(i) * union_size_;
    const int b = row_sent[i];
    const int32_t* own = vocab.ids(b);
    const int size = vocab.width(b);
    for (int c = 0; c < size; ++c) y[out + c] = row[union_pos_[own[c]]];
    out += static_cast<std::size_t>(size);
  }
}

}  // namespace softalign::internal
