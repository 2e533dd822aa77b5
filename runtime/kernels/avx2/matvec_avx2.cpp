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

constexpr int kInputs = 4;  // 2 rows × 4 inputs: 8 of the 16 ymm registers
constexpr int kI8Rows = 2, kI8Inputs = kInputs;

#include "kernels/simd8/float_block.inc"

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

}  // namespace

#include "kernels/simd8/row_products.inc"
#include "kernels/simd8/row_products_i8.inc"

}  // namespace softalign::kernels::avx2
