// NEON matrix-vector and small matrix-matrix products. A block of R weight
// rows times M input vectors keeps R·M accumulators in registers, so every
// weight row is read once per M inputs.
//
// f32 / f16: columns go 8 at a time into 8-lane accumulators (two q
// registers) with fused multiply-adds, the remainder in scalar code: the AVX2
// set's order of operations exactly (math_neon.hpp), so the same floats.
// f16 weights are widened with vcvt (exact).
//
// int8 without the dot product: smull multiplies 8 signed bytes into 16-bit
// products, smlal adds the next 8 (|w| ≤ 128, |x| ≤ 127: a pair is at most
// 2·128·127 = 32512 < 32767, no overflow), sadalp adds the pairs into 32-bit
// lanes. Exact integer sums, so exactly the reference's floats.
#include <fp16.h>

#include "kernels/neon/i8_block_neon.hpp"
#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"
#include "kernels/row_ptrs.hpp"

namespace softalign::kernels::neon {

namespace {

#if defined(__aarch64__)
constexpr int kInputs = 4;  // 32 q registers: 2 × 4 × 2 accumulators fit
#else
constexpr int kInputs = 2;  // 16 q registers on 32-bit ARM
#endif

inline float widen(float v) { return v; }
inline float widen(uint16_t v) { return fp16_ieee_to_fp32_value(v); }

// out[r*M + i] = W[r]·X[i] for R rows starting at w (row stride cols).
struct FloatBlock {
  using Acc = float;
  template <int R, int M, typename W>
  static void run(const W* const* w, int cols, const float* x, float* out) {
    f8 acc[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) acc[r][i] = zero8();
    int c = 0;
    for (; c + 8 <= cols; c += 8) {
      f8 xv[M];
      for (int i = 0; i < M; ++i) xv[i] = load8(x + static_cast<std::size_t>(i) * cols + c);
      for (int r = 0; r < R; ++r) {
        const f8 wv = load8(w[r] + c);
        for (int i = 0; i < M; ++i) acc[r][i] = fmadd(wv, xv[i], acc[r][i]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i) {
        float s = hsum(acc[r][i]);
        const W* row = w[r];
        const float* xi = x + static_cast<std::size_t>(i) * cols;
        for (int cc = c; cc < cols; ++cc) s += widen(row[cc]) * xi[cc];
        out[r * M + i] = s;
      }
  }
};

// 16 byte products into 4 int32 lanes by smull, smlal, sadalp.
struct Smull {
  static int32x4_t add(int32x4_t acc, int8x16_t w, int8x16_t x) {
    int16x8_t p = vmull_s8(vget_low_s8(w), vget_low_s8(x));
    p = vmlal_s8(p, vget_high_s8(w), vget_high_s8(x));
    return vpadalq_s16(acc, p);
  }
  static int32_t sum(int32x4_t v) { return hsum_s32(v); }
};
using I8Block = I8BlockOf<Smull>;

// Blocks of 2 rows × kInputs inputs, then 4 rows × the inputs left over.
template <typename W>
void matmat_float(const W* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  for_each_block<2, kInputs, 4, FloatBlock>(w, row_ids, rows, cols, x, m, PutFloat{row_ids, bias, y, ldy});
}

}  // namespace

void matmat_f32(const float* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  matmat_float(w, row_ids, rows, cols, x, m, bias, y, ldy);
}

void matmat_f16(const uint16_t* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  matmat_float(w, row_ids, rows, cols, x, m, bias, y, ldy);
}

void matvec_f32(const float* w, int rows, int cols, const float* x, const float* bias, float* y) {
  matmat_float(w, nullptr, rows, cols, x, 1, bias, y, rows);
}

void matvec_f16(const uint16_t* w, int rows, int cols, const float* x, const float* bias, float* y) {
  matmat_float(w, nullptr, rows, cols, x, 1, bias, y, rows);
}

void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy) {
  for_each_block<2, kInputs, 4, I8Block>(w, row_ids, rows, cols, xq, m,
                                         PutI8<>{row_ids, row_scales, x_scales, nullptr, bias, y, ldy});
}

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y) {
  matmat_i8(w, nullptr, row_scales, rows, cols, xq, &x_scale, 1, bias, y, rows);
}

}  // namespace softalign::kernels::neon
