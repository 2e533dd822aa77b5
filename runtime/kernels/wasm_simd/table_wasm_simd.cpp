// The wasm_simd table: the neon set's entries (the neon files compiled for
// WASM SIMD128), named "wasm_simd".
#include "kernels/wasm_simd/wasm_simd.hpp"

#include "kernels/neon/neon.hpp"

namespace softalign::kernels::wasm_simd {

const KernelTable& table() {
  static const KernelTable set = [] {
    KernelTable t = neon::table();
    t.name = "wasm_simd";
    return t;
  }();
  return set;
}

}  // namespace softalign::kernels::wasm_simd
