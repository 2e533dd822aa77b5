// Vectors of 8 floats as two WASM SIMD128 registers, under the names the
// other sets give theirs (avx2/math_avx2.hpp, neon/math_neon.hpp), so the
// float kernels written once in kernels/simd8/ compile for WebAssembly.
// WASM has no fused multiply-add: fmadd rounds twice (as SIMDe's vfmaq_f32
// does for the wasm_simd set), so the floats are the wasm_simd set's, close
// to the avx2 set's but not equal.
#pragma once

#include <wasm_simd128.h>

#include <cstdint>

namespace softalign::kernels::wasm_simd128 {

struct f8 {
  v128_t lo, hi;
};

// IEEE half → float for 4 halves, exact: fp16_ieee_to_fp32_value (FP16
// library) lane by lane. Normal halves are rebased by an exponent offset and
// a multiply by 2^-112 (which also carries Inf and NaN over); subnormal ones
// come from a float with the half's mantissa in its low bits minus 0.5.
inline v128_t half4_to_float(const uint16_t* p) {
  const v128_t h = wasm_u32x4_load16x4(p);
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
  const v128_t two_w = wasm_i32x4_shl(h, 17);  // the half without its sign, at the top
  const v128_t normal =
      wasm_f32x4_mul(wasm_i32x4_add(wasm_u32x4_shr(two_w, 4), wasm_i32x4_splat(0xE0 << 23)), wasm_f32x4_splat(0x1.0p-112f));
  const v128_t subnormal =
      wasm_f32x4_sub(wasm_v128_or(wasm_u32x4_shr(two_w, 17), wasm_i32x4_splat(126 << 23)), wasm_f32x4_splat(0.5f));
  const v128_t is_subnormal = wasm_u32x4_lt(two_w, wasm_i32x4_splat(1 << 27));
  return wasm_v128_or(sign, wasm_v128_bitselect(subnormal, normal, is_subnormal));
}

inline f8 load8(const float* p) { return {wasm_v128_load(p), wasm_v128_load(p + 4)}; }
inline f8 load8(const uint16_t* p) { return {half4_to_float(p), half4_to_float(p + 4)}; }
inline void store8(float* p, f8 v) {
  wasm_v128_store(p, v.lo);
  wasm_v128_store(p + 4, v.hi);
}
inline f8 dup8(float v) { return {wasm_f32x4_splat(v), wasm_f32x4_splat(v)}; }
inline f8 zero8() { return dup8(0.0f); }
inline f8 add(f8 a, f8 b) { return {wasm_f32x4_add(a.lo, b.lo), wasm_f32x4_add(a.hi, b.hi)}; }
inline f8 sub(f8 a, f8 b) { return {wasm_f32x4_sub(a.lo, b.lo), wasm_f32x4_sub(a.hi, b.hi)}; }
inline f8 mul(f8 a, f8 b) { return {wasm_f32x4_mul(a.lo, b.lo), wasm_f32x4_mul(a.hi, b.hi)}; }
inline f8 div(f8 a, f8 b) { return {wasm_f32x4_div(a.lo, b.lo), wasm_f32x4_div(a.hi, b.hi)}; }
// max / min as a compare and a select (f32x4.pmax: a < b ? b : a; pmin:
// b < a ? b : a), which engines run as one instruction each, where IEEE
// f32x4.max / min take several. They differ only for a NaN in b (a is
// kept) and in the sign of an equal zero: exp8's clamp (x in a) and
// softmax's running maximum give the same results either way, for finite
// inputs bit for bit the wasm_simd set's (vmaxq_f32 through SIMDe).
inline f8 max(f8 a, f8 b) { return {wasm_f32x4_pmax(a.lo, b.lo), wasm_f32x4_pmax(a.hi, b.hi)}; }
inline f8 min(f8 a, f8 b) { return {wasm_f32x4_pmin(a.lo, b.lo), wasm_f32x4_pmin(a.hi, b.hi)}; }
// a * b + c, rounded twice (no fused multiply-add in WASM SIMD128).
inline f8 fmadd(f8 a, f8 b, f8 c) { return add(c, mul(a, b)); }
// c − a * b, rounded twice.
inline f8 fnmadd(f8 a, f8 b, f8 c) { return sub(c, mul(a, b)); }
// Round to nearest, ties to even.
inline f8 round8(f8 x) { return {wasm_f32x4_nearest(x.lo), wasm_f32x4_nearest(x.hi)}; }
// 2^n for integral n in [-126, 127], built in the exponent field. n + 1.5·2^23
// holds n in its low mantissa bits (exact), so its bits + 127, shifted up by
// 23, are n + 127 in the exponent field (the shift drops the rest): cheaper
// than i32x4.trunc_sat_f32x4_s, which engines follow with fix-ups.
inline v128_t pow2_4(v128_t n) {
  const v128_t bits = wasm_f32x4_add(n, wasm_f32x4_splat(12582912.0f));
  return wasm_i32x4_shl(wasm_i32x4_add(bits, wasm_i32x4_splat(127)), 23);
}
inline f8 pow2(f8 n) { return {pow2_4(n.lo), pow2_4(n.hi)}; }
inline f8 abs8(f8 x) { return {wasm_f32x4_abs(x.lo), wasm_f32x4_abs(x.hi)}; }
// mag (≥ 0) with the sign bit of x.
inline v128_t with_sign_of4(v128_t mag, v128_t x) {
  return wasm_v128_or(mag, wasm_v128_and(x, wasm_i32x4_splat(INT32_MIN)));
}
inline f8 with_sign_of(f8 mag, f8 x) { return {with_sign_of4(mag.lo, x.lo), with_sign_of4(mag.hi, x.hi)}; }
// Per lane: a < b ? if_less : otherwise.
inline f8 select_lt(f8 a, f8 b, f8 if_less, f8 otherwise) {
  return {wasm_v128_bitselect(if_less.lo, otherwise.lo, wasm_f32x4_lt(a.lo, b.lo)),
          wasm_v128_bitselect(if_less.hi, otherwise.hi, wasm_f32x4_lt(a.hi, b.hi))};
}
// Whether any lane of a is greater than b's.
inline bool any_greater(f8 a, f8 b) {
  return wasm_v128_any_true(wasm_v128_or(wasm_f32x4_gt(a.lo, b.lo), wasm_f32x4_gt(a.hi, b.hi)));
}

// The AVX2 horizontal sum's order: (l0+l4 + l2+l6) + (l1+l5 + l3+l7).
inline float hsum(f8 v) {
  const v128_t s = wasm_f32x4_add(v.lo, v.hi);
  const v128_t t = wasm_f32x4_add(s, wasm_i32x4_shuffle(s, s, 2, 3, 0, 1));
  return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 1);
}

inline float hmax(f8 v) {
  const v128_t s = wasm_f32x4_max(v.lo, v.hi);
  const v128_t t = wasm_f32x4_max(s, wasm_i32x4_shuffle(s, s, 2, 3, 0, 1));
  return wasm_f32x4_extract_lane(wasm_f32x4_max(t, wasm_i32x4_shuffle(t, t, 1, 0, 3, 2)), 0);
}

inline int32_t hsum_i32(v128_t v) {
  const v128_t t = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  return wasm_i32x4_extract_lane(t, 0) + wasm_i32x4_extract_lane(t, 1);
}

#include "kernels/simd8/math.inc"

}  // namespace softalign::kernels::wasm_simd128
