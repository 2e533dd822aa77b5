// The AVX-512 VNNI kernel table: the AVX2 kernels but for the int8 products.
#include "kernels/avx2/avx2.hpp"
#include "kernels/avx512/avx512.hpp"
#include "kernels/kernels.hpp"

namespace softalign::kernels::avx512 {

const KernelTable& table() {
  static const KernelTable t = [] {
    KernelTable k = avx2::table();
    k.name = "avx512";
    k.matvec_i8 = matvec_i8;
    k.matmat_i8 = matmat_i8;
    k.i8_lanes_min_inputs = kLanesMinInputs;
    return k;
  }();
  return t;
}

}  // namespace softalign::kernels::avx512
