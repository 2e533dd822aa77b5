// The weight rows a block of a product reads: W's rows r, r+1, ... or, for a
// gathered product (a vocabulary shortlist), rows ids[r], ids[r+1], ...
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

}  // namespace
}  // namespace softalign::kernels
