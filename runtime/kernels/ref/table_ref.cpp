// The reference kernel table. Filled by field name, never by position:
// several entries share a signature (dot_scores and weighted_sum, the
// matvec_* and matmat_* of one storage type ...), so a positional list in the
// wrong order would still compile.
#include "kernels/kernels.hpp"
#include "kernels/ref/ref.hpp"

namespace softalign::kernels {

const KernelTable& ref_kernels() {
  static const KernelTable table = [] {
    KernelTable t{};
    t.name = "ref";
    t.matvec_f32 = ref::matvec_f32;
    t.matvec_f16 = ref::matvec_f16;
    t.matvec_i8 = ref::matvec_i8;
    t.matmat_f32 = ref::matmat_f32;
    t.matmat_f16 = ref::matmat_f16;
    t.matmat_i8 = ref::matmat_i8;
    t.quantize_i8 = ref::quantize_i8;
    t.row_f16 = ref::row_f16;
    t.row_i8 = ref::row_i8;
    t.gru_cell = ref::gru_cell;
    t.additive_scores = ref::additive_scores;
    t.dot_scores = ref::dot_scores;
    t.softmax = ref::softmax;
    t.log_softmax = ref::log_softmax;
    t.weighted_sum = ref::weighted_sum;
    t.maxout2 = ref::maxout2;
    t.topk = ref::topk;
    return t;
  }();
  return table;
}

}  // namespace softalign::kernels
