// Reference softmax and log-softmax (max-subtracted, f32).
#include <cmath>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

void softmax(float* x, int n) {
  if (n <= 0) return;
  float mx = x[0];
  for (int i = 1; i < n; ++i) mx = std::fmax(mx, x[i]);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const float inv = 1.0f / sum;
  for (int i = 0; i < n; ++i) x[i] *= inv;
}

void log_softmax(const float* x, int n, float* y) {
  if (n <= 0) return;
  float mx = x[0];
  for (int i = 1; i < n; ++i) mx = std::fmax(mx, x[i]);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += std::exp(x[i] - mx);
  const float lse = mx + std::log(sum);
  for (int i = 0; i < n; ++i) y[i] = x[i] - lse;
}

}  // namespace softalign::kernels::ref
