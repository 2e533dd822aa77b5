// The NEON kernel sets (runtime/kernels/neon/): "neon" (AArch64, and 32-bit
// ARM with NEON + VFPv4) and "neon_dot" (AArch64 with the ARMv8.2 dot product:
// the neon set with the int8 products on sdot).
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels {
struct KernelTable;
}

namespace softalign::kernels::neon {

#include "kernels/kernel_set_decls.inc"

// int8 products on sdot (matvec_i8_dot.cpp, compiled for armv8.2-a+dotprod):
// call only where the CPU has the dot product.
void matvec_i8_dot(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
                   const float* bias, float* y);
void matmat_i8_dot(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq,
                   const float* x_scales, int m, const float* bias, float* y, int ldy);

// The tables (table_neon.cpp); callers check the CPU first.
const KernelTable& table();
const KernelTable& dot_table();

}  // namespace softalign::kernels::neon
