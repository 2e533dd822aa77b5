#version 450
// PyTorch's GRU cell for rows i < m from gi = W_ih x + b_ih, gh = W_hh h + b_hh
// (gate blocks r, z, n): h_out = (1 - z) n + z h. One invocation per unit.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint gi_off, ldgi, gh_off, ldgh, h_off, ldh, out_off, ldout, hidden;
  uint m, m_slot;
} p;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (k >= p.hidden || i >= count_of(p.m, p.m_slot)) return;
  const uint gi = p.gi_off + i * p.ldgi, gh = p.gh_off + i * p.ldgh, n = p.hidden;
  const float r = sigmoid(act[gi + k] + act[gh + k]);
  const float z = sigmoid(act[gi + n + k] + act[gh + n + k]);
  const float c = tanh(act[gi + 2u * n + k] + r * act[gh + 2u * n + k]);
  const float h = act[p.h_off + i * p.ldh + k];
  act[p.out_off + i * p.ldout + k] = (1.0 - z) * c + z * h;
}
