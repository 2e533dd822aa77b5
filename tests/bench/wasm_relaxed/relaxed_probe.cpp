// Relaxed SIMD against SIMD128 for the int8 products, measured in an engine
// (relaxed_probe.sh). Built with Debian's clang-16, the first Debian compiler
// that emits the final relaxed opcodes: the module's emscripten (3.1.6,
// clang 14, binaryen 108) cannot, and binaryen 108 misreads them.
//
// `simd128_matmat_i8` is the shipped wasm_simd128 set's matmat_i8, its own
// file compiled here unchanged; `narrow_matmat_i8` the walk it had before
// (row_products_i8.inc over its I8Block: 4 rows × 4 inputs, each widened at
// every load). `relaxed_matmat_i8` is that walk over a relaxed block (2 rows × 4
// inputs, the fastest shape tried): 16 columns a step with
// i32x4.relaxed_dot_i8x16_i7x16_add_s, exact because its 7-bit operand is
// |w| ≤ 127 and the other x with w's sign (i8x16.relaxed_laneselect between
// x and -x on w < 0), as the avx2 set does with vpmaddubsw and vpsignb.
#include "kernels/wasm_simd128/matvec_wasm128.cpp"

namespace softalign::kernels::wasm_simd128::narrow {
constexpr int kI8Rows = 4, kI8Inputs = 4;
using wasm_simd128::I8Block;
#include "kernels/simd8/row_products_i8.inc"
}  // namespace softalign::kernels::wasm_simd128::narrow

namespace softalign::kernels::wasm_simd128::relaxed {
namespace {

constexpr int kI8Rows = 2, kI8Inputs = 4;

struct I8Block {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
    v128_t acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = wasm_i32x4_splat(0);
    int c = 0;
    for (; c + 16 <= cols; c += 16) {
      v128_t xv[M], xneg[M];
      for (int i = 0; i < M; ++i) {
        xv[i] = wasm_v128_load(x + static_cast<std::size_t>(i) * cols + c);
        xneg[i] = wasm_i8x16_neg(xv[i]);
      }
      for (int r = 0; r < R; ++r) {
        const v128_t wv = wasm_v128_load(w[r] + c);
        const v128_t wabs = wasm_i8x16_abs(wv);
        const v128_t wneg = wasm_i8x16_lt(wv, wasm_i8x16_splat(0));
        for (int i = 0; i < M; ++i) {
          const v128_t xs = (v128_t)__builtin_wasm_relaxed_laneselect_i8x16((__i8x16)xneg[i], (__i8x16)xv[i], (__i8x16)wneg);
          acc[r][i] = (v128_t)__builtin_wasm_relaxed_dot_i8x16_i7x16_add_s_i32x4((__i8x16)xs, (__i8x16)wabs, (__i32x4)acc[r][i]);
        }
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) out[r * M + i] = hsum_i32(acc[r][i]) + tail_sum(w[r], x + static_cast<std::size_t>(i) * cols, c, cols);
  }
};

}  // namespace

#include "kernels/simd8/row_products_i8.inc"

}  // namespace softalign::kernels::wasm_simd128::relaxed

// The two products, exported for relaxed_probe.html: y[m][rows] = W·x_i + bias.
extern "C" {
__attribute__((export_name("simd128_matmat_i8"))) void simd128_matmat_i8(
    const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales, int m, float* y) {
  softalign::kernels::wasm_simd128::matmat_i8(w, nullptr, row_scales, rows, cols, xq, x_scales, m, nullptr, y, rows);
}
__attribute__((export_name("narrow_matmat_i8"))) void narrow_matmat_i8(
    const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales, int m, float* y) {
  softalign::kernels::wasm_simd128::narrow::matmat_i8(w, nullptr, row_scales, rows, cols, xq, x_scales, m, nullptr, y, rows);
}
__attribute__((export_name("relaxed_matmat_i8"))) void relaxed_matmat_i8(
    const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales, int m, float* y) {
  softalign::kernels::wasm_simd128::relaxed::matmat_i8(w, nullptr, row_scales, rows, cols, xq, x_scales, m, nullptr, y, rows);
}
}
