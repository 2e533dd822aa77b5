#version 450
// Maxout over pairs of adjacent units: t[i, k] = max(u[i, 2k], u[i, 2k + 1]).
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint u_off, t_off, l;
  uint m, m_slot;
} p;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (k >= p.l || i >= count_of(p.m, p.m_slot)) return;
  const uint u = p.u_off + i * 2u * p.l + 2u * k;
  act[p.t_off + i * p.l + k] = max(act[u], act[u + 1u]);
}
