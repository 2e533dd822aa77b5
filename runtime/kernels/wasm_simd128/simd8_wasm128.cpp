// The wasm_simd128 set's float kernels written once in kernels/simd8/ (the
// GRU and LSTM cells, the attention scores and weighted sum, softmax and log-softmax,
// top-k) over math_wasm128.hpp's 8 lanes; and maxout over adjacent pairs,
// whose de-interleaving shuffle is the set's own.
#include <wasm_simd128.h>

#include <cmath>

#include "kernels/topk_insert.hpp"
#include "kernels/wasm_simd128/math_wasm128.hpp"
#include "kernels/wasm_simd128/wasm_simd128.hpp"

namespace softalign::kernels::wasm_simd128 {

#include "kernels/simd8/gru_cell.inc"
#include "kernels/simd8/lstm_cell.inc"
#include "kernels/simd8/scores.inc"
#include "kernels/simd8/softmax.inc"
#include "kernels/simd8/topk.inc"

void maxout2(const float* u, int l, float* t) {
  int k = 0;
  for (; k + 4 <= l; k += 4) {
    const v128_t a = wasm_v128_load(u + 2 * k), b = wasm_v128_load(u + 2 * k + 4);
    const v128_t even = wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), odd = wasm_i32x4_shuffle(a, b, 1, 3, 5, 7);
    wasm_v128_store(t + k, wasm_f32x4_max(even, odd));
  }
  for (; k < l; ++k) t[k] = std::fmax(u[2 * k], u[2 * k + 1]);
}

}  // namespace softalign::kernels::wasm_simd128
