#include "quantize.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "half.h"

namespace softalign::convert {

Int8Rows quantize_int8_rows(const std::vector<float>& x, size_t rows, size_t cols) {
  Int8Rows out;
  out.q.resize(rows * cols);
  out.scale.resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    float amax = 0;
    for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(row[c]));
    float scale = amax / 127.0f;
    if (amax == 0)
      scale = 1.0f;
    else if (scale < FLT_MIN)
      scale = FLT_MIN;
    out.scale[r] = scale;
    for (size_t c = 0; c < cols; ++c) {
      const float v = std::round(row[c] / scale);
      out.q[r * cols + c] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
    }
  }
  return out;
}

QuantError int8_error(const std::vector<float>& x, const Int8Rows& q, size_t cols) {
  QuantError e;
  double sum2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double diff = std::fabs(double(x[i]) - double(q.scale[i / cols]) * q.q[i]);
    e.max_abs = std::max(e.max_abs, diff);
    sum2 += diff * diff;
  }
  e.rms = x.empty() ? 0 : std::sqrt(sum2 / double(x.size()));
  return e;
}

QuantError f16_error(const std::vector<float>& x, const std::vector<uint16_t>& h) {
  QuantError e;
  double sum2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double diff = std::fabs(double(x[i]) - double(half_to_float(h[i])));
    e.max_abs = std::max(e.max_abs, diff);
    sum2 += diff * diff;
  }
  e.rms = x.empty() ? 0 : std::sqrt(sum2 / double(x.size()));
  return e;
}

}  // namespace softalign::convert
