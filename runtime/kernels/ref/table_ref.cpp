// The reference kernel table, filled by field name (kernel_set_table.inc).
#include "kernels/kernels.hpp"
#include "kernels/ref/ref.hpp"

namespace softalign::kernels {

namespace ref {
#include "kernels/kernel_set_table.inc"
}  // namespace ref

const KernelTable& ref_kernels() {
  static const KernelTable table = ref::full_table("ref");
  return table;
}

}  // namespace softalign::kernels
