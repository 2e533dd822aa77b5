// The top-k list of every kernel set: a sorted list of at most k entries
// (insertion); a later entry displaces only a strictly smaller one, so ties
// keep the lower index. Internal linkage: each set's files are compiled with
// their own ISA flags, so no inline definition may be shared between them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels {
namespace {

inline void topk_insert(float v, std::size_t i, int k, int& count, int32_t* idx, float* val) {
  if (count == k && !(v > val[k - 1])) return;
  int pos = count < k ? count : k - 1;
  while (pos > 0 && v > val[pos - 1]) {
    val[pos] = val[pos - 1];
    idx[pos] = idx[pos - 1];
    --pos;
  }
  val[pos] = v;
  idx[pos] = static_cast<int32_t>(i);
  if (count < k) ++count;
}

}  // namespace
}  // namespace softalign::kernels
