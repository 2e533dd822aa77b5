#version 450
// Embedding rows: dst[r, :] = row io[tok_slot + r] of the table as floats
// (int8: times its row scale) for r = io[row_map + i], i < m (the batch's
// source positions, packed). One invocation per element.
#include "common.glsl"
layout(local_size_x = 64) in;

// The table's storage type, fixed per pipeline (vulkan_device.hpp's Specialization).
layout(constant_id = 0) const uint TABLE_TYPE = TYPE_F32;

layout(push_constant) uniform Push {
  uint w_data, w_scales, cols;
  uint dst_off, lddst;
  uint m, m_slot, tok_slot, row_map;
} p;

void main() {
  const uint c = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (c >= p.cols || i >= count_of(p.m, p.m_slot)) return;
  const uint r = io[p.row_map + i];
  const uint tok = io[p.tok_slot + r];
  float v = weight(TABLE_TYPE, p.w_data, tok * p.cols + c);
  if (TABLE_TYPE == TYPE_I8) v *= weight_f32(p.w_scales + tok);
  act[p.dst_off + r * p.lddst + c] = v;
}
