// AVX2 activation quantization and embedding-row widening. quantize_i8 gives
// the reference's bytes exactly: the same IEEE product x · (127 / amax),
// rounded to nearest even, clamped to ±127.
#include <fp16.h>
#include <immintrin.h>

#include <cmath>

#include "kernels/avx2/avx2.hpp"
#include "kernels/avx2/math_avx2.hpp"

namespace softalign::kernels::avx2 {

#include "kernels/simd8/quantize_rest.inc"

float quantize_i8(const float* x, int n, int8_t* xq) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 vmax = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_loadu_ps(x + i), abs_mask));
  const float amax = amax_rest(x, i, n, hmax(vmax), xq);
  if (amax == 0.0f) return 0.0f;
  const float inv = 127.0f / amax;
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256 hi = _mm256_set1_ps(127.0f), lo = _mm256_set1_ps(-127.0f);
  auto q8 = [&](const float* p) {
    __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(p), vinv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_cvtps_epi32(_mm256_min_ps(hi, _mm256_max_ps(lo, v)));
  };
  i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i ab = _mm256_packs_epi32(q8(x + i), q8(x + i + 8));
    const __m256i cd = _mm256_packs_epi32(q8(x + i + 16), q8(x + i + 24));
    const __m256i packed = _mm256_packs_epi16(ab, cd);  // lane-interleaved
    const __m256i fixed = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(xq + i), fixed);
  }
  quantize_rest(x, i, n, inv, xq);
  return amax / 127.0f;
}

void row_i8(const int8_t* src, float scale, int n, float* dst) {
  const __m256 s = _mm256_set1_ps(scale);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_ps(dst + i, _mm256_mul_ps(_mm256_cvtepi32_ps(v), s));
  }
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]) * scale;
}

}  // namespace softalign::kernels::avx2
