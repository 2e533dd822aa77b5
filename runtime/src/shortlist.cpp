#include "shortlist.hpp"

#include <cstring>

#include "softalign_format.h"

namespace softalign::internal {

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

void Shortlist::layout(Arena& a, bool present, int vocab, int rows, int cols) {
  vocab_ = vocab;
  active_ = false;
  if (!present) return;
  mark_ = a.take<uint8_t>(vocab);
  ids_ = a.take<int32_t>(vocab);
  run_first_ = a.take<int32_t>(vocab);
  run_len_ = a.take<int32_t>(vocab);
  xq_ = a.take<int8_t>(static_cast<std::size_t>(rows) * cols);
  x_scale_ = a.take<float>(rows);
}

int Shortlist::select(const ShortlistTable& table, bool use, const int32_t* src, int n, int eos) {
  active_ = use && table.present() && mark_ != nullptr;
  if (!active_) return vocab_;
  std::memset(mark_, 0, static_cast<std::size_t>(vocab_));
  for (int i = 0; i < table.frequent_count; ++i) mark_[table.frequent[i]] = 1;
  mark_[eos] = 1;  // a hypothesis must always be able to finish
  for (int j = 0; j < n; ++j)
    for (uint32_t i = table.offsets[src[j]]; i < table.offsets[src[j] + 1]; ++i) mark_[table.ids[i]] = 1;
  // Ascending ids, so a column's order is its id's order (top-k ties stay "lower id first").
  size_ = 0;
  runs_ = 0;
  for (int v = 0; v < vocab_; ++v) {
    if (!mark_[v]) continue;
    ids_[size_++] = v;
    if (runs_ > 0 && run_first_[runs_ - 1] + run_len_[runs_ - 1] == v) {
      ++run_len_[runs_ - 1];
    } else {
      run_first_[runs_] = v;
      run_len_[runs_] = 1;
      ++runs_;
    }
  }
  return size_;
}

void Shortlist::output_layer(const kernels::KernelTable& k, const kernels::Matrix& w, const float* bias,
                             const float* x, int rows, float* y) const {
  const int cols = w.cols;
  const bool i8 = w.type == WeightType::kI8;
  if (i8)  // quantize each input once, not once per run
    for (int r = 0; r < rows; ++r)
      x_scale_[r] = k.quantize_i8(x + static_cast<std::size_t>(r) * cols, cols, xq_ + static_cast<std::size_t>(r) * cols);
  // Runs outside, rows inside: a run's weights are read from memory once for all rows.
  int pos = 0;
  for (int g = 0; g < runs_; ++g) {
    const kernels::Matrix part = w.slice_rows(run_first_[g], run_len_[g]);
    const float* b = bias ? bias + run_first_[g] : nullptr;
    for (int r = 0; r < rows; ++r) {
      float* out = y + static_cast<std::size_t>(r) * size_ + pos;
      if (i8)
        k.matvec_i8(static_cast<const int8_t*>(part.data), part.scales, part.rows, cols,
                    xq_ + static_cast<std::size_t>(r) * cols, x_scale_[r], b, out);
      else
        kernels::matvec(k, part, x + static_cast<std::size_t>(r) * cols, b, out, nullptr);
    }
    pos += run_len_[g];
  }
}

}  // namespace softalign::internal
