// Reference products over several input vectors: one matvec per vector.
#include <cstddef>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

void matmat_f32(const float* w, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  for (int i = 0; i < m; ++i)
    matvec_f32(w, rows, cols, x + static_cast<std::size_t>(i) * cols, bias, y + static_cast<std::size_t>(i) * ldy);
}

void matmat_f16(const uint16_t* w, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  for (int i = 0; i < m; ++i)
    matvec_f16(w, rows, cols, x + static_cast<std::size_t>(i) * cols, bias, y + static_cast<std::size_t>(i) * ldy);
}

void matmat_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy) {
  for (int i = 0; i < m; ++i)
    matvec_i8(w, row_scales, rows, cols, xq + static_cast<std::size_t>(i) * cols, x_scales[i], bias,
              y + static_cast<std::size_t>(i) * ldy);
}

}  // namespace softalign::kernels::ref
