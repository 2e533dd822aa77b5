// Reference attention scores: additive (Bahdanau; Luong concat) and dot
// (Luong dot; general with W_a h_j precomputed as keys).
#include <cmath>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

void additive_scores(const float* q, const float* keys, const float* v, int count, int dim, float* scores) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<std::size_t>(j) * dim;
    float acc = 0.0f;
    for (int k = 0; k < dim; ++k) acc += v[k] * std::tanh(q[k] + key[k]);
    scores[j] = acc;
  }
}

void dot_scores(const float* q, const float* keys, int count, int dim, float* scores) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<std::size_t>(j) * dim;
    float acc = 0.0f;
    for (int k = 0; k < dim; ++k) acc += q[k] * key[k];
    scores[j] = acc;
  }
}

void weighted_sum(const float* a, const float* h, int count, int dim, float* c) {
  for (int k = 0; k < dim; ++k) c[k] = 0.0f;
  for (int j = 0; j < count; ++j) {
    const float* row = h + static_cast<std::size_t>(j) * dim;
    for (int k = 0; k < dim; ++k) c[k] += a[j] * row[k];
  }
}

}  // namespace softalign::kernels::ref
