// Every optimised kernel set against the reference kernels, at odd sizes
// (remainders of every vector width), including the int8 extremes (-128
// weights, ±127 activations) where a saturating product would go wrong. Sets
// this CPU cannot run are not listed by available_kernels(), so their cases
// do not run here.
#include <doctest/doctest.h>
#include <fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/ref/ref.hpp"

using namespace softalign::kernels;

namespace {

const int kSizes[] = {1, 3, 7, 17, 31, 33, 64, 255, 257};

std::vector<const KernelTable*> optimised() {
  const KernelTable* sets[16];
  const int n = available_kernels(sets, 16);
  std::vector<const KernelTable*> out;
  for (int i = 0; i < n && i < 16; ++i)
    if (sets[i] != &ref_kernels()) out.push_back(sets[i]);
  return out;
}

std::vector<float> rnd(std::mt19937& g, std::size_t n, float scale = 1.0f) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n + 64);
  for (std::size_t i = 0; i < n; ++i) v[i] = u(g);
  return v;
}

double max_abs_diff(const float* a, const float* b, std::size_t n) {
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  return worst;
}

}  // namespace

// The sets this build compiled (SOFTALIGN_KERNEL_SETS, runtime/CMakeLists.txt,
// joined by commas)
// that this machine runs are tested below; the others are skipped, and said
// so here (every test binary run prints this line).
TEST_CASE("kernel sets: the sets built, each tested or said to be skipped") {
  const KernelTable* sets[16];
  const int n = available_kernels(sets, 16);
  std::string built = SOFTALIGN_BUILT_KERNEL_SETS, tested, skipped;
  built += ',';
  for (std::size_t start = 0, end; (end = built.find(',', start)) != std::string::npos; start = end + 1) {
    const std::string name = built.substr(start, end - start);
    if (name.empty()) continue;
    const bool here = select_kernels(name.c_str()) != nullptr;
    (here ? tested : skipped) += " " + name;
  }
  std::printf("kernel sets tested:%s; skipped (not run by this machine):%s\n", tested.c_str(),
              skipped.empty() ? " none" : skipped.c_str());
  for (int i = 0; i < n && i < 16; ++i) {
    INFO(sets[i]->name);
    CHECK(("," + built).find("," + std::string(sets[i]->name) + ",") != std::string::npos);  // every set listed is one built
  }
#if defined(__EMSCRIPTEN__)
  CHECK(skipped.empty());  // WebAssembly: a set built is a set run (an engine without SIMD would not load the module)
#endif
}

TEST_CASE("kernel sets: every entry filled, the reference's by the reference functions") {
  const KernelTable* sets[16];
  const int n = available_kernels(sets, 16);
  for (int i = 0; i < n && i < 16; ++i) {
    const KernelTable& k = *sets[i];
    INFO(std::string(k.name));
    CHECK((k.matvec_f32 != nullptr));
    CHECK((k.matvec_f16 != nullptr));
    CHECK((k.matvec_i8 != nullptr));
    CHECK((k.matmat_f32 != nullptr));
    CHECK((k.matmat_f16 != nullptr));
    CHECK((k.matmat_i8 != nullptr));
    CHECK((k.quantize_i8 != nullptr));
    CHECK((k.row_f16 != nullptr));
    CHECK((k.row_i8 != nullptr));
    CHECK((k.gru_cell != nullptr));
    CHECK((k.lstm_cell != nullptr));
    CHECK((k.additive_scores != nullptr));
    CHECK((k.dot_scores != nullptr));
    CHECK((k.softmax != nullptr));
    CHECK((k.log_softmax != nullptr));
    CHECK((k.weighted_sum != nullptr));
    CHECK((k.maxout2 != nullptr));
    CHECK((k.topk != nullptr));
  }
  // The entries that share a signature, each where it belongs.
  const KernelTable& ref = ref_kernels();
  CHECK((ref.dot_scores == &softalign::kernels::ref::dot_scores));
  CHECK((ref.weighted_sum == &softalign::kernels::ref::weighted_sum));
  CHECK((ref.matvec_f32 == &softalign::kernels::ref::matvec_f32));
  CHECK((ref.matmat_f32 == &softalign::kernels::ref::matmat_f32));
  CHECK((ref.softmax == &softalign::kernels::ref::softmax));
}

