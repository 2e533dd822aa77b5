// The AVX2 set's float kernels written once in kernels/simd8/ (the GRU and LSTM cells,
// the attention scores and weighted sum, softmax and log-softmax, top-k), over
// math_avx2.hpp's 8 lanes; and maxout over adjacent pairs, whose shuffle is
// the set's own.
#include <immintrin.h>

#include <cmath>

#include "kernels/avx2/avx2.hpp"
#include "kernels/avx2/math_avx2.hpp"
#include "kernels/topk_insert.hpp"

namespace softalign::kernels::avx2 {

#include "kernels/simd8/gru_cell.inc"
#include "kernels/simd8/lstm_cell.inc"
#include "kernels/simd8/scores.inc"
#include "kernels/simd8/softmax.inc"
#include "kernels/simd8/topk.inc"

void maxout2(const float* u, int l, float* t) {
  int k = 0;
  for (; k + 8 <= l; k += 8) {
    const __m256 a = _mm256_loadu_ps(u + 2 * k), b = _mm256_loadu_ps(u + 2 * k + 8);
    // even / odd elements of each 128-bit lane, then the lanes back in order
    const __m256 even = _mm256_shuffle_ps(a, b, 0x88), odd = _mm256_shuffle_ps(a, b, 0xdd);
    const __m256 m = _mm256_max_ps(even, odd);
    _mm256_storeu_ps(t + k, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(m), 0xd8)));
  }
  for (; k < l; ++k) t[k] = std::fmax(u[2 * k], u[2 * k + 1]);
}

}  // namespace softalign::kernels::avx2
