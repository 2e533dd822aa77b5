// Reference matrix-vector products: plain loops, f32 accumulation for floats,
// int32 accumulation for int8.
#include <fp16.h>

#include <cmath>

#include "kernels/kernels.hpp"
#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

void matvec_f32(const float* w, int rows, int cols, const float* x, const float* bias, float* y) {
  for (int r = 0; r < rows; ++r) {
    const float* row = w + static_cast<std::size_t>(r) * cols;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += row[c] * x[c];
    y[r] = bias ? acc + bias[r] : acc;
  }
}

void matvec_f16(const uint16_t* w, int rows, int cols, const float* x, const float* bias, float* y) {
  for (int r = 0; r < rows; ++r) {
    const uint16_t* row = w + static_cast<std::size_t>(r) * cols;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += fp16_ieee_to_fp32_value(row[c]) * x[c];
    y[r] = bias ? acc + bias[r] : acc;
  }
}

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq,
               float x_scale, const float* bias, float* y) {
  for (int r = 0; r < rows; ++r) {
    const int8_t* row = w + static_cast<std::size_t>(r) * cols;
    int32_t acc = 0;
    for (int c = 0; c < cols; ++c) acc += static_cast<int32_t>(row[c]) * static_cast<int32_t>(xq[c]);
    const float v = static_cast<float>(acc) * (row_scales[r] * x_scale);
    y[r] = bias ? v + bias[r] : v;
  }
}

float quantize_i8(const float* x, int n, int8_t* xq) {
  float amax = 0.0f;
  for (int i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  if (!(amax > 0.0f)) {
    for (int i = 0; i < n; ++i) xq[i] = 0;
    return 0.0f;
  }
  const float scale = amax / 127.0f;
  const float inv = 127.0f / amax;
  for (int i = 0; i < n; ++i) {
    float q = std::nearbyint(x[i] * inv);
    q = std::fmin(127.0f, std::fmax(-127.0f, q));
    xq[i] = static_cast<int8_t>(q);
  }
  return scale;
}

void row_f16(const uint16_t* src, int n, float* dst) {
  for (int i = 0; i < n; ++i) dst[i] = fp16_ieee_to_fp32_value(src[i]);
}

void row_i8(const int8_t* src, float scale, int n, float* dst) {
  for (int i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]) * scale;
}

}  // namespace softalign::kernels::ref
