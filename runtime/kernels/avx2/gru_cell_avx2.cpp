// AVX2 GRU cell (PyTorch's gate order r, z, n; reset after the matmul), all
// three gates and the update in one pass, 8 units at a time.
#include <immintrin.h>

#include <cmath>

#include "kernels/avx2/avx2.hpp"
#include "kernels/avx2/math_avx2.hpp"

namespace softalign::kernels::avx2 {

void gru_cell(const float* gi, const float* gh, const float* h, int hidden, float* h_out) {
  int k = 0;
  for (; k + 8 <= hidden; k += 8) {
    const __m256 r = sigmoid_ps(_mm256_add_ps(_mm256_loadu_ps(gi + k), _mm256_loadu_ps(gh + k)));
    const __m256 z = sigmoid_ps(_mm256_add_ps(_mm256_loadu_ps(gi + hidden + k), _mm256_loadu_ps(gh + hidden + k)));
    const __m256 n = tanh_ps(_mm256_fmadd_ps(r, _mm256_loadu_ps(gh + 2 * hidden + k), _mm256_loadu_ps(gi + 2 * hidden + k)));
    // (1 − z) n + z h = n + z (h − n)
    _mm256_storeu_ps(h_out + k, _mm256_fmadd_ps(z, _mm256_sub_ps(_mm256_loadu_ps(h + k), n), n));
  }
  for (; k < hidden; ++k) {
    const float r = 1.0f / (1.0f + std::exp(-(gi[k] + gh[k])));
    const float z = 1.0f / (1.0f + std::exp(-(gi[hidden + k] + gh[hidden + k])));
    const float n = std::tanh(gi[2 * hidden + k] + r * gh[2 * hidden + k]);
    h_out[k] = n + z * (h[k] - n);
  }
}

}  // namespace softalign::kernels::avx2
