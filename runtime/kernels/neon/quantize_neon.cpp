// NEON activation quantization and embedding-row widening. quantize_i8 gives
// the reference's bytes exactly: the same IEEE product x · (127 / amax),
// rounded to nearest even, clamped to ±127.
#include <fp16.h>

#include <cmath>

#include "kernels/neon/math_neon.hpp"
#include "kernels/neon/neon.hpp"

namespace softalign::kernels::neon {

#include "kernels/simd8/quantize_rest.inc"

float quantize_i8(const float* x, int n, int8_t* xq) {
  float32x4_t vmax = vdupq_n_f32(0.0f);
  int i = 0;
  for (; i + 4 <= n; i += 4) vmax = vmaxq_f32(vmax, vabsq_f32(vld1q_f32(x + i)));
  const float amax = amax_rest(x, i, n, hmax({vmax, vmax}), xq);
  if (amax == 0.0f) return 0.0f;
  const float inv = 127.0f / amax;
  const float32x4_t vinv = vdupq_n_f32(inv);
  const float32x4_t hi = vdupq_n_f32(127.0f), lo = vdupq_n_f32(-127.0f);
  auto q4 = [&](const float* p) {
    const float32x4_t v = round4(vmulq_f32(vld1q_f32(p), vinv));
    return vcvtq_s32_f32(vminq_f32(hi, vmaxq_f32(lo, v)));  // integral already: exact
  };
  i = 0;
  for (; i + 16 <= n; i += 16) {
    const int16x8_t ab = vcombine_s16(vmovn_s32(q4(x + i)), vmovn_s32(q4(x + i + 4)));
    const int16x8_t cd = vcombine_s16(vmovn_s32(q4(x + i + 8)), vmovn_s32(q4(x + i + 12)));
    vst1q_s8(xq + i, vcombine_s8(vmovn_s16(ab), vmovn_s16(cd)));
  }
  quantize_rest(x, i, n, inv, xq);
  return amax / 127.0f;
}

void row_i8(const int8_t* src, float scale, int n, float* dst) {
  const float32x4_t s = vdupq_n_f32(scale);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const int16x8_t v = vmovl_s8(vld1_s8(src + i));
    vst1q_f32(dst + i, vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(v))), s));
    vst1q_f32(dst + i + 4, vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(v))), s));
  }
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]) * scale;
}

}  // namespace softalign::kernels::neon
