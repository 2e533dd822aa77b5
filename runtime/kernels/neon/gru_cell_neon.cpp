// NEON GRU cell (PyTorch's gate order r, z, n; reset after the matmul), all
// three gates and the update in one pass, 8 units at a time: the AVX2 cell's
// operations (gru_cell_avx2.cpp), so the same floats on AArch64.
#include <cmath>

#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

void gru_cell(const float* gi, const float* gh, const float* h, int hidden, float* h_out) {
  int k = 0;
  for (; k + 8 <= hidden; k += 8) {
    const f8 r = sigmoid8(add(load8(gi + k), load8(gh + k)));
    const f8 z = sigmoid8(add(load8(gi + hidden + k), load8(gh + hidden + k)));
    const f8 n = tanh8(fmadd(r, load8(gh + 2 * hidden + k), load8(gi + 2 * hidden + k)));
    // (1 − z) n + z h = n + z (h − n)
    store8(h_out + k, fmadd(z, sub(load8(h + k), n), n));
  }
  for (; k < hidden; ++k) {
    const float r = 1.0f / (1.0f + std::exp(-(gi[k] + gh[k])));
    const float z = 1.0f / (1.0f + std::exp(-(gi[hidden + k] + gh[hidden + k])));
    const float n = std::tanh(gi[2 * hidden + k] + r * gh[2 * hidden + k]);
    h_out[k] = n + z * (h[k] - n);
  }
}

}  // namespace softalign::kernels::neon
