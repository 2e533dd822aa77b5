// The NEON kernel tables, filled by field name (see table_ref.cpp): "neon"
// (int8 on smull/sadalp) and "neon_dot" (the same but the int8 products on
// the ARMv8.2 dot product, AArch64 only).
#include "kernels/kernels.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

const KernelTable& table() {
  static const KernelTable set = [] {
    KernelTable t{};
    t.name = "neon";
    t.matvec_f32 = neon::matvec_f32;
    t.matvec_f16 = neon::matvec_f16;
    t.matvec_i8 = neon::matvec_i8;
    t.matmat_f32 = neon::matmat_f32;
    t.matmat_f16 = neon::matmat_f16;
    t.matmat_i8 = neon::matmat_i8;
    t.quantize_i8 = neon::quantize_i8;
    t.row_f16 = neon::row_f16;
    t.row_i8 = neon::row_i8;
    t.gru_cell = neon::gru_cell;
    t.additive_scores = neon::additive_scores;
    t.dot_scores = neon::dot_scores;
    t.softmax = neon::softmax;
    t.log_softmax = neon::log_softmax;
    t.weighted_sum = neon::weighted_sum;
    t.maxout2 = neon::maxout2;
    t.topk = neon::topk;
    return t;
  }();
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
