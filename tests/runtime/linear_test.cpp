// The linear layer over many rows: XNNPACK's fully-connected operator (f32)
// and the kernels' matmat (f32, f16, i8; one thread or a pool) against the
// reference matvec, at odd sizes.
#include <doctest/doctest.h>
#include <pthreadpool.h>

#include <cmath>
#include <random>
#include <vector>

#include "backends/cpu/linear.hpp"

using namespace softalign;
using namespace softalign::internal;

TEST_CASE("Linear: XNNPACK f32 equals the reference matvec") {
  const kernels::KernelTable& k = kernels::ref_kernels();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int out : {1, 7, 100}) {
    for (int in : {1, 13, 64}) {
      for (int rows : {1, 3, 32}) {
        INFO("out ", out, " in ", in, " rows ", rows);
        std::vector<float> w(out * in), b(out), x(rows * in + 16), y(rows * out), ref(out);
        for (auto& v : w) v = u(rng);
        for (auto& v : b) v = u(rng);
        for (auto& v : x) v = u(rng);
        kernels::Matrix m{WeightType::kF32, out, in, w.data(), nullptr};
        Linear lin;
        REQUIRE(lin.init(m, b.data(), true).ok());
        CHECK(lin.uses_xnnpack());
        lin.run(k, x.data(), rows, y.data(), nullptr, nullptr, nullptr);
        for (int r = 0; r < rows; ++r) {
          k.matvec_f32(w.data(), out, in, &x[r * in], b.data(), ref.data());
          for (int o = 0; o < out; ++o) CHECK(std::fabs(y[r * out + o] - ref[o]) <= 1e-5f * (1 + in));
        }
        Linear plain;
        REQUIRE(plain.init(m, b.data(), false).ok());
        CHECK(!plain.uses_xnnpack());
        std::vector<float> y2(rows * out);
        plain.run(k, x.data(), rows, y2.data(), nullptr, nullptr, nullptr);
        for (int r = 0; r < rows; ++r) {
          k.matvec_f32(w.data(), out, in, &x[r * in], b.data(), ref.data());
          for (int o = 0; o < out; ++o) CHECK(y2[r * out + o] == ref[o]);
        }
      }
    }
  }
}

TEST_CASE("Linear: int8 weights, each row quantized, equal the kernel matvec") {
  const kernels::KernelTable& k = kernels::ref_kernels();
  const int out = 5, in = 9, rows = 3;
  std::vector<float> wf(out * in), x(rows * in + 16), y(rows * out), ref(out);
  for (int i = 0; i < out * in; ++i) wf[i] = std::sin(0.3f * i);
  for (int i = 0; i < rows * in; ++i) x[i] = std::cos(0.7f * i);
  std::vector<int8_t> wq(out * in), xq(rows * in + 16);
  std::vector<float> xs(rows);
  std::vector<float> scales(out);
  for (int r = 0; r < out; ++r) scales[r] = k.quantize_i8(&wf[r * in], in, &wq[r * in]);
  kernels::Matrix m{WeightType::kI8, out, in, wq.data(), scales.data()};
  Linear lin;
  REQUIRE(lin.init(m, nullptr, true).ok());
  CHECK(!lin.uses_xnnpack());
  lin.run(k, x.data(), rows, y.data(), xq.data(), xs.data(), nullptr);
  for (int r = 0; r < rows; ++r) {
    kernels::matvec(k, m, &x[r * in], nullptr, ref.data(), xq.data());
    for (int o = 0; o < out; ++o) CHECK(y[r * out + o] == ref[o]);
  }
}

TEST_CASE("Linear: f16 weights are widened exactly for XNNPACK") {
  const kernels::KernelTable& k = kernels::ref_kernels();
  const int out = 11, in = 19, rows = 4;
  std::vector<uint16_t> wh(out * in);
  std::vector<float> b(out), x(rows * in + 16), y(rows * out), ref(out);
  for (int i = 0; i < out * in; ++i) wh[i] = static_cast<uint16_t>(0x3000 + (i * 97) % 0x1000) | ((i % 3) ? 0 : 0x8000);
  for (int i = 0; i < out; ++i) b[i] = 0.1f * i;
  for (int i = 0; i < rows * in; ++i) x[i] = std::cos(0.7f * i);
  kernels::Matrix m{WeightType::kF16, out, in, wh.data(), nullptr};
  Linear lin;
  REQUIRE(lin.init(m, b.data(), true).ok());
  CHECK(lin.uses_xnnpack());
  lin.run(k, x.data(), rows, y.data(), nullptr, nullptr, nullptr);
  for (int r = 0; r < rows; ++r) {
    k.matvec_f16(wh.data(), out, in, &x[r * in], b.data(), ref.data());
    for (int o = 0; o < out; ++o) CHECK(std::fabs(y[r * out + o] - ref[o]) <= 1e-5f * (1 + in));
  }
}

TEST_CASE("Linear: a thread pool splits the output rows, same result") {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1, 1);
  pthreadpool* pool = pthreadpool_create(3);
  REQUIRE(pool != nullptr);
  const kernels::KernelTable* sets[8];
  const int nsets = kernels::available_kernels(sets, 8);
  for (int s = 0; s < nsets; ++s) {
    const kernels::KernelTable& k = *sets[s];
    for (int out : {1, 1029, 4099}) {  // 4099 × 300 × 5 rows: split into tasks of 512 rows
      const int in = 300, rows = 5;
      INFO(k.name, " out ", out);
      std::vector<float> w(out * in), b(out), x(rows * in + 16), y1(rows * out), y2(rows * out), xs(rows);
      for (auto& v : w) v = u(rng);
      for (auto& v : b) v = u(rng);
      for (auto& v : x) v = u(rng);
      std::vector<int8_t> wq(out * in), xq(rows * in + 16);
      std::vector<float> scales(out);
      for (int r = 0; r < out; ++r) scales[r] = k.quantize_i8(&w[r * in], in, &wq[r * in]);
      for (const kernels::Matrix& m : {kernels::Matrix{WeightType::kF32, out, in, w.data(), nullptr},
                                       kernels::Matrix{WeightType::kI8, out, in, wq.data(), scales.data()}}) {
        Linear lin;
        REQUIRE(lin.init(m, b.data(), false).ok());
        lin.run(k, x.data(), rows, y1.data(), xq.data(), xs.data(), nullptr);
        lin.run(k, x.data(), rows, y2.data(), xq.data(), xs.data(), pool);
        CHECK(y1 == y2);
      }
    }
  }
  pthreadpool_destroy(pool);
}
