#version 450
// encdec's fixed context of each sentence b < n: c_b = [→h_{len-1} ; ←h_0],
// the forward state at the last position and the backward state at the first.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint ann_off, hidden, max_source, dst_off;
  uint n, n_slot, lens_slot;
} p;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  const uint b = gl_GlobalInvocationID.y;
  if (k >= 2u * p.hidden || b >= count_of(p.n, p.n_slot)) return;
  const uint pos = k < p.hidden ? io[p.lens_slot + b] - 1u : 0u;
  act[p.dst_off + b * 2u * p.hidden + k] = act[p.ann_off + (b * p.max_source + pos) * 2u * p.hidden + k];
}
