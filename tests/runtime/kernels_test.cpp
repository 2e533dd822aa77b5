// The reference kernels against straightforward double-precision loops, at odd
// sizes, and their edge cases (ties, zeros, subnormal halves). These tests are
// what a faster kernel set must pass too: they run for every table
// select_kernels knows.
#include <doctest/doctest.h>
#include <fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.hpp"

using namespace softalign;
using namespace softalign::kernels;

namespace {

std::vector<float> random_vec(std::mt19937& rng, std::size_t n, float scale = 1.0f) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n + 16);  // slack like the arena's
  for (std::size_t i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

uint16_t float_to_half(float f) { return fp16_ieee_from_fp32_value(f); }

const int kRows[] = {1, 3, 17, 64};
const int kCols[] = {1, 5, 16, 33, 100};

std::vector<const KernelTable*> tables() {
  const KernelTable* sets[16];
  const int n = available_kernels(sets, 16);
  return std::vector<const KernelTable*>(sets, sets + std::min(n, 16));
}

}  // namespace

TEST_CASE("half_to_float is exact") {
  CHECK(half_to_float(0x0000) == 0.0f);
  CHECK(std::signbit(half_to_float(0x8000)));
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0xc000) == -2.0f);
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(half_to_float(0x03ff) == std::ldexp(1023.0f, -24));
  CHECK(std::isinf(half_to_float(0x7c00)));
  CHECK(std::isnan(half_to_float(0x7e00)));
  for (float f : {0.5f, 0.333251953125f, -1234.0f, 3.140625f}) CHECK(half_to_float(float_to_half(f)) == f);
}

TEST_CASE("matvec f32, f16 and i8 against double loops") {
  std::mt19937 rng(7);
  for (const KernelTable* k : tables()) {
    for (int rows : kRows) {
      for (int cols : kCols) {
        INFO(k->name, " rows ", rows, " cols ", cols);
        auto w = random_vec(rng, static_cast<std::size_t>(rows) * cols);
        auto x = random_vec(rng, cols);
        auto bias = random_vec(rng, rows);
        std::vector<float> y(rows + 16);
        // f32
        k->matvec_f32(w.data(), rows, cols, x.data(), bias.data(), y.data());
        for (int r = 0; r < rows; ++r) {
          double ref = bias[r];
          for (int c = 0; c < cols; ++c) ref += static_cast<double>(w[r * cols + c]) * x[c];
          CHECK(std::fabs(y[r] - ref) <= 1e-5 * (1 + cols));
        }
        // f16: the same product over the weights as halves
        std::vector<uint16_t> wh(w.size());
        for (std::size_t i = 0; i < w.size(); ++i) wh[i] = float_to_half(w[i]);
        k->matvec_f16(wh.data(), rows, cols, x.data(), nullptr, y.data());
        for (int r = 0; r < rows; ++r) {
          double ref = 0;
          for (int c = 0; c < cols; ++c) ref += static_cast<double>(half_to_float(wh[r * cols + c])) * x[c];
          CHECK(std::fabs(y[r] - ref) <= 1e-5 * (1 + cols));
        }
        // i8: quantize rows and the vector, the exact integer product, scaled
        std::vector<int8_t> wq(w.size());
        std::vector<float> scales(rows);
        for (int r = 0; r < rows; ++r) scales[r] = k->quantize_i8(&w[r * cols], cols, &wq[r * cols]);
        std::vector<int8_t> xq(cols + 16);
        const float xs = k->quantize_i8(x.data(), cols, xq.data());
        for (int c = 0; c < cols; ++c) CHECK(std::fabs(xq[c] * xs - x[c]) <= xs / 2 + 1e-7);
        k->matvec_i8(wq.data(), scales.data(), rows, cols, xq.data(), xs, bias.data(), y.data());
        for (int r = 0; r < rows; ++r) {
          long acc = 0;
          for (int c = 0; c < cols; ++c) acc += static_cast<long>(wq[r * cols + c]) * xq[c];
          const double ref = static_cast<double>(acc) * scales[r] * xs + bias[r];
          CHECK(std::fabs(y[r] - ref) <= 1e-5 * (1 + std::fabs(ref)));
        }
      }
    }
  }
}

