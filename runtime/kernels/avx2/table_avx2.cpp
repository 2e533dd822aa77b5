// The AVX2 kernel table, filled by field name (see table_ref.cpp).
#include "kernels/avx2/avx2.hpp"
#include "kernels/kernels.hpp"

namespace softalign::kernels::avx2 {

const KernelTable& table() {
  static const KernelTable set = [] {
    KernelTable t{};
    t.name = "avx2";
    t.matvec_f32 = avx2::matvec_f32;
    t.matvec_f16 = avx2::matvec_f16;
    t.matvec_i8 = avx2::matvec_i8;
    t.matmat_f32 = avx2::matmat_f32;
    t.matmat_f16 = avx2::matmat_f16;
    t.matmat_i8 = avx2::matmat_i8;
    t.quantize_i8 = avx2::quantize_i8;
    t.row_f16 = avx2::row_f16;
    t.row_i8 = avx2::row_i8;
    t.gru_cell = avx2::gru_cell;
    t.additive_scores = avx2::additive_scores;
    t.dot_scores = avx2::dot_scores;
    t.softmax = avx2::softmax;
    t.log_softmax = avx2::log_softmax;
    t.weighted_sum = avx2::weighted_sum;
    t.maxout2 = avx2::maxout2;
    t.topk = avx2::topk;
    return t;
  }();
  return set;
}

}  // namespace softalign::kernels::avx2
