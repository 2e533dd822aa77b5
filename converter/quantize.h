// Weight quantisation: symmetric per-row int8 and float16.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace softalign::convert {

// Symmetric int8 with one scale per row of a [rows, cols] matrix:
//   scale[r] = max_c |x[r, c]| / 127,  q[r, c] = round(x[r, c] / scale[r]) in [-127, 127]
// (round half away from zero; -128 is never used). A row of zeros gets
// scale 1 and all-zero q: scales stay finite, normal and positive, which
// kernels that take per-channel scales (XNNPACK's qc8) require. A row whose
// max|x| / 127 is below FLT_MIN (subnormal) gets scale FLT_MIN for the same reason.
struct Int8Rows {
  std::vector<int8_t> q;     // rows * cols
  std::vector<float> scale;  // rows
};
Int8Rows quantize_int8_rows(const std::vector<float>& x, size_t rows, size_t cols);

// Maximum and root-mean-square of |original - reconstructed|.
struct QuantError {
  double max_abs = 0;
  double rms = 0;
};
QuantError int8_error(const std::vector<float>& x, const Int8Rows& q, size_t cols);
QuantError f16_error(const std::vector<float>& x, const std::vector<uint16_t>& h);

}  // namespace softalign::convert
