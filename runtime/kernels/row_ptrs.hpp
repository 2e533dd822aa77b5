// The weight rows a block of a product reads: W's rows r, r+1, ... or, for a
// gathered product (a vocabulary shortlist), rows ids[r], ids[r+1], ...; and
// the walk of the row-wise kernels over blocks of rows × inputs.
//
// Internal linkage on purpose: every kernel set includes this into files
// compiled with its own ISA flags, and a shared (linkonce) copy could be the
// one built with AVX-512 or sdot and then run on a CPU without them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels {
namespace {

// Row r of the product is row row_id(ids, r) of W.
inline int row_id(const int32_t* ids, int r) { return ids ? ids[r] : r; }

template <int R, typename W>
struct RowPtrs {
  const W* p[R];
};

// Pointers to the R rows of the product starting at row r.
template <int R, typename W>
inline RowPtrs<R, W> rows_at(const W* w, const int32_t* ids, int cols, int r) {
  RowPtrs<R, W> out;
  for (int a = 0; a < R; ++a) out.p[a] = w + static_cast<std::size_t>(row_id(ids, r + a)) * cols;
  return out;
}

// The row-wise products' walk (every ISA's matmat_*): blocks of R rows × M
// inputs (the rows left over one at a time), then each input left over alone
// in blocks of R1 rows (then one row at a time). Block::run<Rb, Mb>(rows, cols,
// x, out) sets out[a * Mb + b] = row a · input b, with Block::Acc sums (float,
// int32); put(i, r, sum) stores output r of input i.
template <int R, int M, int R1, class Block, typename W, typename X, class Put>
inline void for_each_block(const W* w, const int32_t* ids, int rows, int cols, const X* x, int m, Put put) {
  typename Block::Acc out[R * M > R1 ? R * M : R1];
  int i = 0;
  for (; i + M <= m; i += M) {
    const X* xi = x + static_cast<std::size_t>(i) * cols;
    int r = 0;
    for (; r + R <= rows; r += R) {
      Block::template run<R, M>(rows_at<R>(w, ids, cols, r).p, cols, xi, out);
      for (int a = 0; a < R; ++a)
        for (int b = 0; b < M; ++b) put(i + b, r + a, out[a * M + b]);
    }
    for (; r < rows; ++r) {
      Block::template run<1, M>(rows_at<1>(w, ids, cols, r).p, cols, xi, out);
      for (int b = 0; b < M; ++b) put(i + b, r, out[b]);
    }
  }
  for (; i < m; ++i) {
    const X* xi = x + static_cast<std::size_t>(i) * cols;
    int r = 0;
    for (; r + R1 <= rows; r += R1) {
      Block::template run<R1, 1>(rows_at<R1>(w, ids, cols, r).p, cols, xi, out);
      for (int a = 0; a < R1; ++a) put(i, r + a, out[a]);
    }
    for (; r < rows; ++r) {
      Block::template run<1, 1>(rows_at<1>(w, ids, cols, r).p, cols, xi, out);
      put(i, r, out[0]);
    }
  }
}

// put for float products: y[i * ldy + r] = sum (+ bias of row r).
struct PutFloat {
  const int32_t* ids;
  const float* bias;
  float* y;
  int ldy;
  void operator()(int i, int r, float sum) const {
    y[static_cast<std::size_t>(i) * ldy + r] = sum + (bias ? bias[row_id(ids, r)] : 0.0f);
  }
};

// put for int8 products: the int32 sum (less offset[i] where the kernel
// offsets its inputs: Offset) times row r's and input i's scales (+ bias of
// row r).
template <bool Offset = false>
struct PutI8 {
  const int32_t* ids;
  const float* row_scales;
  const float* x_scales;
  const int32_t* offset;  // Offset only
  const float* bias;
  float* y;
  int ldy;
  void operator()(int i, int r, int32_t sum) const {
    if constexpr (Offset) sum -= offset[i];
    const float v = static_cast<float>(sum) * (row_scales[row_id(ids, r)] * x_scales[i]);
    y[static_cast<std::size_t>(i) * ldy + r] = bias ? v + bias[row_id(ids, r)] : v;
  }
};

}  // namespace
}  // namespace softalign::kernels
