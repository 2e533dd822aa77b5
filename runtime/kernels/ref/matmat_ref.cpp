// Reference products over several input vectors: one matvec per vector and
// weight row (row r of the product is W's row row_ids[r] when row_ids is set).
#include <cstddef>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

namespace {
std::size_t row_of(const int32_t* row_ids, int r, int cols) {
  return static_cast<std::size_t>(row_ids ? row_ids[r] : r) * cols;
}
int id_of(const int32_t* row_ids, int r) { return row_ids ? row_ids[r] : r; }
}  // namespace

void matmat_f32(const float* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias,
                float* y, int ldy) {
  for (int i = 0; i < m; ++i)
    for (int r = 0; r < rows; ++r)
      matvec_f32(w + row_of(row_ids, r, cols), 1, cols, x + static_cast<std::size_t>(i) * cols,
                 bias ? bias + id_of(row_ids, r) : nullptr, y + static_cast<std::size_t>(i) * ldy + r);
}

void matmat_f16(const uint16_t* w, const int32_t* row_ids, int rows, int cols, const float* x, int m,
                const float* bias, float* y, int ldy) {
  for (int i = 0; i < m; ++i)
    for (int r = 0; r < rows; ++r)
      matvec_f16(w + row_of(row_ids, r, cols), 1, cols, x + static_cast<std::size_t>(i) * cols,
                 bias ? bias + id_of(row_ids, r) : nullptr, y + static_cast<std::size_t>(i) * ldy + r);
}

void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols,
               const int8_t* xq, const float* x_scales, int m, const float* bias, float* y, int ldy) {
  for (int i = 0; i < m; ++i)
    for (int r = 0; r < rows; ++r)
      matvec_i8(w + row_of(row_ids, r, cols), row_scales + id_of(row_ids, r), 1, cols,
                xq + static_cast<std::size_t>(i) * cols, x_scales[i], bias ? bias + id_of(row_ids, r) : nullptr,
                y + static_cast<std::size_t>(i) * ldy + r);
}

}  // namespace softalign::kernels::ref