TEST_CASE("kernel sets: products at odd sizes equal the reference") {
  const KernelTable& ref = ref_kernels();
  std::mt19937 g(17);
  for (const KernelTable* k : optimised()) {
    for (int rows : {1, 3, 7, 33}) {
      for (int cols : kSizes) {
        for (int m : {1, 2, 4, 5, 9}) {
          INFO(std::string(k->name), " rows ", rows, " cols ", cols, " m ", m);
          auto w = rnd(g, std::size_t(rows) * cols);
          auto x = rnd(g, std::size_t(m) * cols);
          auto bias = rnd(g, rows);
          const int ldy = rows + 3;
          std::vector<float> a(std::size_t(m) * ldy, 7.0f), b(std::size_t(m) * ldy, 7.0f);
          const double tol = 2e-6 * (cols + 1);
          // f32
          ref.matmat_f32(w.data(), nullptr, rows, cols, x.data(), m, bias.data(), a.data(), ldy);
          k->matmat_f32(w.data(), nullptr, rows, cols, x.data(), m, bias.data(), b.data(), ldy);
          CHECK(max_abs_diff(a.data(), b.data(), a.size()) <= tol);
          k->matvec_f32(w.data(), rows, cols, x.data(), nullptr, b.data());
          ref.matvec_f32(w.data(), rows, cols, x.data(), nullptr, a.data());
          CHECK(max_abs_diff(a.data(), b.data(), rows) <= tol);
          // f16
          std::vector<uint16_t> wh(w.size());
          for (std::size_t i = 0; i < w.size(); ++i) wh[i] = fp16_ieee_from_fp32_value(w[i]);
          ref.matmat_f16(wh.data(), nullptr, rows, cols, x.data(), m, nullptr, a.data(), ldy);
          k->matmat_f16(wh.data(), nullptr, rows, cols, x.data(), m, nullptr, b.data(), ldy);
          CHECK(max_abs_diff(a.data(), b.data(), a.size()) <= tol);
          k->matvec_f16(wh.data(), rows, cols, x.data(), bias.data(), b.data());
          ref.matvec_f16(wh.data(), rows, cols, x.data(), bias.data(), a.data());
          CHECK(max_abs_diff(a.data(), b.data(), rows) <= tol);
          // i8: exact integer sums, so the floats must be identical. Weights
          // span the full byte range, -128 included.
          std::vector<int8_t> wq(w.size() + 64);
          std::uniform_int_distribution<int> byte(-128, 127);
          for (std::size_t i = 0; i < w.size(); ++i) wq[i] = static_cast<int8_t>(byte(g));
          if (!w.empty()) wq[0] = -128;
          std::vector<float> scales(rows);
          for (int r = 0; r < rows; ++r) scales[r] = 0.01f * (r + 1);
          std::vector<int8_t> xq(std::size_t(m) * cols + 64), xq_ref(xq.size());
          std::vector<float> xs(m), xs_ref(m);
          for (int i = 0; i < m; ++i) {
            xs[i] = k->quantize_i8(&x[std::size_t(i) * cols], cols, &xq[std::size_t(i) * cols]);
            xs_ref[i] = ref.quantize_i8(&x[std::size_t(i) * cols], cols, &xq_ref[std::size_t(i) * cols]);
            CHECK(xs[i] == xs_ref[i]);
          }
          CHECK(std::equal(xq.begin(), xq.begin() + std::size_t(m) * cols, xq_ref.begin()));
          // the extreme activations
          for (int i = 0; i < m; ++i) xq[std::size_t(i) * cols] = static_cast<int8_t>(i % 2 ? 127 : -127);
          ref.matmat_i8(wq.data(), nullptr, scales.data(), rows, cols, xq.data(), xs.data(), m, bias.data(), a.data(), ldy);
          k->matmat_i8(wq.data(), nullptr, scales.data(), rows, cols, xq.data(), xs.data(), m, bias.data(), b.data(), ldy);
          CHECK(max_abs_diff(a.data(), b.data(), a.size()) == 0.0);
          ref.matvec_i8(wq.data(), scales.data(), rows, cols, xq.data(), xs[0], nullptr, a.data());
          k->matvec_i8(wq.data(), scales.data(), rows, cols, xq.data(), xs[0], nullptr, b.data());
          CHECK(max_abs_diff(a.data(), b.data(), rows) == 0.0);
        }
      }
    }
  }
}

