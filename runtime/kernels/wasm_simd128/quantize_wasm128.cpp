// WASM SIMD128 activation quantization and embedding-row widening.
// quantize_i8 gives the reference's bytes exactly: the same IEEE product
// x · (127 / amax), clamped to ±127 (clamping before rounding gives the same
// integer: ±127 are integers and rounding is monotonic), rounded to nearest
// even by adding 1.5·2^23, whose low mantissa bits are then the integer.
#include <fp16.h>
#include <wasm_simd128.h>

#include <cmath>

#include "kernels/wasm_simd128/math_wasm128.hpp"
#include "kernels/wasm_simd128/wasm_simd128.hpp"

namespace softalign::kernels::wasm_simd128 {

#include "kernels/simd8/quantize_rest.inc"

float quantize_i8(const float* x, int n, int8_t* xq) {
  v128_t vmax = wasm_f32x4_splat(0.0f);
  int i = 0;
  for (; i + 4 <= n; i += 4) vmax = wasm_f32x4_max(vmax, wasm_f32x4_abs(wasm_v128_load(x + i)));
  const float amax = amax_rest(x, i, n, hmax({vmax, vmax}), xq);
  if (amax == 0.0f) return 0.0f;
  const float inv = 127.0f / amax;
  const v128_t vinv = wasm_f32x4_splat(inv);
  const v128_t hi = wasm_f32x4_splat(127.0f), lo = wasm_f32x4_splat(-127.0f);
  const v128_t magic = wasm_f32x4_splat(12582912.0f);  // 1.5 · 2^23
  auto q4 = [&](const float* p) {
    const v128_t v = wasm_f32x4_min(hi, wasm_f32x4_max(lo, wasm_f32x4_mul(wasm_v128_load(p), vinv)));
    return wasm_i32x4_sub(wasm_f32x4_add(v, magic), magic);  // the rounded integer, as int32
  };
  i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t ab = wasm_i16x8_narrow_i32x4(q4(x + i), q4(x + i + 4));  // within ±127: no saturation
    const v128_t cd = wasm_i16x8_narrow_i32x4(q4(x + i + 8), q4(x + i + 12));
    wasm_v128_store(xq + i, wasm_i8x16_narrow_i16x8(ab, cd));
  }
  quantize_rest(x, i, n, inv, xq);
  return amax / 127.0f;
}

void row_i8(const int8_t* src, float scale, int n, float* dst) {
  const v128_t s = wasm_f32x4_splat(scale);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t v = wasm_i16x8_load8x8(src + i);
    wasm_v128_store(dst + i, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(v)), s));
    wasm_v128_store(dst + i + 4, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(v)), s));
  }
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]) * scale;
}

}  // namespace softalign::kernels::wasm_simd128
