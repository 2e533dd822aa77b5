// One step of a bidirectional encoder layer for every sentence b < n, both
// directions at once (z: 0 forward, 1 backward): position j = step
// (forward) or len_b - 1 - step (backward), nothing once step >= len_b.
// gh = W_hh h_b + b_hh fused with the cell, gi[b, j] = W_ih x + b_ih being
// precomputed for all positions (product.comp). h is double-buffered by the
// step's parity (read h[step % 2], write h[(step + 1) % 2]: other workgroups
// still read the old state); the new state also goes into the layer's output
// [b, j, dir * hidden ...]. One invocation per unit, a workgroup per 64 units
// × TM sentences (product.glsl).
#include "common.glsl"
#include "product.glsl"
layout(local_size_x = 64) in;

// The storage types of the two directions' W_hh, fixed per pipeline
// (vulkan_device.hpp's Specialization; the same in every model file, so the
// direction's choice below folds away).
layout(constant_id = 0) const uint FORWARD_TYPE = TYPE_F32;
layout(constant_id = 1) const uint BACKWARD_TYPE = TYPE_F32;

layout(push_constant) uniform Push {
  uint hidden, max_source, step, n, n_slot, lens_slot;
  uint data_f, scales_f, bias_f, data_b, scales_b, bias_b;
  uint gi_f, gi_b;
  uint h_off;  // [dir][parity][sentence][hidden]
  uint out_off;
  uint sentences;  // rows of each h buffer
} p;

void main() {
  const uint dir = gl_WorkGroupID.z;
  if (!tile_begin(count_of(p.n, p.n_slot), 0u, 0u)) return;
  const uint n = p.hidden;
  const uint hbuf = p.sentences * n;
  const uint h_cur = p.h_off + (dir * 2u + (p.step & 1u)) * hbuf;
  const uint h_next = p.h_off + (dir * 2u + ((p.step + 1u) & 1u)) * hbuf;
  const uint type = dir == 0u ? FORWARD_TYPE : BACKWARD_TYPE;
  const uint data = dir == 0u ? p.data_f : p.data_b;
  const uint scales = dir == 0u ? p.scales_f : p.scales_b;
  const uint bias = dir == 0u ? p.bias_f : p.bias_b;
  const uint gi_off = dir == 0u ? p.gi_f : p.gi_b;
  const uint u = gl_WorkGroupID.x * OUTS + out_slot();
  const bool live = u < n;
  float gh[NRMAX * TM];
  gru_gates(type, data, scales, bias, n, n, h_cur, n, u, live, gh);
  if (!live || out_lane() != 0u) return;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    if (i >= tile_rows) continue;
    const uint b = tile_first + i;
    const uint len = io[p.lens_slot + b];
    if (p.step >= len) continue;
    const uint j = dir == 0u ? p.step : len - 1u - p.step;
    const uint pos = b * p.max_source + j;
    const uint gi = gi_off + pos * 3u * n;
    const float h = gru_cell(act[gi + u], act[gi + n + u], act[gi + 2u * n + u], gh[i], gh[TM + i], gh[2u * TM + i],
                             act[h_cur + b * n + u]);
    act[h_next + b * n + u] = h;
    act[p.out_off + pos * 2u * n + dir * n + u] = h;
  }
}