// Many input vectors at once (a batch's rows, a source's positions): the
// sizes where a set changes method (AVX-512 puts 8 or more inputs in vector
// lanes, in 16-input tiles packed up to 32 KB at a time, for at most 2048
// columns) and around them, plain and gathered, equal the reference exactly.
TEST_CASE("kernel sets: int8 products over many inputs equal the reference") {
  const KernelTable& ref = ref_kernels();
  std::mt19937 g(31);
  std::uniform_int_distribution<int> byte(-128, 127);
  struct Shape { int rows, cols, m; };
  const Shape shapes[] = {{17, 33, 7},    {17, 33, 8},    {33, 257, 16},  {5, 64, 17},   {16, 255, 23},
                          {31, 7, 24},    {40, 1000, 40}, {3, 1, 33},     {18, 2048, 19}, {9, 2049, 20},
                          {21, 4097, 16}, {47, 513, 130}};
  for (const KernelTable* k : optimised()) {
    for (const Shape& sh : shapes) {
      for (bool gathered : {false, true}) {
        INFO(std::string(k->name), " rows ", sh.rows, " cols ", sh.cols, " m ", sh.m, " gathered ", gathered);
        const std::size_t wn = std::size_t(sh.rows) * sh.cols;
        std::vector<int8_t> wq(wn + 64), xq(std::size_t(sh.m) * sh.cols + 64);
        for (std::size_t i = 0; i < wn; ++i) wq[i] = static_cast<int8_t>(byte(g));
        for (std::size_t i = 0; i < std::size_t(sh.m) * sh.cols; ++i) xq[i] = static_cast<int8_t>(byte(g) / 2 * 2 % 128);
        wq[0] = -128;
        xq[0] = 127;
        xq[std::size_t(sh.m - 1) * sh.cols] = -127;
        std::vector<float> scales(sh.rows), xs(sh.m);
        for (int r = 0; r < sh.rows; ++r) scales[r] = 0.001f * (r + 1);
        for (int i = 0; i < sh.m; ++i) xs[i] = 0.01f + 0.003f * i;
        auto bias = rnd(g, sh.rows);
        std::vector<int32_t> ids;
        if (gathered) {
          std::uniform_int_distribution<int> pick(0, sh.rows - 1);
          ids.resize(sh.rows + 3);
          for (int32_t& id : ids) id = pick(g);
          ids[0] = sh.rows - 1;
        }
        const int count = gathered ? static_cast<int>(ids.size()) : sh.rows;
        const int32_t* row_ids = gathered ? ids.data() : nullptr;
        const int ldy = count + 5;
        std::vector<float> a(std::size_t(sh.m) * ldy, 7.0f), b(a);
        ref.matmat_i8(wq.data(), row_ids, scales.data(), count, sh.cols, xq.data(), xs.data(), sh.m, bias.data(), a.data(), ldy);
        k->matmat_i8(wq.data(), row_ids, scales.data(), count, sh.cols, xq.data(), xs.data(), sh.m, bias.data(), b.data(), ldy);
        CHECK(max_abs_diff(a.data(), b.data(), a.size()) == 0.0);  // the padding between rows untouched too
        k->matmat_i8(wq.data(), row_ids, scales.data(), count, sh.cols, xq.data(), xs.data(), sh.m, nullptr, b.data(), ldy);
        ref.matmat_i8(wq.data(), row_ids, scales.data(), count, sh.cols, xq.data(), xs.data(), sh.m, nullptr, a.data(), ldy);
        CHECK(max_abs_diff(a.data(), b.data(), a.size()) == 0.0);
      }
    }
  }
}