TEST_CASE("quantize_i8 edge cases") {
  // 3 and 7 values: scalar code only; 37: the vector loops and a remainder.
  for (const KernelTable* k : tables())
    for (int n : {3, 7, 37}) {
      INFO(k->name, " n ", n);
      std::vector<float> zero(n, 0.0f);
      std::vector<int8_t> q(n, 5);
      CHECK(k->quantize_i8(zero.data(), n, q.data()) == 0.0f);
      for (int8_t v : q) CHECK(v == 0);
      std::vector<float> x(n);
      for (int i = 0; i < n; ++i) x[i] = i % 3 == 0 ? -2.0f : i % 3 == 1 ? 1.0f : 2.0f;
      CHECK(k->quantize_i8(x.data(), n, q.data()) == doctest::Approx(2.0f / 127));
      for (int i = 0; i < n; ++i) CHECK(q[i] == (i % 3 == 0 ? -127 : i % 3 == 1 ? 64 : 127));  // 63.5 rounds to even
    }
}

TEST_CASE("Matrix dispatch: matvec, get_row and slice_rows agree across types") {
  const KernelTable& k = ref_kernels();
  std::mt19937 rng(3);
  const int rows = 9, cols = 13;
  auto w = random_vec(rng, rows * cols);
  std::vector<int8_t> wq(rows * cols);
  std::vector<float> scales(rows);
  for (int r = 0; r < rows; ++r) scales[r] = k.quantize_i8(&w[r * cols], cols, &wq[r * cols]);
  Matrix m{WeightType::kI8, rows, cols, wq.data(), scales.data()};
  std::vector<float> row(cols);
  get_row(k, m.slice_rows(4, 3), 1, row.data());  // row 5
  for (int c = 0; c < cols; ++c) CHECK(row[c] == doctest::Approx(wq[5 * cols + c] * scales[5]));
  auto x = random_vec(rng, cols);
  std::vector<int8_t> xq(cols + 16);
  std::vector<float> all(rows), part(3);
  matvec(k, m, x.data(), nullptr, all.data(), xq.data());
  matvec(k, m.slice_rows(4, 3), x.data(), nullptr, part.data(), xq.data());
  for (int r = 0; r < 3; ++r) CHECK(part[r] == all[4 + r]);
  Matrix mf{WeightType::kF32, rows, cols, w.data(), nullptr};
  get_row(k, mf, 2, row.data());
  for (int c = 0; c < cols; ++c) CHECK(row[c] == w[2 * cols + c]);
}

TEST_CASE("GRU cell follows PyTorch's gate order and reset placement") {
  std::mt19937 rng(11);
  for (const KernelTable* k : tables())
    for (int hidden : {1, 7, 24}) {
      auto gi = random_vec(rng, 3 * hidden, 2.0f), gh = random_vec(rng, 3 * hidden, 2.0f);
      auto h = random_vec(rng, hidden);
      std::vector<float> out(hidden);
      k->gru_cell(gi.data(), gh.data(), h.data(), hidden, out.data());
      for (int i = 0; i < hidden; ++i) {
        const double r = 1 / (1 + std::exp(-(double(gi[i]) + gh[i])));
        const double z = 1 / (1 + std::exp(-(double(gi[hidden + i]) + gh[hidden + i])));
        const double n = std::tanh(double(gi[2 * hidden + i]) + r * gh[2 * hidden + i]);
        CHECK(out[i] == doctest::Approx((1 - z) * n + z * h[i]).epsilon(1e-5));
      }
      // h_out may alias h
      std::vector<float> h2(h.begin(), h.end());
      k->gru_cell(gi.data(), gh.data(), h2.data(), hidden, h2.data());
      for (int i = 0; i < hidden; ++i) CHECK(h2[i] == out[i]);
    }
}

TEST_CASE("LSTM cell follows PyTorch's gate order i, f, g, o") {
  std::mt19937 rng(13);
  for (const KernelTable* k : tables())
    for (int hidden : {1, 7, 24}) {
      auto gi = random_vec(rng, 4 * hidden, 2.0f), gh = random_vec(rng, 4 * hidden, 2.0f);
      auto c = random_vec(rng, hidden, 2.0f);
      std::vector<float> h_out(hidden), c_out(hidden);
      k->lstm_cell(gi.data(), gh.data(), c.data(), hidden, h_out.data(), c_out.data());
      for (int j = 0; j < hidden; ++j) {
        auto gate = [&](int b) { return double(gi[b * hidden + j]) + gh[b * hidden + j]; };
        const double i = 1 / (1 + std::exp(-gate(0))), f = 1 / (1 + std::exp(-gate(1)));
        const double g = std::tanh(gate(2)), o = 1 / (1 + std::exp(-gate(3)));
        const double c_new = f * c[j] + i * g;
        CHECK(c_out[j] == doctest::Approx(c_new).epsilon(1e-5));
        CHECK(h_out[j] == doctest::Approx(o * std::tanh(c_new)).epsilon(1e-5));
      }
      // c_out may alias c
      std::vector<float> c2(c.begin(), c.end()), h2(hidden);
      k->lstm_cell(gi.data(), gh.data(), c2.data(), hidden, h2.data(), c2.data());
      for (int j = 0; j < hidden; ++j) CHECK((c2[j] == c_out[j] && h2[j] == h_out[j]));
    }
}

