// The NEON kernel tables, filled by field name (kernel_set_table.inc): "neon"
// (int8 on smull/sadalp) and "neon_dot" (the same but the int8 products on
// the ARMv8.2 dot product, AArch64 only).
#include "kernels/kernels.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

#include "kernels/kernel_set_table.inc"

const KernelTable& table() {
  static const KernelTable set = full_table("neon");
  return set;
}

#if SOFTALIGN_HAVE_NEON_DOT_KERNELS
const KernelTable& dot_table() {
  static const KernelTable set = [] {
    KernelTable t = table();
    t.name = "neon_dot";
    t.matvec_i8 = neon::matvec_i8_dot;
    t.matmat_i8 = neon::matmat_i8_dot;
    return t;
  }();
  return set;
}
#endif

}  // namespace softalign::kernels::neon
