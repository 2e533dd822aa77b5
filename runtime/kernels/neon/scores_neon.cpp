// NEON attention: additive scores fused (q + key, tanh and the v dot product
// in one pass over each key), dot scores, the weighted sum of annotations.
// 8 lanes per step in the AVX2 set's order (scores_avx2.cpp).
#include <cmath>

#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

void additive_scores(const float* q, const float* keys, const float* v, int count, int dim, float* scores) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<std::size_t>(j) * dim;
    f8 acc = zero8();
    int k = 0;
    for (; k + 8 <= dim; k += 8) acc = fmadd(load8(v + k), tanh8(add(load8(q + k), load8(key + k))), acc);
    float s = hsum(acc);
    for (; k < dim; ++k) s += v[k] * std::tanh(q[k] + key[k]);
    scores[j] = s;
  }
}

void dot_scores(const float* q, const float* keys, int count, int dim, float* scores) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<std::size_t>(j) * dim;
    f8 acc = zero8();
    int k = 0;
    for (; k + 8 <= dim; k += 8) acc = fmadd(load8(q + k), load8(key + k), acc);
    float s = hsum(acc);
    for (; k < dim; ++k) s += q[k] * key[k];
    scores[j] = s;
  }
}

// As the AVX2 kernel: four chains of 8 columns side by side, each output's
// sum unchanged.
void weighted_sum(const float* a, const float* h, int count, int dim, float* c) {
  int k = 0;
  for (; k + 32 <= dim; k += 32) {
    f8 acc0 = zero8(), acc1 = zero8(), acc2 = zero8(), acc3 = zero8();
    for (int j = 0; j < count; ++j) {
      const f8 w = dup8(a[j]);
      const float* row = h + static_cast<std::size_t>(j) * dim + k;
      acc0 = fmadd(w, load8(row), acc0);
      acc1 = fmadd(w, load8(row + 8), acc1);
      acc2 = fmadd(w, load8(row + 16), acc2);
      acc3 = fmadd(w, load8(row + 24), acc3);
    }
    store8(c + k, acc0);
    store8(c + k + 8, acc1);
    store8(c + k + 16, acc2);
    store8(c + k + 24, acc3);
  }
  for (; k + 8 <= dim; k += 8) {
    f8 acc = zero8();
    for (int j = 0; j < count; ++j) acc = fmadd(dup8(a[j]), load8(h + static_cast<std::size_t>(j) * dim + k), acc);
    store8(c + k, acc);
  }
  for (; k < dim; ++k) {
    float acc = 0.0f;
    for (int j = 0; j < count; ++j) acc += a[j] * h[static_cast<std::size_t>(j) * dim + k];
    c[k] = acc;
  }
}

}  // namespace softalign::kernels::neon
