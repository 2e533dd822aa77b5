#version 450
// dst[i, :] = src[parent_i, :] for i < m: the rows the search keeps after a
// beam step (parents in the I/O block). One invocation per element.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint src_off, dst_off, ld, cols;
  uint m, m_slot, parent_slot;
} p;

void main() {
  const uint c = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (c >= p.cols || i >= count_of(p.m, p.m_slot)) return;
  act[p.dst_off + i * p.ld + c] = act[p.src_off + io[p.parent_slot + i] * p.ld + c];
}
