// The AVX2 + FMA + F16C kernel set (x86-64 since Haswell / Zen).
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels {
struct KernelTable;
}

namespace softalign::kernels::avx2 {

#include "kernels/kernel_set_decls.inc"

// The table (defined in table_avx2.cpp); callers check the CPU first.
const KernelTable& table();

}  // namespace softalign::kernels::avx2
