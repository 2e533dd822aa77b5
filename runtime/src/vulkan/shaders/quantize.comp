#version 450
// Symmetric per-row int8 quantization of activations, as the CPU's
// quantize_i8: scale = max|x| / 127, q = clamp(roundEven(x * 127 / max|x|)),
// all zeros for an all-zero row. One workgroup per row; four values per word.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint x_off, ldx, cols;
  uint m, m_slot;
  uint q_off, ldq;  // packed rows, ldq words apart
  uint s_off;       // one scale per row
} p;

shared float partial[64];

void main() {
  const uint i = gl_WorkGroupID.x;
  const uint t = gl_LocalInvocationID.x;
  if (i >= count_of(p.m, p.m_slot)) return;
  const uint x0 = p.x_off + i * p.ldx;
  float amax = 0.0;
  for (uint c = t; c < p.cols; c += 64u) amax = max(amax, abs(act[x0 + c]));
  partial[t] = amax;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] = max(partial[t], partial[t + s]);
    barrier();
  }
  amax = partial[0];
  const bool zero = !(amax > 0.0);
  const float inv = zero ? 0.0 : 127.0 / amax;
  const uint words = (p.cols + 3u) / 4u;
  for (uint q = t; q < words; q += 64u) {
    uint packed = 0u;
    for (uint b = 0u; b < 4u; ++b) {
      const uint c = q * 4u + b;
      if (c >= p.cols || zero) continue;
      const float v = clamp(roundEven(act[x0 + c] * inv), -127.0, 127.0);
      packed |= (uint(int(v)) & 0xFFu) << (8u * b);
    }
    act_u[p.q_off + i * p.ldq + q] = packed;
  }
  if (t == 0u) act[p.s_off + i] = zero ? 0.0 : amax / 127.0;
}
