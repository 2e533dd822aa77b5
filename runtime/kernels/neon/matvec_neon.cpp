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
template <int R, int M, typename W>
inline void block_float(const W* const* w, int cols, const float* x, float* out) {
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

// acc += Σ of 16 byte products, as 4 int32 lanes (smull, smlal, sadalp).
inline int32x4_t dot16(int32x4_t acc, int8x16_t w, int8x16_t x) {
  int16x8_t p = vmull_s8(vget_low_s8(w), vget_low_s8(x));
  p = vmlal_s8(p, vget_high_s8(w), vget_high_s8(x));
  return vpadalq_s16(acc, p);
}

template <int R, int M>
inline void block_i8(const int8_t* const* w, int cols, const int8_t* x, int32_t* out) {
  int32x4_t acc[R][M];
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < M; ++i) acc[r][i] = vdupq_n_s32(0);
  int c = 0;
  for (; c + 16 <= cols; c += 16) {
    int8x16_t xv[M];
    for (int i = 0; i < M; ++i) xv[i] = vld1q_s8(x + static_cast<std::size_t>(i) * cols + c);
    for (int r = 0; r < R; ++r) {
      const int8x16_t wv = vld1q_s8(w[r] + c);
      for (int i = 0; i < M; ++i) acc[r][i] = dot16(acc[r][i], wv, xv[i]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < M; ++i) {
      const int8_t* row = w[r];
      const int8_t* xi = x + static_cast<std::size_t>(i) * cols;
      int32_t s = hsum_s32(acc[r][i]);
      for (int cc = c; cc < cols; ++cc) s += static_cast<int32_t>(row[cc]) * xi[cc];
      out[r * M + i] = s;
    }
}

// Y[i*ldy + r] for all rows and m inputs: blocks of R rows × kInputs inputs,
// then the remaining inputs one at a time (4 rows per block).
template <int R, typename W>
void matmat_float(const W* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  constexpr int M = kInputs;
  float out[4 * M];
  int i = 0;
  for (; i + M <= m; i += M) {
    const float* xi = x + static_cast<std::size_t>(i) * cols;
    int r = 0;
    for (; r + R <= rows; r += R) {
      block_float<R, M>(rows_at<R>(w, row_ids, cols, r).p, cols, xi, out);
      for (int a = 0; a < R; ++a)
        for (int b = 0; b < M; ++b)
          y[static_cast<std::size_t>(i + b) * ldy + r + a] = out[a * M + b] + (bias ? bias[row_id(row_ids, r + a)] : 0.0f);
    }
    for (; r < rows; ++r) {
      block_float<1, M>(rows_at<1>(w, row_ids, cols, r).p, cols, xi, out);
      for (int b = 0; b < M; ++b) y[static_cast<std::size_t>(i + b) * ldy + r] = out[b] + (bias ? bias[row_id(row_ids, r)] : 0.0f);
    }
  }
  for (; i < m; ++i) {
    const float* xi = x + static_cast<std::size_t>(i) * cols;
    float* yi = y + static_cast<std::size_t>(i) * ldy;
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
      block_float<4, 1>(rows_at<4>(w, row_ids, cols, r).p, cols, xi, out);
      for (int a = 0; a < 4; ++a) yi[r + a] = out[a] + (bias ? bias[row_id(row_ids, r + a)] : 0.0f);
    }
    for (; r < rows; ++r) {
      block_float<1, 1>(rows_at<1>(w, row_ids, cols, r).p, cols, xi, out);
      yi[r] = out[0] + (bias ? bias[row_id(row_ids, r)] : 0.0f);
    }
  }
}

}  // namespace

void matmat_f32(const float* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  matmat_float<2>(w, row_ids, rows, cols, x, m, bias, y, ldy);
}

void matmat_f16(const uint16_t* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy) {
  matmat_float<2>(w, row_ids, rows, cols, x, m, bias, y, ldy);
}

void matvec_f32(const float* w, int rows, int cols, const float* x, const float* bias, float* y) {
  matmat_float<2>(w, nullptr, rows, cols, x, 1, bias, y, rows);
}

void matvec_f16(const uint16_t* w, int rows, int cols, const float* x, const float* bias, float* y) {
  matmat_float<2>(w, nullptr, rows, cols, x, 1, bias, y, rows);
}

void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy) {
  constexpr int M = kInputs;
  int32_t out[4 * M];
  auto put = [&](int i, int r, int32_t acc) {
    const float v = static_cast<float>(acc) * (row_scales[row_id(row_ids, r)] * x_scales[i]);
    y[static_cast<std::size_t>(i) * ldy + r] = bias ? v + bias[row_id(row_ids, r)] : v;
  };
  int i = 0;
  for (; i + M <= m; i += M) {
    const int8_t* xi = xq + static_cast<std::size_t>(i) * cols;
    int r = 0;
    for (; r + 2 <= rows; r += 2) {
      block_i8<2, M>(rows_at<2>(w, row_ids, cols, r).p, cols, xi, out);
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < M; ++b) put(i + b, r + a, out[a * M + b]);
    }
    for (; r < rows; ++r) {
      block_i8<1, M>(rows_at<1>(w, row_ids, cols, r).p, cols, xi, out);
      for (int b = 0; b < M; ++b) put(i + b, r, out[b]);
    }
  }
  for (; i < m; ++i) {
    const int8_t* xi = xq + static_cast<std::size_t>(i) * cols;
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
      block_i8<4, 1>(rows_at<4>(w, row_ids, cols, r).p, cols, xi, out);
      for (int a = 0; a < 4; ++a) put(i, r + a, out[a]);
    }
    for (; r < rows; ++r) {
      block_i8<1, 1>(rows_at<1>(w, row_ids, cols, r).p, cols, xi, out);
      put(i, r, out[0]);
    }
  }
}

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y) {
  matmat_i8(w, nullptr, row_scales, rows, cols, xq, &x_scale, 1, bias, y, rows);
}

}  // namespace softalign::kernels::neon
