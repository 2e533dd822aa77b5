// Reference LSTM cell, PyTorch's definition (gate order i, f, g, o; both
// biases already in gi and gh).
#include <cmath>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

static float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

void lstm_cell(const float* gi, const float* gh, const float* c, int hidden, float* h_out, float* c_out) {
  for (int k = 0; k < hidden; ++k) {
    const float i = sigmoid(gi[k] + gh[k]);
    const float f = sigmoid(gi[hidden + k] + gh[hidden + k]);
    const float g = std::tanh(gi[2 * hidden + k] + gh[2 * hidden + k]);
    const float o = sigmoid(gi[3 * hidden + k] + gh[3 * hidden + k]);
    const float c_new = f * c[k] + i * g;
    c_out[k] = c_new;
    h_out[k] = o * std::tanh(c_new);
  }
}

}  // namespace softalign::kernels::ref
