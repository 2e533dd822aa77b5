#version 450
// One step of one encoder direction for every sentence b < n: position
// j = step (forward) or len_b - 1 - step (backward), nothing once step >= len_b.
// Reads gi[b, j] (the input projections of all positions) and gh[b] = W_hh h_b
// + b_hh, updates h_b in place and writes it into the layer's output
// [b, j, dir * hidden ...]. One invocation per unit.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint gi_off, gh_off, h_off, out_off, hidden, max_source, step, dir;
  uint n, n_slot, lens_slot;
} p;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  const uint b = gl_GlobalInvocationID.y;
  if (k >= p.hidden || b >= count_of(p.n, p.n_slot)) return;
  const uint len = io[p.lens_slot + b];
  if (p.step >= len) return;
  const uint j = p.dir == 0u ? p.step : len - 1u - p.step;
  const uint n = p.hidden, pos = b * p.max_source + j;
  const uint gi = p.gi_off + pos * 3u * n, gh = p.gh_off + b * 3u * n;
  const float r = sigmoid(act[gi + k] + act[gh + k]);
  const float z = sigmoid(act[gi + n + k] + act[gh + n + k]);
  const float c = tanh(act[gi + 2u * n + k] + r * act[gh + 2u * n + k]);
  const float h = (1.0 - z) * c + z * act[p.h_off + b * n + k];
  act[p.h_off + b * n + k] = h;
  act[p.out_off + pos * 2u * n + p.dir * n + k] = h;
}
