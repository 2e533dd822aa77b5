#include "shortlist.hpp"

#include <cstring>
#include <limits>

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
  active_ = false;
  if (!enabled) return;
  const std::size_t vocab = static_cast<std::size_t>(w.rows);
  mark_ = a.take<uint8_t>(vocab);
  member_ = sentences > 1 ? a.take<uint8_t>(static_cast<std::size_t>(sentences) * vocab) : nullptr;
  ids_ = a.take<int32_t>(vocab);
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

int Shortlist::select(const ShortlistTable& table, bool use, const int32_t* const* srcs, const int* lens, int n,
                      int eos) {
  active_ = use && table.present() && enabled();
  if (!active_) return w_.rows;
  const int vocab = w_.rows;
  sentences_ = n;
  // Sentence b's marks (in member_ when there are several), then the union.
  auto mark = [&](uint8_t* m, const int32_t* src, int len) { mark_shortlist(table, src, len, eos, vocab, m); };
  if (n == 1) {
    mark(mark_, srcs[0], lens[0]);
  } else {
    std::memset(mark_, 0, static_cast<std::size_t>(vocab));
    for (int b = 0; b < n; ++b) {
      uint8_t* m = member_ + static_cast<std::size_t>(b) * vocab;
      mark(m, srcs[b], lens[b]);
      for (int v = 0; v < vocab; ++v) mark_[v] |= m[v];
    }
  }
  // Ascending ids, so a column's order is its id's order (top-k ties stay "lower id first").
  size_ = 0;
  const std::size_t row_bytes = static_cast<std::size_t>(w_.cols) * element_bytes(w_.type);
  const auto* from = static_cast<const uint8_t*>(w_.data);
  for (int v = 0; v < vocab; ++v) {
    if (!mark_[v]) continue;
    std::memcpy(rows_ + size_ * row_bytes, from + v * row_bytes, row_bytes);
    if (w_.type == WeightType::kI8) scales_[size_] = w_.scales[v];
    packed_bias_[size_] = bias_ ? bias_[v] : 0.0f;
    ids_[size_++] = v;
  }
  kernels::Matrix packed = w_;
  packed.rows = size_;
  packed.data = rows_;
  packed.scales = w_.type == WeightType::kI8 ? scales_ : nullptr;
  layer_.init(packed, packed_bias_, false);  // views only (no XNNPACK): cannot fail, allocates nothing
  return size_;
}

void Shortlist::mask(int b, float* row) const {
  const uint8_t* m = member_ + static_cast<std::size_t>(b) * w_.rows;
  for (int i = 0; i < size_; ++i)
    if (!m[ids_[i]]) row[i] = -std::numeric_limits<float>::infinity();
}

void Shortlist::output_layer(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq,
                             float* xs, pthreadpool* pool) const {
  layer_.run(k, x, rows, y, xq, xs, pool);
}

}  // namespace softalign::internal
