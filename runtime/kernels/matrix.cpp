// Dispatch of a stored matrix (f32, f16, i8) to the kernel of its type.
#include <fp16.h>

#include <cstring>

#include "kernels/kernels.hpp"

namespace softalign::kernels {

Matrix Matrix::slice_rows(int first, int count) const {
  Matrix m = *this;
  m.rows = count;
  const std::size_t offset = static_cast<std::size_t>(first) * cols;
  switch (type) {
    case WeightType::kF32: m.data = static_cast<const float*>(data) + offset; break;
    case WeightType::kF16: m.data = static_cast<const uint16_t*>(data) + offset; break;
    case WeightType::kI8:
      m.data = static_cast<const int8_t*>(data) + offset;
      m.scales = scales + first;
      break;
  }
  return m;
}

void matvec(const KernelTable& k, const Matrix& w, const float* x, const float* bias, float* y, int8_t* xq) {
  switch (w.type) {
    case WeightType::kF32:
      k.matvec_f32(static_cast<const float*>(w.data), w.rows, w.cols, x, bias, y);
      return;
    case WeightType::kF16:
      k.matvec_f16(static_cast<const uint16_t*>(w.data), w.rows, w.cols, x, bias, y);
      return;
    case WeightType::kI8: {
      const float xs = k.quantize_i8(x, w.cols, xq);
      k.matvec_i8(static_cast<const int8_t*>(w.data), w.scales, w.rows, w.cols, xq, xs, bias, y);
      return;
    }
  }
}

namespace {
// y over `rows` rows of W (gathered through row_ids when not null).
void product(const KernelTable& k, const Matrix& w, const int32_t* row_ids, int rows, const float* x,
             const int8_t* xq, const float* x_scales, int m, const float* bias, float* y, int ldy) {
  switch (w.type) {
    case WeightType::kF32:
      k.matmat_f32(static_cast<const float*>(w.data), row_ids, rows, w.cols, x, m, bias, y, ldy);
      return;
    case WeightType::kF16:
      k.matmat_f16(static_cast<const uint16_t*>(w.data), row_ids, rows, w.cols, x, m, bias, y, ldy);
      return;
    case WeightType::kI8:
      k.matmat_i8(static_cast<const int8_t*>(w.data), row_ids, w.scales, rows, w.cols, xq, x_scales, m, bias, y, ldy);
      return;
  }
}
}  // namespace

void matmat(const KernelTable& k, const Matrix& w, const float* x, const int8_t* xq, const float* x_scales, int m,
            const float* bias, float* y, int ldy) {
  product(k, w, nullptr, w.rows, x, xq, x_scales, m, bias, y, ldy);
}

void matmat_gather(const KernelTable& k, const Matrix& w, const int32_t* row_ids, int count, const float* x,
                   const int8_t* xq, const float* x_scales, int m, const float* bias, float* y, int ldy) {
  product(k, w, row_ids, count, x, xq, x_scales, m, bias, y, ldy);
}

void get_row(const KernelTable& k, const Matrix& w, int r, float* dst) {
  const std::size_t offset = static_cast<std::size_t>(r) * w.cols;
  switch (w.type) {
    case WeightType::kF32:
      std::memcpy(dst, static_cast<const float*>(w.data) + offset, sizeof(float) * w.cols);
      return;
    case WeightType::kF16: k.row_f16(static_cast<const uint16_t*>(w.data) + offset, w.cols, dst); return;
    case WeightType::kI8: k.row_i8(static_cast<const int8_t*>(w.data) + offset, w.scales[r], w.cols, dst); return;
  }
}

// IEEE 754 binary16 → binary32, exact for every input (FP16 library).
float half_to_float(uint16_t h) { return fp16_ieee_to_fp32_value(h); }

}  // namespace softalign::kernels
