// int8 products on the ARMv8.2 dot product (sdot: four signed byte products
// summed into each 32-bit lane, no saturation: exact for every int8 weight and
// activation). Compiled with -march=armv8.2-a+dotprod and called only when
// cpuinfo reports the dot product, so this file keeps everything it uses to
// itself (no shared inline helper could be emitted here with sdot in it;
// row_ptrs.hpp's have internal linkage).
#include <arm_neon.h>

#include "kernels/neon/neon.hpp"
#include "kernels/row_ptrs.hpp"  // internal linkage: safe to share

namespace softalign::kernels::neon {

namespace {

// out[r*M + i] = Σ_c w[r,c] x_i[c] for R rows and M inputs: 16 columns per
// step, the remainder in scalar code.
struct DotBlock {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
    int32x4_t acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = vdupq_n_s32(0);
    int c = 0;
    for (; c + 16 <= cols; c += 16) {
      int8x16_t xv[M];
      for (int i = 0; i < M; ++i) xv[i] = vld1q_s8(x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const int8x16_t wv = vld1q_s8(w[r] + c);
        for (int i = 0; i < M; ++i) acc[r][i] = vdotq_s32(acc[r][i], wv, xv[i]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) {
        const int8_t* row = w[r];
        const int8_t* xi = x + static_cast<std::size_t>(i) * cols;
        int32_t s = vaddvq_s32(acc[r][i]);
        for (int cc = c; cc < cols; ++cc) s += static_cast<int32_t>(row[cc]) * xi[cc];
        out[r * M + i] = s;
      }
  }
};

}  // namespace

void matmat_i8_dot(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq,
                   const float* x_scales, int m, const float* bias, float* y, int ldy) {
  // Blocks of 4 rows × 4 inputs, then 4 rows × the inputs left over.
  for_each_block<4, 4, 4, DotBlock>(w, row_ids, rows, cols, xq, m,
                                    PutI8<>{row_ids, row_scales, x_scales, nullptr, bias, y, ldy});
}

void matvec_i8_dot(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
                   const float* bias, float* y) {
  matmat_i8_dot(w, nullptr, row_scales, rows, cols, xq, &x_scale, 1, bias, y, rows);
}

}  // namespace softalign::kernels::neon
