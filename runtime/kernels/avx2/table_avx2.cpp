// The AVX2 kernel table.
#include "kernels/avx2/avx2.hpp"
#include "kernels/kernels.hpp"

namespace softalign::kernels::avx2 {

const KernelTable& table() {
  static const KernelTable t = {
      "avx2",      matvec_f32,      matvec_f16, matvec_i8, matmat_f32, matmat_f16,   matmat_i8,   quantize_i8,
      row_f16,     row_i8,          gru_cell,   additive_scores,       dot_scores,   softmax,     log_softmax,
      weighted_sum, maxout2,        topk,
  };
  return t;
}

}  // namespace softalign::kernels::avx2
