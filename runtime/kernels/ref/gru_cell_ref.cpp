// Reference GRU cell, PyTorch's definition (gate order r, z, n; the reset gate
// multiplies W_hn h + b_hn, i.e. after the matmul).
#include <cmath>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

static float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

void gru_cell(const float* gi, const float* gh, const float* h, int hidden, float* h_out) {
  for (int k = 0; k < hidden; ++k) {
    const float r = sigmoid(gi[k] + gh[k]);
    const float z = sigmoid(gi[hidden + k] + gh[hidden + k]);
    const float n = std::tanh(gi[2 * hidden + k] + r * gh[2 * hidden + k]);
    h_out[k] = (1.0f - z) * n + z * h[k];
  }
}

}  // namespace softalign::kernels::ref
