// Reference top-k: one pass, a sorted list of at most k entries (insertion),
// a later entry displaces only a strictly smaller one, so ties keep the lower
// index. O(n k): k is a beam size.
#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

int topk(const float* values, std::size_t n, int k, int32_t* idx, float* val) {
  int count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = values[i];
    if (count == k && !(v > val[k - 1])) continue;
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
  return count;
}

}  // namespace softalign::kernels::ref
