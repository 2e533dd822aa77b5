// One step of a bidirectional encoder layer for the sentences still running
// at it, both directions at once (z: 0 forward, 1 backward): position
// j = step (forward) or len - 1 - step (backward). The sentences are in
// slots by length, longest first (slot s holds sentence io[order + s]), so
// the ones running at a step are the first io[live_slot] slots: the tiles
// past them return at once. gh = W_hh h_s + b_hh fused with the cell,
// gi[b, j] = W_ih x + b_ih being precomputed for all positions
// (product.comp). h is per slot, double-buffered by the step's parity (read
// h[step % 2], write h[(step + 1) % 2]: other workgroups still read the old
// state); the new state also goes into the layer's output
// [b, j, dir * hidden ...]. One invocation per unit, a workgroup per 64
// units × TM slots (product.glsl).
#include "common.glsl"
#include "product.glsl"
layout(local_size_x = 64) in;

// The storage types of the two directions' W_hh, fixed per pipeline
// (vulkan_device.hpp's Specialization; the same in every model file, so the
// direction's choice below folds away).
layout(constant_id = 0) const uint FORWARD_TYPE = TYPE_F32;
layout(constant_id = 1) const uint BACKWARD_TYPE = TYPE_F32;

layout(push_constant) uniform Push {
  uint hidden, max_source, step, live_slot, order_slot, lens_slot;
  uint data_f, scales_f, bias_f, data_b, scales_b, bias_b;
  uint gi_f, gi_b;
  uint h_off;  // [dir][parity][slot][hidden]
  uint out_off;
  uint sentences;  // rows of each h buffer
} p;

void main() {
  const uint dir = gl_WorkGroupID.z;
  if (!tile_begin(io[p.live_slot], NONE)) return;
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
    const uint s = tile_first + i;
    const uint b = io[p.order_slot + s];
    const uint len = io[p.lens_slot + b];
    const uint j = dir == 0u ? p.step : len - 1u - p.step;
    const uint pos = b * p.max_source + j;
    const uint gi = gi_off + pos * 3u * n;
    const float h = gru_cell(act[gi + u], act[gi + n + u], act[gi + 2u * n + u], gh[i], gh[TM + i], gh[2u * TM + i],
                             act[h_cur + s * n + u]);
    act[h_next + s * n + u] = h;
    act[p.out_off + pos * 2u * n + dir * n + u] = h;
  }
}
