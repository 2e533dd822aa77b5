// The NEON set's float kernels written once in kernels/simd8/ (the GRU and LSTM cells,
// the attention scores and weighted sum, softmax and log-softmax, top-k), over
// math_neon.hpp's 8 lanes, so the AVX2 set's floats on AArch64; and maxout
// over adjacent pairs, whose de-interleaving load is the set's own.
#include <cmath>

#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"
#include "kernels/topk_insert.hpp"

namespace softalign::kernels::neon {

#include "kernels/simd8/gru_cell.inc"
#include "kernels/simd8/lstm_cell.inc"
#include "kernels/simd8/scores.inc"
#include "kernels/simd8/softmax.inc"
#include "kernels/simd8/topk.inc"

void maxout2(const float* u, int l, float* t) {
  int k = 0;
  for (; k + 4 <= l; k += 4) {
    const float32x4x2_t p = vld2q_f32(u + 2 * k);  // even and odd elements
    vst1q_f32(t + k, vmaxq_f32(p.val[0], p.val[1]));
  }
  for (; k < l; ++k) t[k] = std::fmax(u[2 * k], u[2 * k + 1]);
}

}  // namespace softalign::kernels::neon