TEST_CASE("attention scores, softmax, weighted sum, maxout") {
  std::mt19937 rng(5);
  for (const KernelTable* k : tables())
    for (int count : {1, 2, 31}) {
      for (int dim : {1, 8, 17}) {
        auto q = random_vec(rng, dim), v = random_vec(rng, dim), keys = random_vec(rng, count * dim);
        std::vector<float> s(count);
        k->additive_scores(q.data(), keys.data(), v.data(), count, dim, s.data());
        for (int j = 0; j < count; ++j) {
          double ref = 0;
          for (int i = 0; i < dim; ++i) ref += double(v[i]) * std::tanh(double(q[i]) + keys[j * dim + i]);
          CHECK(s[j] == doctest::Approx(ref).epsilon(1e-5));
        }
        k->dot_scores(q.data(), keys.data(), count, dim, s.data());
        for (int j = 0; j < count; ++j) {
          double ref = 0;
          for (int i = 0; i < dim; ++i) ref += double(q[i]) * keys[j * dim + i];
          CHECK(s[j] == doctest::Approx(ref).epsilon(1e-5));
        }
        std::vector<float> c(dim);
        k->weighted_sum(s.data(), keys.data(), count, dim, c.data());
        for (int i = 0; i < dim; ++i) {
          double ref = 0;
          for (int j = 0; j < count; ++j) ref += double(s[j]) * keys[j * dim + i];
          CHECK(c[i] == doctest::Approx(ref).epsilon(1e-4).scale(1.0));
        }
      }
      auto x = random_vec(rng, count, 30.0f);
      std::vector<float> p(x.begin(), x.begin() + count), lp(count);
      k->softmax(p.data(), count);
      k->log_softmax(x.data(), count, lp.data());
      double sum = 0, mx = x[0];
      for (int j = 0; j < count; ++j) mx = std::max<double>(mx, x[j]);
      for (int j = 0; j < count; ++j) sum += std::exp(x[j] - mx);
      double total = 0;
      for (int j = 0; j < count; ++j) {
        const double ref = x[j] - mx - std::log(sum);
        CHECK(lp[j] == doctest::Approx(ref).epsilon(1e-5).scale(1.0));
        CHECK(p[j] == doctest::Approx(std::exp(ref)).epsilon(1e-5).scale(1.0));
        total += p[j];
      }
      CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
    }
  std::vector<float> u = {1, 2, -3, -4, 5, 5}, t(3);
  ref_kernels().maxout2(u.data(), 3, t.data());
  CHECK(t == std::vector<float>{2, -3, 5});
}

TEST_CASE("top-k: best first, ties to the lower index") {
  for (const KernelTable* k : tables()) {
    const std::vector<float> v = {0.5f, 2.0f, 2.0f, -1.0f, 3.0f, 2.0f, 0.5f};
    int32_t idx[4];
    float val[4];
    REQUIRE(k->topk(v.data(), v.size(), 4, idx, val) == 4);
    CHECK(idx[0] == 4);
    CHECK(idx[1] == 1);
    CHECK(idx[2] == 2);
    CHECK(idx[3] == 5);
    CHECK(val[3] == 2.0f);
    REQUIRE(k->topk(v.data(), 2, 4, idx, val) == 2);  // fewer values than k
    CHECK(idx[0] == 1);
    CHECK(idx[1] == 0);
    // Against a sort on random data.
    std::mt19937 rng(9);
    auto r = random_vec(rng, 1001);
    std::vector<int32_t> order(1001);
    for (int i = 0; i < 1001; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r[a] > r[b]; });
    int32_t idx8[8];
    float val8[8];
    REQUIRE(k->topk(r.data(), 1001, 8, idx8, val8) == 8);
    for (int i = 0; i < 8; ++i) CHECK(idx8[i] == order[i]);
  }
}

TEST_CASE("select_kernels") {
  CHECK(tables().front() == &ref_kernels());
  for (const KernelTable* k : tables()) CHECK(select_kernels(k->name) == k);
  CHECK(select_kernels("auto") == tables().back());
  CHECK(select_kernels("ref") == &ref_kernels());
  CHECK(select_kernels("no-such-isa") == nullptr);
  CHECK(select_kernels("") != nullptr);
}
