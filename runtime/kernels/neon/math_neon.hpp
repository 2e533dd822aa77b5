// Vectors of 8 floats as two NEON registers, and the vector exp, sigmoid and
// tanh of the NEON kernels. They are the AVX2 set's (math_avx2.hpp) operation
// for operation: the same Cephes polynomials, the same fused multiply-adds,
// the same order of the 8 lanes in horizontal sums, the same split between
// vector blocks of 8 and the scalar remainder. So on AArch64 a NEON kernel
// gives the AVX2 kernel's floats bit for bit, and a model translates the same
// on both (tests/models). 32-bit ARM: NEON has no division or round-to-nearest
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

// exp(x), inputs clamped to [-87.3, 88.3] (math_avx2.hpp's exp_ps).
inline float32x4_t exp4(float32x4_t x) {
  x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.3f)), vdupq_n_f32(88.3f));
  const float32x4_t fx = round4(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
  x = vfmsq_f32(x, fx, vdupq_n_f32(0.693359375f));
  x = vfmsq_f32(x, fx, vdupq_n_f32(-2.12194440e-4f));
  float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
  p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, x);
  p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, x);
  p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, x);
  p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, x);
  p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, x);
  p = vfmaq_f32(vaddq_f32(x, vdupq_n_f32(1.0f)), p, vmulq_f32(x, x));
  const int32x4_t n = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(fx), vdupq_n_s32(127)), 23);
  return vmulq_f32(p, vreinterpretq_f32_s32(n));
}
inline f8 exp8(f8 x) { return {exp4(x.lo), exp4(x.hi)}; }

inline float32x4_t sigmoid4(float32x4_t x) {
  const float32x4_t one = vdupq_n_f32(1.0f);
  return div4(one, vaddq_f32(one, exp4(vsubq_f32(vdupq_n_f32(0.0f), x))));
}
inline f8 sigmoid8(f8 x) { return {sigmoid4(x.lo), sigmoid4(x.hi)}; }

// tanh: odd polynomial below |x| = 0.625, 1 − 2 / (exp(2|x|) + 1) above.
inline float32x4_t tanh4(float32x4_t x) {
  const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u));
  const float32x4_t ax = vabsq_f32(x);
  const float32x4_t z = vmulq_f32(x, x);
  float32x4_t p = vdupq_n_f32(-5.70498872745e-3f);
  p = vfmaq_f32(vdupq_n_f32(2.06390887954e-2f), p, z);
  p = vfmaq_f32(vdupq_n_f32(-5.37397155531e-2f), p, z);
  p = vfmaq_f32(vdupq_n_f32(1.33314422036e-1f), p, z);
  p = vfmaq_f32(vdupq_n_f32(-3.33332819422e-1f), p, z);
  const float32x4_t small = vfmaq_f32(x, vmulq_f32(p, z), x);
  const float32x4_t one = vdupq_n_f32(1.0f);
  const float32x4_t e = exp4(vaddq_f32(ax, ax));
  const float32x4_t mag = vsubq_f32(one, div4(vdupq_n_f32(2.0f), vaddq_f32(e, one)));
  const float32x4_t big = vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(mag), sign));
  return vbslq_f32(vcltq_f32(ax, vdupq_n_f32(0.625f)), small, big);
}
inline f8 tanh8(f8 x) { return {tanh4(x.lo), tanh4(x.hi)}; }

}  // namespace softalign::kernels::neon