// A gathered product (rows picked by id, as the vocabulary shortlist runs the
// output layer) gives row r exactly what the plain product gives row ids[r]:
// every set, the reference included, at odd sizes, ids unordered and repeated.
TEST_CASE("kernel sets: gathered products equal the plain product's rows") {
  const KernelTable* sets[8];
  const int nsets = available_kernels(sets, 8);
  std::mt19937 g(23);
  for (int s = 0; s < nsets; ++s) {
    const KernelTable* k = sets[s];
    for (int rows : {5, 37}) {
      for (int cols : {1, 7, 33, 64, 257}) {
        for (int count : {1, 3, 9}) {
          for (int m : {1, 4, 6}) {
            INFO(std::string(k->name), " rows ", rows, " cols ", cols, " count ", count, " m ", m);
            std::vector<int32_t> ids(count);
            std::uniform_int_distribution<int> pick(0, rows - 1);
            for (int& id : ids) id = pick(g);
            ids[0] = rows - 1;
            auto w = rnd(g, std::size_t(rows) * cols), x = rnd(g, std::size_t(m) * cols), bias = rnd(g, rows);
            std::vector<float> full(std::size_t(m) * rows), got(std::size_t(m) * count);
            auto same_rows = [&] {
              for (int i = 0; i < m; ++i)
                for (int r = 0; r < count; ++r)
                  CHECK(got[std::size_t(i) * count + r] == full[std::size_t(i) * rows + ids[r]]);
            };
            k->matmat_f32(w.data(), nullptr, rows, cols, x.data(), m, bias.data(), full.data(), rows);
            k->matmat_f32(w.data(), ids.data(), count, cols, x.data(), m, bias.data(), got.data(), count);
            same_rows();
            std::vector<uint16_t> wh(w.size());
            for (std::size_t i = 0; i < w.size(); ++i) wh[i] = fp16_ieee_from_fp32_value(w[i]);
            k->matmat_f16(wh.data(), nullptr, rows, cols, x.data(), m, nullptr, full.data(), rows);
            k->matmat_f16(wh.data(), ids.data(), count, cols, x.data(), m, nullptr, got.data(), count);
            same_rows();
            std::vector<int8_t> wq(w.size() + 64), xq(std::size_t(m) * cols + 64);
            std::uniform_int_distribution<int> byte(-128, 127);
            for (std::size_t i = 0; i < w.size(); ++i) wq[i] = static_cast<int8_t>(byte(g));
            std::vector<float> xs(m), scales(rows);
            for (int r = 0; r < rows; ++r) scales[r] = 0.01f * (r + 1);
            for (int i = 0; i < m; ++i) xs[i] = k->quantize_i8(&x[std::size_t(i) * cols], cols, &xq[std::size_t(i) * cols]);
            k->matmat_i8(wq.data(), nullptr, scales.data(), rows, cols, xq.data(), xs.data(), m, bias.data(),
                         full.data(), rows);
            k->matmat_i8(wq.data(), ids.data(), scales.data(), count, cols, xq.data(), xs.data(), m, bias.data(),
                         got.data(), count);
            same_rows();
          }
        }
      }
    }
  }
}

TEST_CASE("kernel sets: all 127s and -128s in every lane (no saturation)") {
  const KernelTable& ref = ref_kernels();
  for (const KernelTable* k : optimised())
    for (int cols : {32, 64, 257}) {
      INFO(std::string(k->name), " cols ", cols);
      std::vector<int8_t> w(cols * 2 + 64, -128), x(cols + 64, -127);
      for (int c = 0; c < cols; ++c) w[cols + c] = 127;  // second row all 127
      const float scales[2] = {1.0f, 1.0f};
      float a[2], b[2];
      ref.matvec_i8(w.data(), scales, 2, cols, x.data(), 1.0f, nullptr, a);
      k->matvec_i8(w.data(), scales, 2, cols, x.data(), 1.0f, nullptr, b);
      CHECK(a[0] == float(128 * 127 * cols));
      CHECK(b[0] == a[0]);
      CHECK(b[1] == a[1]);
    }
}

