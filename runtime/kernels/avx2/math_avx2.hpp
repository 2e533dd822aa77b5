// The AVX2 set's 8 float lanes (one __m256) and their operations, under the
// names the NEON set gives its own (neon/math_neon.hpp), so that the float
// kernels written once in kernels/simd8/ compile for both; exp, sigmoid and
// tanh come from simd8/math.inc. Include only from files compiled with
// -mavx2 -mfma -mf16c.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace softalign::kernels::avx2 {

using f8 = __m256;

inline f8 load8(const float* p) { return _mm256_loadu_ps(p); }
// fp16 widened exactly (F16C).
inline f8 load8(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline void store8(float* p, f8 v) { _mm256_storeu_ps(p, v); }
inline f8 dup8(float v) { return _mm256_set1_ps(v); }
inline f8 zero8() { return _mm256_setzero_ps(); }
inline f8 add(f8 a, f8 b) { return _mm256_add_ps(a, b); }
inline f8 sub(f8 a, f8 b) { return _mm256_sub_ps(a, b); }
inline f8 mul(f8 a, f8 b) { return _mm256_mul_ps(a, b); }
inline f8 div(f8 a, f8 b) { return _mm256_div_ps(a, b); }
inline f8 max(f8 a, f8 b) { return _mm256_max_ps(a, b); }
inline f8 min(f8 a, f8 b) { return _mm256_min_ps(a, b); }
// a * b + c, one rounding.
inline f8 fmadd(f8 a, f8 b, f8 c) { return _mm256_fmadd_ps(a, b, c); }
// c − a * b, one rounding.
inline f8 fnmadd(f8 a, f8 b, f8 c) { return _mm256_fnmadd_ps(a, b, c); }
// Round to nearest, ties to even.
inline f8 round8(f8 x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
// 2^n for integral n in [-126, 127], built in the exponent field.
inline f8 pow2(f8 n) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
inline f8 abs8(f8 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
// mag (≥ 0) with the sign bit of x.
inline f8 with_sign_of(f8 mag, f8 x) { return _mm256_or_ps(mag, _mm256_and_ps(x, _mm256_set1_ps(-0.0f))); }
// Per lane: a < b ? if_less : otherwise.
inline f8 select_lt(f8 a, f8 b, f8 if_less, f8 otherwise) {
  return _mm256_blendv_ps(otherwise, if_less, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
}
// Whether any lane of a is greater than b's.
inline bool any_greater(f8 a, f8 b) { return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ)) != 0; }

// Horizontal sum in the order (l0+l4 + l2+l6) + (l1+l5 + l3+l7).
inline float hsum(f8 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float hmax(f8 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline int hsum_epi32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

#include "kernels/simd8/math.inc"

}  // namespace softalign::kernels::avx2
