// AVX2 softmax, log-softmax (max-subtracted) and maxout over adjacent pairs.
#include <immintrin.h>

#include <cmath>

#include "kernels/avx2/avx2.hpp"
#include "kernels/avx2/math_avx2.hpp"

namespace softalign::kernels::avx2 {

namespace {
float max_of(const float* x, int n) {
  float mx = x[0];
  int i = 0;
  if (n >= 8) {
    __m256 v = _mm256_loadu_ps(x);
    for (i = 8; i + 8 <= n; i += 8) v = _mm256_max_ps(v, _mm256_loadu_ps(x + i));
    mx = hmax_ps(v);
  }
  for (; i < n; ++i) mx = std::fmax(mx, x[i]);
  return mx;
}
}  // namespace

void softmax(float* x, int n) {
  if (n <= 0) return;
  const float mx = max_of(x, n);
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256 vsum = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmx));
    _mm256_storeu_ps(x + i, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  float sum = hsum_ps(vsum);
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const __m256 inv = _mm256_set1_ps(1.0f / sum);
  for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), inv));
  for (; i < n; ++i) x[i] *= 1.0f / sum;
}

void log_softmax(const float* x, int n, float* y) {
  if (n <= 0) return;
  const float mx = max_of(x, n);
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256 vsum = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= n; i += 8) vsum = _mm256_add_ps(vsum, exp_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmx)));
  float sum = hsum_ps(vsum);
  for (; i < n; ++i) sum += std::exp(x[i] - mx);
  const float lse = mx + std::log(sum);
  const __m256 vlse = _mm256_set1_ps(lse);
  for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_sub_ps(_mm256_loadu_ps(x + i), vlse));
  for (; i < n; ++i) y[i] = x[i] - lse;
}

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
