// The AVX2 kernel table, filled by field name (kernel_set_table.inc).
#include "kernels/avx2/avx2.hpp"
#include "kernels/kernels.hpp"

namespace softalign::kernels::avx2 {

#include "kernels/kernel_set_table.inc"

const KernelTable& table() {
  static const KernelTable set = full_table("avx2");
  return set;
}

}  // namespace softalign::kernels::avx2
