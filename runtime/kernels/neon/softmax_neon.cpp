// NEON softmax, log-softmax (max-subtracted) and maxout over adjacent pairs,
// in the AVX2 set's order (softmax_avx2.cpp).
#include <cmath>

#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

namespace {
float max_of(const float* x, int n) {
  float mx = x[0];
  int i = 0;
  if (n >= 8) {
    f8 v = load8(x);
    for (i = 8; i + 8 <= n; i += 8) v = max(v, load8(x + i));
    mx = hmax(v);
  }
  for (; i < n; ++i) mx = std::fmax(mx, x[i]);
  return mx;
}
}  // namespace

void softmax(float* x, int n) {
  if (n <= 0) return;
  const float mx = max_of(x, n);
  const f8 vmx = dup8(mx);
  f8 vsum = zero8();
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const f8 e = exp8(sub(load8(x + i), vmx));
    store8(x + i, e);
    vsum = add(vsum, e);
  }
  float sum = hsum(vsum);
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const f8 inv = dup8(1.0f / sum);
  for (i = 0; i + 8 <= n; i += 8) store8(x + i, mul(load8(x + i), inv));
  for (; i < n; ++i) x[i] *= 1.0f / sum;
}

void log_softmax(const float* x, int n, float* y) {
  if (n <= 0) return;
  const float mx = max_of(x, n);
  const f8 vmx = dup8(mx);
  f8 vsum = zero8();
  int i = 0;
  for (; i + 8 <= n; i += 8) vsum = add(vsum, exp8(sub(load8(x + i), vmx)));
  float sum = hsum(vsum);
  for (; i < n; ++i) sum += std::exp(x[i] - mx);
  const float lse = mx + std::log(sum);
  const f8 vlse = dup8(lse);
  for (i = 0; i + 8 <= n; i += 8) store8(y + i, sub(load8(x + i), vlse));
  for (; i < n; ++i) y[i] = x[i] - lse;
}

void maxout2(const float* u, int l, float* t) {
  int k = 0;
  for (; k + 4 <= l; k += 4) {
    const float32x4x2_t p = vld2q_f32(u + 2 * k);  // even and odd elements
    vst1q_f32(t + k, vmaxq_f32(p.val[0], p.val[1]));
  }
  for (; k < l; ++k) t[k] = std::fmax(u[2 * k], u[2 * k + 1]);
}

}  // namespace softalign::kernels::neon
