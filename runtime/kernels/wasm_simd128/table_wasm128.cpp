// The wasm_simd128 kernel table, filled by field name (kernel_set_table.inc).
#include "kernels/kernels.hpp"
#include "kernels/wasm_simd128/wasm_simd128.hpp"

namespace softalign::kernels::wasm_simd128 {

#include "kernels/kernel_set_table.inc"

const KernelTable& table() {
  static const KernelTable set = full_table("wasm_simd128");
  return set;
}

}  // namespace softalign::kernels::wasm_simd128