TEST_CASE("kernel sets: element-wise kernels at odd sizes") {
  const KernelTable& ref = ref_kernels();
  std::mt19937 g(23);
  for (const KernelTable* k : optimised())
    for (int n : kSizes) {
      INFO(std::string(k->name), " n ", n);
      // embedding rows
      auto x = rnd(g, n, 4.0f);
      std::vector<uint16_t> h(n);
      std::vector<int8_t> q(n);
      for (int i = 0; i < n; ++i) {
        h[i] = fp16_ieee_from_fp32_value(x[i]);
        q[i] = static_cast<int8_t>(i * 37 % 255 - 127);
      }
      std::vector<float> a(n + 64), b(n + 64);
      ref.row_f16(h.data(), n, a.data());
      k->row_f16(h.data(), n, b.data());
      CHECK(max_abs_diff(a.data(), b.data(), n) == 0.0);
      ref.row_i8(q.data(), 0.3f, n, a.data());
      k->row_i8(q.data(), 0.3f, n, b.data());
      CHECK(max_abs_diff(a.data(), b.data(), n) == 0.0);
      // GRU cell, with large gate inputs (saturated sigmoid and tanh)
      auto gi = rnd(g, 3 * n, 12.0f), gh = rnd(g, 3 * n, 12.0f), st = rnd(g, n);
      ref.gru_cell(gi.data(), gh.data(), st.data(), n, a.data());
      k->gru_cell(gi.data(), gh.data(), st.data(), n, b.data());
      CHECK(max_abs_diff(a.data(), b.data(), n) <= 1e-6);
      // LSTM cell, the same way: its output and its cell state
      auto li = rnd(g, 4 * n, 12.0f), lh = rnd(g, 4 * n, 12.0f), cell = rnd(g, n, 3.0f);
      std::vector<float> ca(n + 64), cb(n + 64);
      ref.lstm_cell(li.data(), lh.data(), cell.data(), n, a.data(), ca.data());
      k->lstm_cell(li.data(), lh.data(), cell.data(), n, b.data(), cb.data());
      CHECK(max_abs_diff(a.data(), b.data(), n) <= 1e-6);
      CHECK(max_abs_diff(ca.data(), cb.data(), n) <= 1e-6);
      // softmax / log-softmax over a wide range
      auto s = rnd(g, n, 40.0f);
      std::vector<float> sa(s.begin(), s.begin() + n), sb(sa);
      ref.softmax(sa.data(), n);
      k->softmax(sb.data(), n);
      CHECK(max_abs_diff(sa.data(), sb.data(), n) <= 1e-6);
      ref.log_softmax(s.data(), n, a.data());
      k->log_softmax(s.data(), n, b.data());
      CHECK(max_abs_diff(a.data(), b.data(), n) <= 1e-5);
      // maxout
      auto u = rnd(g, 2 * n);
      ref.maxout2(u.data(), n, a.data());
      k->maxout2(u.data(), n, b.data());
      CHECK(max_abs_diff(a.data(), b.data(), n) == 0.0);
      // attention: additive (fused tanh · v), dot, weighted sum
      for (int dim : {1, 7, 8, 33, 256}) {
        auto qv = rnd(g, dim, 3.0f), v = rnd(g, dim), keys = rnd(g, std::size_t(n) * dim, 3.0f);
        ref.additive_scores(qv.data(), keys.data(), v.data(), n, dim, a.data());
        k->additive_scores(qv.data(), keys.data(), v.data(), n, dim, b.data());
        CHECK(max_abs_diff(a.data(), b.data(), n) <= 1e-6 * dim);
        ref.dot_scores(qv.data(), keys.data(), n, dim, a.data());
        k->dot_scores(qv.data(), keys.data(), n, dim, b.data());
        CHECK(max_abs_diff(a.data(), b.data(), n) <= 1e-5 * dim);
        std::vector<float> ca(dim), cb(dim);
        ref.weighted_sum(v.data(), keys.data(), std::min(n, dim), dim, ca.data());
        k->weighted_sum(v.data(), keys.data(), std::min(n, dim), dim, cb.data());
        CHECK(max_abs_diff(ca.data(), cb.data(), dim) <= 1e-5 * n);
      }
    }
}

