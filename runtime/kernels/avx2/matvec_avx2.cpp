// AVX2 matrix-vector and small matrix-matrix products. A block of R weight
// rows times M input vectors keeps R·M accumulators in registers, so every
// weight row is read once per M inputs; columns go 8 (f32, f16) or 32 (i8) at
// a time, the remainder in scalar code.
//
// int8 is exact: vpmaddubsw multiplies unsigned by signed bytes, so the sign
// of each weight moves onto the activation (|w| as u8, sign(x, w) as s8; |w|
// ≤ 128, |x| ≤ 127 since activations are clamped to ±127, so each pair sum is
// at most 2·128·127 = 32512 < 32767: no saturation), vpmaddwd widens to int32.
#include "kernels/avx2/avx2.hpp"
#include "kernels/row_ptrs.hpp"

#include <fp16.h>
#include <immintrin.h>

#include "kernels/avx2/math_avx2.hpp"

namespace softalign::kernels::avx2 {

namespace {

inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline float widen(float v) { return v; }
inline float widen(uint16_t v) { return fp16_ieee_to_fp32_value(v); }

// out[r*M + i] = W[r]·X[i] for R rows starting at w (row stride cols).
struct FloatBlock {
  using Acc = float;
  template <int R, int M, typename W>
  static void run(const W* const* w, int cols, const float* x, float* out) {
    __m256 acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = _mm256_setzero_ps();
    int c = 0;
    for (; c + 8 <= cols; c += 8) {
      __m256 xv[M];
      for (int i = 0; i < M; ++i) xv[i] = _mm256_loadu_ps(x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const __m256 wv = load8(w[r] + c);
        for (int i = 0; i < M; ++i) acc[r][i] = _mm256_fmadd_ps(wv, xv[i], acc[r][i]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) {
        float s = hsum_ps(acc[r][i]);
        const W* row = w[r];
        const float* xi = x + static_cast<std::size_t>(i) * cols;
        for (int cc = c; cc < cols; ++cc) s += widen(row[cc]) * xi[cc];
        out[r * M + i] = s;
      }
  }
};

// The four sums of a, b, c, d at once (cheaper than four hsum_epi32).
inline __m128i hsum4_epi32(__m256i a, __m256i b, __m256i c, __m256i d) {
  auto half = [](__m256i v) { return _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)); };
  return _mm_hadd_epi32(_mm_hadd_epi32(half(a), half(b)), _mm_hadd_epi32(half(c), half(d)));
}

struct I8Block {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = _mm256_setzero_si256();
    int c = 0;
    for (; c + 32 <= cols; c += 32) {
      __m256i xv[M];
      for (int i = 0; i < M; ++i)
        xv[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + static_cast<std::size_t>(i) * cols + c));
      for (int r = 0; r < R; ++r) {
        const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[r] + c));
        const __m256i wabs = _mm256_abs_epi8(wv);
        for (int i = 0; i < M; ++i) {
          const __m256i p = _mm256_maddubs_epi16(wabs, _mm256_sign_epi8(xv[i], wv));
          acc[r][i] = _mm256_add_epi32(acc[r][i], _mm256_madd_epi16(p, ones));
        }
      }
    }
    int j = 0;
    for (; j + 4 <= R * M; j += 4)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j),
                       hsum4_epi32(acc[j / M][j % M], acc[(j + 1) / M][(j + 1) % M], acc[(j + 2) / M][(j + 2) % M],
                                   acc[(j + 3) / M][(j + 3) % M]));
    for (; j < R * M; ++j) out[j] = hsum_epi32(acc[j / M][j % M]);
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) {
        const int8_t* row = w[r];
        const int8_t* xi = x + static_cast<std::size_t>(i) * cols;
        int32_t s = 0;
        for (int cc = c; cc < cols; ++cc) s += static_cast<int32_t>(row[cc]) * xi[cc];
        out[r * M + i] += s;
      }
  }
};

// Blocks of 2 rows × 4 inputs, then 4 rows × the inputs left over.
template <typename W>
void matmat_float(const W* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  for_each_block<2, 4, 4, FloatBlock>(w, row_ids, rows, cols, x, m, PutFloat{row_ids, bias, y, ldy});
}

}  // namespace

void matmat_f32(const float* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  matmat_float(w, row_ids, rows, cols, x, m, bias, y, ldy);
}

void matmat_f16(const uint16_t* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  matmat_float(w, row_ids, rows, cols, x, m, bias, y, ldy);
}

void matvec_f32(const float* w, int rows, int cols, const float* x, const float* bias, float* y) {
  matmat_float(w, nullptr, rows, cols, x, 1, bias, y, rows);
}

void matvec_f16(const uint16_t* w, int rows, int cols, const float* x, const float* bias, float* y) {
  matmat_float(w, nullptr, rows, cols, x, 1, bias, y, rows);
}

void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy) {
  for_each_block<2, 4, 4, I8Block>(w, row_ids, rows, cols, xq, m, PutI8<>{row_ids, row_scales, x_scales, nullptr, bias, y, ldy});
}

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y) {
  matmat_i8(w, nullptr, row_scales, rows, cols, xq, &x_scale, 1, bias, y, rows);
}

}  // namespace softalign::kernels::avx2
