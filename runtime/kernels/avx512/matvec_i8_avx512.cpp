// AVX-512 VNNI int8 products. vpdpbusd multiplies unsigned by signed bytes
// and adds groups of four into int32 without saturation, so the weight is
// offset to unsigned: w + 128 (a byte xor), and Σ (w + 128) x = Σ w x + 128 Σ x,
// where Σ x is computed once per input vector and call. Exact for every int8
// weight (|x| ≤ 127). Columns go 64 at a time, the remainder through a masked
// load (zero bytes on both sides: their product is 128 · 0).
#include <immintrin.h>

#include "kernels/avx512/avx512.hpp"
#include "kernels/avx512/sum_i8.hpp"
#include "kernels/row_ptrs.hpp"

// GCC 12's AVX-512 headers start some intrinsics from an "undefined" vector
// and then warn about it: not a problem of this code.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace softalign::kernels::avx512 {

namespace {

inline int32_t hsum(__m512i v) {
  const __m256i s = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
  return _mm_cvtsi128_si32(t);
}

// The four sums of a, b, c, d at once (cheaper than four hsum).
inline __m128i hsum4(__m512i a, __m512i b, __m512i c, __m512i d) {
  auto half = [](__m512i v) {
    const __m256i s = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  };
  return _mm_hadd_epi32(_mm_hadd_epi32(half(a), half(b)), _mm_hadd_epi32(half(c), half(d)));
}

// out[r*M + i] = Σ_c (w[r,c] + 128) x_i[c] for R rows and M inputs.
struct OffsetBlock {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    __m512i acc[R * M];
    for (int j = 0; j < R * M; ++j) acc[j] = _mm512_setzero_si512();
    for (int c = 0; c < cols; c += 64) {
      const __mmask64 mask = cols - c >= 64 ? ~__mmask64(0) : (__mmask64(1) << (cols - c)) - 1;
      __m512i xv[M];
      for (int i = 0; i < M; ++i) xv[i] = _mm512_maskz_loadu_epi8(mask, x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const __m512i wu = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, w[r] + c), flip);
        for (int i = 0; i < M; ++i) acc[r * M + i] = _mm512_dpbusd_epi32(acc[r * M + i], wu, xv[i]);
      }
    }
    int j = 0;
    for (; j + 4 <= R * M; j += 4)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), hsum4(acc[j], acc[j + 1], acc[j + 2], acc[j + 3]));
    for (; j < R * M; ++j) out[j] = hsum(acc[j]);
  }
};

}  // namespace

void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy) {
  // Groups of 16 inputs (and a last group of 8 or more) go to the lanes
  // kernel; the few left over, and single vectors, stay row-wise.
  if (cols <= kLanesMaxCols && m >= kLanesMinInputs) {
    const int lanes = m % 16 >= kLanesMinInputs ? m : m - m % 16;
    matmat_i8_lanes(w, row_ids, row_scales, rows, cols, xq, x_scales, lanes, bias, y, ldy);
    if (lanes == m) return;
    xq += static_cast<std::size_t>(lanes) * cols;
    x_scales += lanes;
    y += static_cast<std::size_t>(lanes) * ldy;
    m -= lanes;
  }
  // The offset's share, 128 Σ x, per input (at most 16 inputs per call here;
  // more are done in further calls).
  if (m > 16) {
    for (int i0 = 0; i0 < m; i0 += 16)
      matmat_i8(w, row_ids, row_scales, rows, cols, xq + static_cast<std::size_t>(i0) * cols, x_scales + i0,
                m - i0 < 16 ? m - i0 : 16, bias, y + static_cast<std::size_t>(i0) * ldy, ldy);
    return;
  }
  int32_t offset[16];
  for (int i = 0; i < m; ++i) offset[i] = 128 * sum_i8(xq + static_cast<std::size_t>(i) * cols, cols);
  // Blocks of 2 rows × 4 inputs, then 4 rows × the inputs left over.
  for_each_block<2, 4, 4, OffsetBlock>(w, row_ids, rows, cols, xq, m,
                                       PutI8<true>{row_ids, row_scales, x_scales, offset, bias, y, ldy});
}

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y) {
  matmat_i8(w, nullptr, row_scales, rows, cols, xq, &x_scale, 1, bias, y, rows);
}

}  // namespace softalign::kernels::avx512
