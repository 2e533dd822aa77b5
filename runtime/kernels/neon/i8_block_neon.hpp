// The NEON int8 block of the row-wise products, shared by both int8 paths:
// smull/sadalp (matvec_neon.cpp) and sdot (matvec_i8_dot.cpp, compiled for
// armv8.2-a+dotprod). Internal linkage, like row_ptrs.hpp: each file's copy is
// compiled with that file's own flags.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

namespace softalign::kernels::neon {
namespace {

// out[r*M + i] = Σ_c w[r,c] x_i[c] for R rows and M inputs: 16 columns per
// step into 4 int32 lanes by Dot::add(acc, w, x), the lanes summed by
// Dot::sum, the remainder in scalar code.
template <class Dot>
struct I8BlockOf {
  using Acc = int32_t;
  template <int R, int M>
  static void run(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
    int32x4_t acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = vdupq_n_s32(0);
    int c = 0;
    for (; c + 16 <= cols; c += 16) {
      int8x16_t xv[M];
      for (int i = 0; i < M; ++i) xv[i] = vld1q_s8(x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const int8x16_t wv = vld1q_s8(w[r] + c);
        for (int i = 0; i < M; ++i) acc[r][i] = Dot::add(acc[r][i], wv, xv[i]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) {
        const int8_t* row = w[r];
        const int8_t* xi = x + static_cast<std::size_t>(i) * cols;
        int32_t s = Dot::sum(acc[r][i]);
        for (int cc = c; cc < cols; ++cc) s += static_cast<int32_t>(row[cc]) * xi[cc];
        out[r * M + i] = s;
      }
  }
};

}  // namespace
}  // namespace softalign::kernels::neon
