// int8 products on the ARMv8.2 dot product (sdot: four signed byte products
// summed into each 32-bit lane, no saturation: exact for every int8 weight and
// activation). Compiled with -march=armv8.2-a+dotprod and called only when
// cpuinfo reports the dot product, so this file keeps everything it uses to
// itself (no shared inline helper could be emitted here with sdot in it;
// row_ptrs.hpp's and i8_block_neon.hpp's have internal linkage).
#include <arm_neon.h>

#include "kernels/neon/i8_block_neon.hpp"  // internal linkage: safe to share
#include "kernels/neon/neon.hpp"
#include "kernels/row_ptrs.hpp"  // internal linkage: safe to share

namespace softalign::kernels::neon {

namespace {

// 16 byte products into 4 int32 lanes by sdot.
struct Sdot {
  static int32x4_t add(int32x4_t acc, int8x16_t w, int8x16_t x) { return vdotq_s32(acc, w, x); }
  static int32_t sum(int32x4_t v) { return vaddvq_s32(v); }
};
using DotBlock = I8BlockOf<Sdot>;

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
