// AVX2 attention: additive scores fused (q + key, tanh and the v dot product
// in one pass over each key), dot scores, the weighted sum of annotations.
#include <immintrin.h>

#include <cmath>

#include "kernels/avx2/avx2.hpp"
#include "kernels/avx2/math_avx2.hpp"

namespace softalign::kernels::avx2 {

void additive_scores(const float* q, const float* keys, const float* v, int count, int dim, float* scores) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<std::size_t>(j) * dim;
    __m256 acc = _mm256_setzero_ps();
    int k = 0;
    for (; k + 8 <= dim; k += 8) {
      const __m256 t = tanh_ps(_mm256_add_ps(_mm256_loadu_ps(q + k), _mm256_loadu_ps(key + k)));
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(v + k), t, acc);
    }
    float s = hsum_ps(acc);
    for (; k < dim; ++k) s += v[k] * std::tanh(q[k] + key[k]);
    scores[j] = s;
  }
}

void dot_scores(const float* q, const float* keys, int count, int dim, float* scores) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<std::size_t>(j) * dim;
    __m256 acc = _mm256_setzero_ps();
    int k = 0;
    for (; k + 8 <= dim; k += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(q + k), _mm256_loadu_ps(key + k), acc);
    float s = hsum_ps(acc);
    for (; k < dim; ++k) s += q[k] * key[k];
    scores[j] = s;
  }
}

// Each c[k] is one chain of fused multiply-adds over j, in order. Four
// chains side by side (32 columns) keep the FMA unit busy instead of waiting
// on one chain's latency; every output's sum is the same as one at a time.
void weighted_sum(const float* a, const float* h, int count, int dim, float* c) {
  int k = 0;
  for (; k + 32 <= dim; k += 32) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps(), acc2 = _mm256_setzero_ps(),
           acc3 = _mm256_setzero_ps();
    for (int j = 0; j < count; ++j) {
      const __m256 w = _mm256_set1_ps(a[j]);
      const float* row = h + static_cast<std::size_t>(j) * dim + k;
      acc0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row), acc0);
      acc1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + 8), acc1);
      acc2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + 16), acc2);
      acc3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + 24), acc3);
    }
    _mm256_storeu_ps(c + k, acc0);
    _mm256_storeu_ps(c + k + 8, acc1);
    _mm256_storeu_ps(c + k + 16, acc2);
    _mm256_storeu_ps(c + k + 24, acc3);
  }
  for (; k + 8 <= dim; k += 8) {
    __m256 acc = _mm256_setzero_ps();
    for (int j = 0; j < count; ++j)
      acc = _mm256_fmadd_ps(_mm256_set1_ps(a[j]), _mm256_loadu_ps(h + static_cast<std::size_t>(j) * dim + k), acc);
    _mm256_storeu_ps(c + k, acc);
  }
  for (; k < dim; ++k) {
    float acc = 0.0f;
    for (int j = 0; j < count; ++j) acc += a[j] * h[static_cast<std::size_t>(j) * dim + k];
    c[k] = acc;
  }
}

}  // namespace softalign::kernels::avx2
