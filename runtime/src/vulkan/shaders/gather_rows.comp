#version 450
// dst[i, :] = src[parent_i, :] for rows i < m, cols columns: parent_i =
// io[parent_slot + i] (the rows the search keeps after a beam step; a row's
// sentence), or i itself when parent_slot is NONE (a strided copy).
// One invocation per element.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint src_off, lds, dst_off, ldd, cols;
  uint m, m_slot, parent_slot;
} p;

void main() {
  const uint c = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (c >= p.cols || i >= count_of(p.m, p.m_slot)) return;
  const uint from = p.parent_slot == NONE ? i : io[p.parent_slot + i];
  act[p.dst_off + i * p.ldd + c] = act[p.src_off + from * p.lds + c];
}
