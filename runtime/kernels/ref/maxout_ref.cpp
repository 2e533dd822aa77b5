// Reference maxout over pairs of adjacent units.
#include <cmath>

#include "kernels/ref/ref.hpp"

namespace softalign::kernels::ref {

void maxout2(const float* u, int l, float* t) {
  for (int k = 0; k < l; ++k) t[k] = std::fmax(u[2 * k], u[2 * k + 1]);
}

}  // namespace softalign::kernels::ref