TEST_CASE("kernel sets: top-k equals the reference, ties included") {
  const KernelTable& ref = ref_kernels();
  std::mt19937 g(31);
  for (const KernelTable* k : optimised())
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(33), std::size_t(1000), std::size_t(32771)})
      for (int kk : {1, 4, 5, 12}) {
        INFO(std::string(k->name), " n ", n, " k ", kk);
        std::uniform_int_distribution<int> coarse(-50, 50);  // many ties
        std::vector<float> v(n);
        for (auto& e : v) e = coarse(g) * 0.5f;
        std::vector<int32_t> ia(kk), ib(kk);
        std::vector<float> va(kk), vb(kk);
        const int ca = ref.topk(v.data(), n, kk, ia.data(), va.data());
        const int cb = k->topk(v.data(), n, kk, ib.data(), vb.data());
        REQUIRE(ca == cb);
        for (int i = 0; i < ca; ++i) {
          CHECK(ia[i] == ib[i]);
          CHECK(va[i] == vb[i]);
        }
      }
}

// The NEON kernels are the AVX2 ones operation for operation (kernels/simd8/):
// on fixed inputs both give the same floats, bit for bit. The digests below
// are the avx2 set's (x86-64); every set of that family must reproduce them
// where it runs (avx2 natively, neon / neon_dot on AArch64 under qemu). Sizes
// with remainders for the products; multiples of 8 where a remainder would
// call libm (std::exp, std::tanh), which need not round alike across
// architectures. SOFTALIGN_PRINT_DIGESTS=1 prints them.
namespace {

uint64_t fnv1a(const void* p, std::size_t n, uint64_t h = 1469598103934665603ull) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

struct Digests {
  uint64_t products, f16, i8, gru, additive, dot, softmax, log_softmax, weighted;
};

Digests digests(const KernelTable& k) {
  std::mt19937 g(99);
  const int rows = 33, cols = 257, m = 5, n = 256, dim = 256;
  auto w = rnd(g, std::size_t(rows) * cols), x = rnd(g, std::size_t(m) * cols), bias = rnd(g, rows);
  std::vector<float> y(std::size_t(m) * rows);
  Digests d{};
  k.matmat_f32(w.data(), nullptr, rows, cols, x.data(), m, bias.data(), y.data(), rows);
  d.products = fnv1a(y.data(), y.size() * 4);
  k.matvec_f32(w.data(), rows, cols, x.data(), bias.data(), y.data());
  d.products = fnv1a(y.data(), rows * 4, d.products);
  std::vector<uint16_t> wh(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) wh[i] = fp16_ieee_from_fp32_value(w[i]);
  k.matmat_f16(wh.data(), nullptr, rows, cols, x.data(), m, bias.data(), y.data(), rows);
  d.f16 = fnv1a(y.data(), y.size() * 4);
  std::vector<int8_t> wq(w.size() + 64), xq(std::size_t(m) * cols + 64);
  for (std::size_t i = 0; i < w.size(); ++i) wq[i] = static_cast<int8_t>(std::lround(w[i] * 127.0f));
  std::vector<float> xs(m), scales(rows, 0.013f);
  for (int i = 0; i < m; ++i) xs[i] = k.quantize_i8(&x[std::size_t(i) * cols], cols, &xq[std::size_t(i) * cols]);
  k.matmat_i8(wq.data(), nullptr, scales.data(), rows, cols, xq.data(), xs.data(), m, bias.data(), y.data(), rows);
  d.i8 = fnv1a(y.data(), y.size() * 4);
  auto gi = rnd(g, 3 * n, 6.0f), gh = rnd(g, 3 * n, 6.0f), h = rnd(g, n);
  std::vector<float> out(std::max(n, dim) + 64);
  k.gru_cell(gi.data(), gh.data(), h.data(), n, out.data());
  d.gru = fnv1a(out.data(), n * 4);
  const int count = 13;
  auto q = rnd(g, dim, 2.0f), v = rnd(g, dim), keys = rnd(g, std::size_t(count) * dim, 2.0f);
  k.additive_scores(q.data(), keys.data(), v.data(), count, dim, out.data());
  d.additive = fnv1a(out.data(), count * 4);
  k.dot_scores(q.data(), keys.data(), count, 255, out.data());  // remainder: no libm
  d.dot = fnv1a(out.data(), count * 4);
  auto s = rnd(g, n, 20.0f);
  std::vector<float> sm(s.begin(), s.begin() + n);
  k.softmax(sm.data(), n);
  d.softmax = fnv1a(sm.data(), n * 4);
  k.log_softmax(s.data(), n, out.data());
  d.log_softmax = fnv1a(out.data(), n * 4);
  k.weighted_sum(sm.data(), keys.data(), count, 253, out.data());  // remainder: no libm
  d.weighted = fnv1a(out.data(), 253 * 4);
  return d;
}

void check_same(const Digests& got, const Digests& want) {
  CHECK(got.products == want.products);
  CHECK(got.f16 == want.f16);
  CHECK(got.i8 == want.i8);
  CHECK(got.gru == want.gru);
  CHECK(got.additive == want.additive);
  CHECK(got.dot == want.dot);
  CHECK(got.softmax == want.softmax);
  CHECK(got.log_softmax == want.log_softmax);
  CHECK(got.weighted == want.weighted);
}

}  // namespace

