#include "shortlist.hpp"

#include <cstring>

#include "softalign_format.h"

namespace softalign::internal {

namespace {
std::size_t element_bytes(WeightType t) { return t == WeightType::kF32 ? 4 : t == WeightType::kF16 ? 2 : 1; }
}  // namespace

ShortlistTable view_shortlist(const fb::Model& model) {
  ShortlistTable t;
  if (const fb::Shortlist* sl = model.shortlist()) {
    t.offsets = sl->offsets()->data();
    t.ids = sl->ids()->data();
    t.frequent = sl->frequent()->data();
    t.frequent_count = static_cast<int>(sl->frequent()->size());
  }
  return t;
}

void Shortlist::layout(Arena& a, bool enabled, const kernels::Matrix& w, const float* bias, int sentences) {
  w_ = w;
  bias_ = bias;
  vocab_ = w.rows;
  active_ = false;
  if (!enabled) return;
  const std::size_t vocab = static_cast<std::size_t>(w.rows);
  mark_ = a.take<uint8_t>(vocab);
  ids_ = a.take<int32_t>(static_cast<std::size_t>(sentences) * vocab);
  size_ = a.take<int32_t>(static_cast<std::size_t>(sentences));
  first_ = a.take<int32_t>(static_cast<std::size_t>(sentences));
  rows_ = a.take<uint8_t>(vocab * w.cols * element_bytes(w.type));
  scales_ = a.take<float>(vocab);
  packed_bias_ = a.take<float>(vocab);
}

void mark_shortlist(const ShortlistTable& table, const int32_t* src, int len, int eos, int vocab, uint8_t* marks) {
  std::memset(marks, 0, static_cast<std::size_t>(vocab));
  for (int i = 0; i < table.frequent_count; ++i) marks[table.frequent[i]] = 1;
  marks[eos] = 1;  // a hypothesis must always be able to finish
  for (int j = 0; j < len; ++j)
    for (uint32_t i = table.offsets[src[j]]; i < table.offsets[src[j] + 1]; ++i) marks[table.ids[i]] = 1;
}

void Shortlist::select(const ShortlistTable& table, bool use, const int32_t* const* srcs, const int* lens, int n,
                       int eos) {
  active_ = use && table.present() && enabled();
  if (!active_) return;
  const std::size_t row_bytes = static_cast<std::size_t>(w_.cols) * element_bytes(w_.type);
  const auto* from = static_cast<const uint8_t*>(w_.data);
  int packed = 0;
  for (int b = 0; b < n; ++b) {
    mark_shortlist(table, srcs[b], lens[b], eos, vocab_, mark_);
    // Ascending ids, so a column's order is its id's order (top-k ties stay "lower id first").
    int32_t* ids = ids_ + static_cast<std::size_t>(b) * vocab_;
    int size = 0;
    for (int v = 0; v < vocab_; ++v)
      if (mark_[v]) ids[size++] = v;
    size_[b] = size;
    first_[b] = -1;
    if (packed + size > vocab_) continue;
    first_[b] = packed;
    for (int i = 0; i < size; ++i, ++packed) {
      std::memcpy(rows_ + packed * row_bytes, from + ids[i] * row_bytes, row_bytes);
      if (w_.type == WeightType::kI8) scales_[packed] = w_.scales[ids[i]];
      packed_bias_[packed] = bias_ ? bias_[ids[i]] : 0.0f;
    }
  }
}

void Shortlist::output_layer(const kernels::KernelTable& k, const Linear& full, int b, const float* x, int rows,
                             float* y, int8_t* xq, float* xs, pthreadpool* pool) const {
  if (first_[b] < 0) {
    full.run_gather(k, ids(b), size_[b], x, rows, y, xq, xs, pool);
    return;
  }
  kernels::Matrix packed = w_;
  packed.rows = size_[b];
  packed.data = rows_ + static_cast<std::size_t>(first_[b]) * w_.cols * element_bytes(w_.type);
  packed.scales = w_.type == WeightType::kI8 ? scales_ + first_[b] : nullptr;
  Linear layer;
  layer.init(packed, packed_bias_ + first_[b], false);  // views only (no XNNPACK): cannot fail, allocates nothing
  layer.run(k, x, rows, y, xq, xs, pool);
}

}  // namespace softalign::internal
