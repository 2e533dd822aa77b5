// WASM SIMD128 matrix-vector and small matrix-matrix products. A block of R
// weight rows times M input vectors keeps R·M accumulators in registers, so
// every weight row is read once per M inputs (row_ptrs.hpp's walk).
//
// f32 / f16: the shared simd8/float_block.inc over math_wasm128.hpp.
//
// int8: 8 columns per step, each operand sign-extended to 16 bits by its
// load (v128.load8x8_s), then i32x4.dot_i16x8_s: per int32 lane the sum of
// two 16-bit products (|w·x| ≤ 128·127, so a pair ≤ 32512: exact), added
// into the lane. Exact integer sums, so exactly the reference's floats. The
// NEON form (smull + smlal + sadalp, the wasm_simd set) has no one-instruction
// WASM equivalent and SIMDe runs it lane by lane.
#include <fp16.h>
#include <wasm_simd128.h>

#include "kernels/row_ptrs.hpp"
#include "kernels/wasm_simd128/math_wasm128.hpp"
#include "kernels/wasm_simd128/wasm_simd128.hpp"

namespace softalign::kernels::wasm_simd128 {

namespace {

// 16 SIMD registers on x86-64 engines: the float block's 2 rows × 2 inputs
// take 8 accumulators (two registers per 8 lanes) and 4 for the inputs. The
// int8 block's 4 rows × 4 inputs take 16 accumulators, with the inputs and a
// weight row reloaded as needed (a load of 8 bytes either way): 15-20 % less
// time than 2 × 2 from 4 inputs on (node 20, 384 columns), the same with one.
constexpr int kInputs = 2;
constexpr int kI8Rows = 4, kI8Inputs = 4;

#include "kernels/simd8/float_block.inc"

struct I8Block {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
    v128_t acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = wasm_i32x4_splat(0);
    int c = 0;
    for (; c + 8 <= cols; c += 8) {
      v128_t xv[M];
      for (int i = 0; i < M; ++i) xv[i] = wasm_i16x8_load8x8(x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const v128_t wv = wasm_i16x8_load8x8(w[r] + c);
        for (int i = 0; i < M; ++i) acc[r][i] = wasm_i32x4_add(acc[r][i], wasm_i32x4_dot_i16x8(wv, xv[i]));
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) {
        const int8_t* row = w[r];
        const int8_t* xi = x + static_cast<std::size_t>(i) * cols;
        int32_t s = hsum_i32(acc[r][i]);
        for (int cc = c; cc < cols; ++cc) s += static_cast<int32_t>(row[cc]) * xi[cc];
        out[r * M + i] = s;
      }
  }
};

}  // namespace

#include "kernels/simd8/row_products.inc"

}  // namespace softalign::kernels::wasm_simd128
