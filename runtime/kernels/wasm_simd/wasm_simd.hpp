// The wasm_simd kernel set: the neon set (kernels/neon/) compiled for
// WebAssembly SIMD128 through SIMDe (arm_neon.h beside this file), under its
// own name. Built only by emscripten with SOFTALIGN_WASM_SIMD.
#pragma once

#include "kernels/kernels.hpp"

namespace softalign::kernels::wasm_simd {
const KernelTable& table();
}
