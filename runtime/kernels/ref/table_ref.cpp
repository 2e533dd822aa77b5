// The reference kernel table.
#include "kernels/kernels.hpp"
#include "kernels/ref/ref.hpp"

namespace softalign::kernels {

const KernelTable& ref_kernels() {
  static const KernelTable table = {
      "ref",
      ref::matvec_f32,
      ref::matvec_f16,
      ref::matvec_i8,
      ref::matmat_f32,
      ref::matmat_f16,
      ref::matmat_i8,
      ref::quantize_i8,
      ref::row_f16,
      ref::row_i8,
      ref::gru_cell,
      ref::additive_scores,
      ref::dot_scores,
      ref::softmax,
      ref::log_softmax,
      ref::weighted_sum,
      ref::maxout2,
      ref::topk,
  };
  return table;
}

}  // namespace softalign::kernels
