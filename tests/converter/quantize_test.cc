// int8 per-row quantisation.
#include <cfloat>
#include <cmath>
#include <random>

#include <doctest/doctest.h>

#include "quantize.h"

using namespace softalign::convert;

TEST_CASE("int8: scale is max|row| / 127, error at most scale / 2") {
  std::mt19937 rng(3);
  std::normal_distribution<float> g(0.0f, 0.3f);
  const size_t rows = 17, cols = 33;
  std::vector<float> x(rows * cols);
  for (float& v : x) v = g(rng);
  const Int8Rows q = quantize_int8_rows(x, rows, cols);
  for (size_t r = 0; r < rows; ++r) {
    float amax = 0;
    for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(x[r * cols + c]));
    CHECK(q.scale[r] == amax / 127.0f);
    bool hit_127 = false;
    for (size_t c = 0; c < cols; ++c) {
      const int8_t v = q.q[r * cols + c];
      CHECK(v >= -127);
      hit_127 = hit_127 || std::abs(int(v)) == 127;
      CHECK(std::fabs(x[r * cols + c] - q.scale[r] * v) <= q.scale[r] * (0.5 + 1e-5));
    }
    CHECK(hit_127);  // the row's largest magnitude uses the full range
  }
  const QuantError e = int8_error(x, q, cols);
  CHECK(e.max_abs > 0);
  CHECK(e.rms <= e.max_abs);
}

TEST_CASE("int8: all-zero rows get scale 1 and zeros; tiny rows a normal scale") {
  std::vector<float> x = {0, 0, 0, 0,  // zero row
                          1e-40f, -2e-40f, 0, 0,  // subnormal values
                          -127, 63.5f, -63.5f, 127};
  const Int8Rows q = quantize_int8_rows(x, 3, 4);
  CHECK(q.scale[0] == 1.0f);
  for (int c = 0; c < 4; ++c) CHECK(q.q[c] == 0);
  CHECK(q.scale[1] == FLT_MIN);  // finite, normal, positive
  CHECK(std::isnormal(q.scale[1]));
  CHECK(q.scale[2] == 1.0f);
  CHECK(q.q[8] == -127);
  CHECK(q.q[9] == 64);  // halves round away from zero
  CHECK(q.q[10] == -64);
  CHECK(q.q[11] == 127);
}