TEST_CASE("kernel sets: neon gives the avx2 set's floats bit for bit") {
  // The avx2 set's digests (x86-64, GCC 12, glibc 2.36).
  const Digests want{0xfa492f548ab5564full, 0x3dfc9a8d885a10baull, 0xde869f28104d1140ull,
                     0xd72598d94760fe7eull, 0x9bd890ebee06b6b9ull, 0xc4468d5435993f32ull,
                     0x244d92cacc9ebe08ull, 0x1661f68e31d1e8b9ull, 0x68d8c1a14da34ea2ull};
  const char* print = std::getenv("SOFTALIGN_PRINT_DIGESTS");
  for (const KernelTable* k : optimised()) {
    const std::string name = k->name;
    if (name != "avx2" && name != "neon" && name != "neon_dot") continue;
    const Digests d = digests(*k);
    if (print != nullptr && print[0] == '1')
      std::printf("%s: {0x%llxull, 0x%llxull, 0x%llxull, 0x%llxull, 0x%llxull, 0x%llxull, 0x%llxull, 0x%llxull, 0x%llxull}\n",
                  name.c_str(), (unsigned long long)d.products, (unsigned long long)d.f16, (unsigned long long)d.i8,
                  (unsigned long long)d.gru, (unsigned long long)d.additive, (unsigned long long)d.dot,
                  (unsigned long long)d.softmax, (unsigned long long)d.log_softmax, (unsigned long long)d.weighted);
    INFO(name);
    check_same(d, want);
  }
}

#if defined(__EMSCRIPTEN__)
// The WebAssembly build (platforms/web): wasm_simd (the neon set's files on
// SIMD128 through SIMDe; SOFTALIGN_WASM_SIMD) and wasm_simd128 (written for
// WASM; SOFTALIGN_WASM_SIMD128), "auto" picking wasm_simd128 where it is
// built. WASM has no fused multiply-add (both round a multiply-add twice),
// so they are held to the reference's tolerances above, not to the avx2
// digests.
namespace {
bool built(const char* name) {
  return (std::string(",") + SOFTALIGN_BUILT_KERNEL_SETS + ",").find(std::string(",") + name + ",") != std::string::npos;
}
}  // namespace

TEST_CASE("kernel sets: the WebAssembly build picks wasm_simd128, else wasm_simd") {
  const char* best = built("wasm_simd128") ? "wasm_simd128" : built("wasm_simd") ? "wasm_simd" : "ref";
  const KernelTable* k = select_kernels(best);
  REQUIRE(k != nullptr);
  CHECK(std::string(k->name) == best);
  CHECK(select_kernels("auto") == k);
  CHECK(select_kernels("neon") == nullptr);
}

// wasm_simd128's float kernels run wasm_simd's operations in the same order
// (simd8/ over math_wasm128.hpp, a multiply-add rounded twice as SIMDe's
// vfmaq_f32 is): on fixed inputs the two sets give the same floats, bit for
// bit; the int8 products are exact in both.
TEST_CASE("kernel sets: wasm_simd128 gives the wasm_simd set's floats bit for bit") {
  if (!built("wasm_simd") || !built("wasm_simd128")) {
    std::printf("wasm_simd128 against wasm_simd: skipped (not both built)\n");
    return;
  }
  check_same(digests(*select_kernels("wasm_simd128")), digests(*select_kernels("wasm_simd")));
}
#endif
