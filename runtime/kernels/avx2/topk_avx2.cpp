// AVX2 top-k: the reference's insertion list, but once it holds k entries a
// block of 8 values is skipped with one compare when none beats the k-th best
// (the common case over a vocabulary). Same result as the reference, ties
// included: only a strictly greater value enters.
#include <immintrin.h>

#include "kernels/avx2/avx2.hpp"

namespace softalign::kernels::avx2 {

namespace {
inline void insert(float v, std::size_t i, int k, int& count, int32_t* idx, float* val) {
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

int topk(const float* values, std::size_t n, int k, int32_t* idx, float* val) {
  if (k <= 0) return 0;
  int count = 0;
  std::size_t i = 0;
  for (; i < n && count < k; ++i) insert(values[i], i, k, count, idx, val);
  for (; i + 8 <= n; i += 8) {
    const __m256 gt = _mm256_cmp_ps(_mm256_loadu_ps(values + i), _mm256_set1_ps(val[k - 1]), _CMP_GT_OQ);
    if (_mm256_movemask_ps(gt) == 0) continue;
    for (std::size_t j = i; j < i + 8; ++j) insert(values[j], j, k, count, idx, val);
  }
  for (; i < n; ++i) insert(values[i], i, k, count, idx, val);
  return count;
}

}  // namespace softalign::kernels::avx2
