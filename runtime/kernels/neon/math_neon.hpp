// Vectors of 8 floats as two NEON registers and their operations, under the
// names the AVX2 set gives its own (avx2/math_avx2.hpp): the float kernels
// written once in kernels/simd8/ (exp, sigmoid, tanh in simd8/math.inc) run
// the same operations in the same order on both sets, with the same order of
// the 8 lanes in horizontal sums. So on AArch64 a NEON kernel gives the AVX2
// kernel's floats bit for bit, and a model translates the same on both
// (tests/models). 32-bit ARM: NEON has no division or round-to-nearest
// there (done per lane / with the 1.5·2^23 trick, both exact) and flushes
// subnormals to zero (results differ from AArch64 only below ~1e-38).
#pragma once

#include <arm_neon.h>

#include <cstdint>

namespace softalign::kernels::neon {

struct f8 {
  float32x4_t lo, hi;
};

inline f8 load8(const float* p) { return {vld1q_f32(p), vld1q_f32(p + 4)}; }
// fp16 widened exactly (vcvt: IEEE half → float, subnormals included on AArch64).
inline f8 load8(const uint16_t* p) {
  const uint16x8_t h = vld1q_u16(p);
  return {vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h))), vcvt_f32_f16(vreinterpret_f16_u16(vget_high_u16(h)))};
}
inline void store8(float* p, f8 v) {
  vst1q_f32(p, v.lo);
  vst1q_f32(p + 4, v.hi);
}
inline f8 dup8(float v) { return {vdupq_n_f32(v), vdupq_n_f32(v)}; }
inline f8 zero8() { return dup8(0.0f); }
inline f8 add(f8 a, f8 b) { return {vaddq_f32(a.lo, b.lo), vaddq_f32(a.hi, b.hi)}; }
inline f8 sub(f8 a, f8 b) { return {vsubq_f32(a.lo, b.lo), vsubq_f32(a.hi, b.hi)}; }
inline f8 mul(f8 a, f8 b) { return {vmulq_f32(a.lo, b.lo), vmulq_f32(a.hi, b.hi)}; }
inline f8 max(f8 a, f8 b) { return {vmaxq_f32(a.lo, b.lo), vmaxq_f32(a.hi, b.hi)}; }
inline f8 min(f8 a, f8 b) { return {vminq_f32(a.lo, b.lo), vminq_f32(a.hi, b.hi)}; }
// a * b + c, one rounding (AVX2's _mm256_fmadd_ps(a, b, c)).
inline f8 fmadd(f8 a, f8 b, f8 c) { return {vfmaq_f32(c.lo, a.lo, b.lo), vfmaq_f32(c.hi, a.hi, b.hi)}; }
// c − a * b, one rounding (_mm256_fnmadd_ps(a, b, c)).
inline f8 fnmadd(f8 a, f8 b, f8 c) { return {vfmsq_f32(c.lo, a.lo, b.lo), vfmsq_f32(c.hi, a.hi, b.hi)}; }

inline float32x4_t div4(float32x4_t a, float32x4_t b) {
#if defined(__aarch64__)
  return vdivq_f32(a, b);
#else
  float x[4], y[4];
  vst1q_f32(x, a);
  vst1q_f32(y, b);
  for (int i = 0; i < 4; ++i) x[i] /= y[i];
  return vld1q_f32(x);
#endif
}
inline f8 div(f8 a, f8 b) { return {div4(a.lo, b.lo), div4(a.hi, b.hi)}; }

// Round to nearest, ties to even (|x| < 2^22 on 32-bit ARM).
inline float32x4_t round4(float32x4_t x) {
#if defined(__aarch64__)
  return vrndnq_f32(x);
#else
  const float32x4_t magic = vdupq_n_f32(12582912.0f);  // 1.5 · 2^23
  return vsubq_f32(vaddq_f32(x, magic), magic);
#endif
}

inline f8 round8(f8 x) { return {round4(x.lo), round4(x.hi)}; }

// 2^n for integral n in [-126, 127], built in the exponent field (vcvt
// truncates, exact for an integral n).
inline float32x4_t pow2_4(float32x4_t n) {
  return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23));
}
inline f8 pow2(f8 n) { return {pow2_4(n.lo), pow2_4(n.hi)}; }
inline f8 abs8(f8 x) { return {vabsq_f32(x.lo), vabsq_f32(x.hi)}; }
// mag (≥ 0) with the sign bit of x.
inline float32x4_t with_sign_of4(float32x4_t mag, float32x4_t x) {
  const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u));
  return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(mag), sign));
}
inline f8 with_sign_of(f8 mag, f8 x) { return {with_sign_of4(mag.lo, x.lo), with_sign_of4(mag.hi, x.hi)}; }
// Per lane: a < b ? if_less : otherwise.
inline f8 select_lt(f8 a, f8 b, f8 if_less, f8 otherwise) {
  return {vbslq_f32(vcltq_f32(a.lo, b.lo), if_less.lo, otherwise.lo),
          vbslq_f32(vcltq_f32(a.hi, b.hi), if_less.hi, otherwise.hi)};
}
// Whether any lane of a is greater than b's.
inline bool any_greater(f8 a, f8 b) {
  const uint32x4_t gt = vorrq_u32(vcgtq_f32(a.lo, b.lo), vcgtq_f32(a.hi, b.hi));
#if defined(__aarch64__)
  return vmaxvq_u32(gt) != 0;
#else
  const uint32x2_t m = vorr_u32(vget_low_u32(gt), vget_high_u32(gt));
  return (vget_lane_u32(m, 0) | vget_lane_u32(m, 1)) != 0;
#endif
}

// The AVX2 horizontal sum's order: (l0+l4 + l2+l6) + (l1+l5 + l3+l7).
inline float hsum(f8 v) {
  const float32x4_t s = vaddq_f32(v.lo, v.hi);
  const float32x2_t t = vadd_f32(vget_low_f32(s), vget_high_f32(s));
  return vget_lane_f32(t, 0) + vget_lane_f32(t, 1);
}

inline float hmax(f8 v) {
  const float32x4_t s = vmaxq_f32(v.lo, v.hi);
  const float32x2_t t = vmax_f32(vget_low_f32(s), vget_high_f32(s));
  return vget_lane_f32(vpmax_f32(t, t), 0);
}

inline int32_t hsum_s32(int32x4_t v) {
#if defined(__aarch64__)
  return vaddvq_s32(v);
#else
  const int32x2_t t = vadd_s32(vget_low_s32(v), vget_high_s32(v));
  return vget_lane_s32(vpadd_s32(t, t), 0);
#endif
}

#include "kernels/simd8/math.inc"

}  // namespace softalign::kernels::neon
