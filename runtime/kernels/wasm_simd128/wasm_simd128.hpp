// The wasm_simd128 kernel set: kernels written for WebAssembly SIMD128 with
// <wasm_simd128.h> (the WebAssembly build only; no SIMDe).
//   - int8 products (matvec_i8, matmat_i8: every decoder step's GRU, attention
//     and output-layer products): 8 columns at a time, weights and
//     activations sign-extended to 16 bits (the weights as they load, groups
//     of 4 inputs once per call), then i32x4.dot_i16x8_s (two 16-bit products
//     per int32 lane); matvec_wasm128.cpp.
//   - quantize_i8, row_i8, row_f16: quantize_wasm128.cpp.
//   - everything else (the f32 / f16 products, the GRU cell, attention scores
//     and weighted sum, softmax, log-softmax, top-k) is the shared simd8/ code
//     over math_wasm128.hpp's 8 lanes (two v128), and maxout2 a lane shuffle
//     (simd8_wasm128.cpp). Those run the operations of the wasm_simd set (the
//     neon files through SIMDe) in the same order, a multiply-add rounded
//     twice as there, so both sets return the same floats; only min, max and
//     2^n take cheaper instructions (math_wasm128.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels {
struct KernelTable;
}

namespace softalign::kernels::wasm_simd128 {

#include "kernels/kernel_set_decls.inc"

const KernelTable& table();

}  // namespace softalign::kernels::wasm_simd128
