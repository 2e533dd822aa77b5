// NEON top-k: the reference's insertion list, but once it holds k entries a
// block of 8 values is skipped with one compare when none beats the k-th best
// (the common case over a vocabulary). Same result as the reference, ties
// included: only a strictly greater value enters.
#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

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

inline bool any_greater(const float* p, float32x4_t t) {
  const uint32x4_t gt = vorrq_u32(vcgtq_f32(vld1q_f32(p), t), vcgtq_f32(vld1q_f32(p + 4), t));
#if defined(__aarch64__)
  return vmaxvq_u32(gt) != 0;
#else
  const uint32x2_t m = vorr_u32(vget_low_u32(gt), vget_high_u32(gt));
  return (vget_lane_u32(m, 0) | vget_lane_u32(m, 1)) != 0;
#endif
}
}  // namespace

int topk(const float* values, std::size_t n, int k, int32_t* idx, float* val) {
  if (k <= 0) return 0;
  int count = 0;
  std::size_t i = 0;
  for (; i < n && count < k; ++i) insert(values[i], i, k, count, idx, val);
  for (; i + 8 <= n; i += 8) {
    if (!any_greater(values + i, vdupq_n_f32(val[k - 1]))) continue;
    for (std::size_t j = i; j < i + 8; ++j) insert(values[j], j, k, count, idx, val);
  }
  for (; i < n; ++i) insert(values[i], i, k, count, idx, val);
  return count;
}

}  // namespace softalign::kernels::neon
