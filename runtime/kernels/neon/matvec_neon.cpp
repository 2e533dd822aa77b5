// NEON matrix-vector and small matrix-matrix products. A block of R weight
// rows times M input vectors keeps R·M accumulators in registers, so every
// weight row is read once per M inputs.
//
// f32 / f16: columns go 8 at a time into 8-lane accumulators (two q
// registers) with fused multiply-adds, the remainder in scalar code: the AVX2
// set's order of operations exactly (math_neon.hpp), so the same floats.
// f16 weights are widened with vcvt (exact).
//
// int8 without the dot product: smull multiplies 8 signed bytes into 16-bit
// products, smlal adds the next 8 (|w| ≤ 128, |x| ≤ 127: a pair is at most
// 2·128·127 = 32512 < 32767, no overflow), sadalp adds the pairs into 32-bit
// lanes. Exact integer sums, so exactly the reference's floats.
#include <fp16.h>

#include "kernels/neon/i8_block_neon.hpp"
#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"
#include "kernels/row_ptrs.hpp"

namespace softalign::kernels::neon {

namespace {

#if defined(__aarch64__)
constexpr int kInputs = 4;  // 32 q registers: 2 × 4 × 2 accumulators fit
#else
constexpr int kInputs = 2;  // 16 q registers on 32-bit ARM
#endif
constexpr int kI8Rows = 2, kI8Inputs = kInputs;

#include "kernels/simd8/float_block.inc"

// 16 byte products into 4 int32 lanes by smull, smlal, sadalp.
struct Smull {
  static int32x4_t add(int32x4_t acc, int8x16_t w, int8x16_t x) {
    int16x8_t p = vmull_s8(vget_low_s8(w), vget_low_s8(x));
    p = vmlal_s8(p, vget_high_s8(w), vget_high_s8(x));
    return vpadalq_s16(acc, p);
  }
  static int32_t sum(int32x4_t v) { return hsum_s32(v); }
};
using I8Block = I8BlockOf<Smull>;

}  // namespace

#include "kernels/simd8/row_products.inc"
#include "kernels/simd8/row_products_i8.inc"

}  // namespace softalign::kernels::neon
