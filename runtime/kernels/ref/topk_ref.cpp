// Reference top-k: one pass over the values into the sorted list of
// kernels/topk_insert.hpp (a later entry displaces only a strictly smaller
// one, so ties keep the lower index). O(n k): k is a beam size.
#include "kernels/ref/ref.hpp"
#include "kernels/topk_insert.hpp"

namespace softalign::kernels::ref {

int topk(const float* values, std::size_t n, int k, int32_t* idx, float* val) {
  if (k <= 0) return 0;
  int count = 0;
  for (std::size_t i = 0; i < n; ++i) topk_insert(values[i], i, k, count, idx, val);
  return count;
}

}  // namespace softalign::kernels::ref
