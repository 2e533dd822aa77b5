#version 450
// linear.comp for f16 and int8 weights on devices with 16- and 8-bit storage
// (VK_KHR_16bit_storage, VK_KHR_8bit_storage): the weights and the quantized
// activations are read as float16_t / int8_t elements instead of unpacked
// from 32-bit words. The arithmetic is the same (f32 sums of exactly widened
// halves; int32 sums of int8 products), so are the results, bit for bit.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#include "common.glsl"
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer WeightHalves { float16_t w16[]; };
layout(set = 0, binding = 0) readonly buffer WeightBytes { int8_t w8[]; };
layout(set = 0, binding = 1) buffer ActBytes { int8_t act8[]; };

layout(push_constant) uniform Push {
  uint w_data, w_scales, w_type, rows, cols;
  uint bias;
  uint x_off, ldx;
  uint xq_off, ldxq;
  uint xs_off;
  uint y_off, ldy;
  uint m, m_slot;
  uint flags;
  uint row_ids, rows_slot;
} p;

void main() {
  const uint r = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (r >= count_of(p.rows, p.rows_slot) || i >= count_of(p.m, p.m_slot)) return;
  const uint wr = p.row_ids == NONE ? r : io[p.row_ids + r];
  float v;
  if (p.w_type == TYPE_I8) {
    int acc = 0;
    const uint wb = p.w_data * 4u + wr * p.cols;
    const uint xb = (p.xq_off + i * p.ldxq) * 4u;
    for (uint c = 0u; c < p.cols; ++c) acc += int(w8[wb + c]) * int(act8[xb + c]);
    v = float(acc) * (weight_f32(p.w_scales + wr) * act[p.xs_off + i]);
  } else if (p.w_type == TYPE_F16) {
    float acc = 0.0;
    const uint x0 = p.x_off + i * p.ldx;
    const uint h0 = p.w_data * 2u + wr * p.cols;
    for (uint c = 0u; c < p.cols; ++c) acc += float(w16[h0 + c]) * act[x0 + c];
    v = acc;
  } else {
    float acc = 0.0;
    const uint x0 = p.x_off + i * p.ldx;
    const uint w0 = wr * p.cols;
    for (uint c = 0u; c < p.cols; ++c) acc += uintBitsToFloat(w[p.w_data + w0 + c]) * act[x0 + c];
    v = acc;
  }
  if (p.bias != NONE) v += weight_f32(p.bias + wr);
  const uint y = p.y_off + i * p.ldy + r;
  if ((p.flags & 1u) != 0u) v += act[y];
  if ((p.flags & 2u) != 0u) v = tanh(v);
  act[y] = v;
}
