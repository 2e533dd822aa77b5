// WASM SIMD128 matrix-vector and small matrix-matrix products. A block of R
// weight rows times M input vectors keeps R·M accumulators in registers, so
// every weight row is read once per M inputs (row_ptrs.hpp's walk).
//
// f32 / f16: the shared simd8/float_block.inc over math_wasm128.hpp.
//
// int8: 8 columns per step, each operand sign-extended to 16 bits, then
// i32x4.dot_i16x8_s: per int32 lane the sum of two 16-bit products
// (|w·x| ≤ 128·127, so a pair ≤ 32512: exact), added into the lane. Exact
// integer sums, so exactly the reference's floats. The NEON form (smull +
// smlal + sadalp, the wasm_simd set) has no one-instruction WASM equivalent
// and SIMDe runs it lane by lane.
//   - Groups of 4 inputs (beam search) are sign-extended once per call into
//     a stack buffer (WideI8Block), so a step loads them as they are rather
//     than widening them again for every block of rows: blocks of 2 rows × 4
//     inputs (the weight rows widened by their loads).
//   - The inputs left over, and products over more than kWideMaxCols
//     columns, widen as they load (v128.load8x8_s, I8Block), 4 rows a block.
#include <fp16.h>
#include <wasm_simd128.h>

#include "kernels/row_ptrs.hpp"
#include "kernels/wasm_simd128/math_wasm128.hpp"
#include "kernels/wasm_simd128/wasm_simd128.hpp"

namespace softalign::kernels::wasm_simd128 {

namespace {

// 16 SIMD registers on x86-64 engines: the float block's 2 rows × 2 inputs
// take 8 accumulators (two registers per 8 lanes) and 4 for the inputs. The
// wide int8 block's 2 rows × 4 inputs take 8 accumulators and 2 weight rows,
// the inputs read from memory (3 × 4 was no faster in Chromium 156 and
// 30 % slower in node 20). At beam 4 the shipped en→fr model then translates
// in about 0.85 (node) to 0.9 (Chromium, median) of the time of 4 × 4 blocks
// widening the inputs at each load (tests/bench/web_bench.mjs, docs/web.md;
// tests/bench/wasm_relaxed/relaxed_probe.mjs times each product both ways).
constexpr int kInputs = 2;
constexpr int kI8Rows = 4, kI8Inputs = 4;
constexpr int kWideRows = 2;
constexpr int kWideMaxCols = 2048;  // the stack buffer: 4 inputs × 2048 int16 (16 KB); wider products widen at each load

#include "kernels/simd8/float_block.inc"

// Σ row[c] x[c] over the columns [from, cols) a vector step left.
template <typename X>
inline int32_t tail_sum(const int8_t* row, const X* x, int from, int cols) {
  int32_t s = 0;
  for (int c = from; c < cols; ++c) s += static_cast<int32_t>(row[c]) * x[c];
  return s;
}

// 8 input columns as 16-bit lanes: int8 inputs widened as they load, or
// inputs widened beforehand.
inline v128_t load_x8(const int8_t* x) { return wasm_i16x8_load8x8(x); }
inline v128_t load_x8(const int16_t* x) { return wasm_v128_load(x); }

// The sums of R weight rows × M inputs (x: M rows of cols, int8 or int16).
template <typename X>
struct I8BlockOf {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const X* x, int32_t* out) {
    v128_t acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = wasm_i32x4_splat(0);
    int c = 0;
    for (; c + 8 <= cols; c += 8) {
      v128_t xv[M];
      for (int i = 0; i < M; ++i) xv[i] = load_x8(x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const v128_t wv = wasm_i16x8_load8x8(w[r] + c);
        for (int i = 0; i < M; ++i) acc[r][i] = wasm_i32x4_add(acc[r][i], wasm_i32x4_dot_i16x8(wv, xv[i]));
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) out[r * M + i] = hsum_i32(acc[r][i]) + tail_sum(w[r], x + static_cast<std::size_t>(i) * cols, c, cols);
  }
};
using I8Block = I8BlockOf<int8_t>;
using WideI8Block = I8BlockOf<int16_t>;

}  // namespace

#include "kernels/simd8/row_products.inc"

void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy) {
  int i = 0;
  if (cols <= kWideMaxCols) {
    int16_t xw[kI8Inputs * kWideMaxCols];
    for (; i + kI8Inputs <= m; i += kI8Inputs) {
      const int8_t* xi = xq + static_cast<std::size_t>(i) * cols;
      const int n = kI8Inputs * cols;
      int k = 0;
      for (; k + 8 <= n; k += 8) wasm_v128_store(xw + k, wasm_i16x8_load8x8(xi + k));
      for (; k < n; ++k) xw[k] = xi[k];
      for_each_block<kWideRows, kI8Inputs, 4, WideI8Block>(
          w, row_ids, rows, cols, xw, kI8Inputs,
          PutI8<>{row_ids, row_scales, x_scales + i, nullptr, bias, y + static_cast<std::size_t>(i) * ldy, ldy});
    }
  }
  // The inputs left over (and all of a product over more than kWideMaxCols
  // columns): blocks of 4 rows × 4 inputs, then 4 rows × one input. Wide
  // groups of 2 or 3 as well gained a few % in Chromium 156 and made node 20
  // a third slower (one larger function once inlined).
  for_each_block<kI8Rows, kI8Inputs, 4, I8Block>(
      w, row_ids, rows, cols, xq + static_cast<std::size_t>(i) * cols, m - i,
      PutI8<>{row_ids, row_scales, x_scales + i, nullptr, bias, y + static_cast<std::size_t>(i) * ldy, ldy});
}

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y) {
  matmat_i8(w, nullptr, row_scales, rows, cols, xq, &x_scale, 1, bias, y, rows);
}

}  // namespace softalign::kernels::wasm_simd128
