// A bidirectional encoder layer's recurrence over every position, both
// directions at once (z: 0 forward, 1 backward), in one dispatch: a
// workgroup owns a tile of sentences and loops over the positions, all
// hidden units each step, until its sentences have ended; the positions of
// a step are j = step (forward) or len - 1 - step (backward). The sentences
// are in slots by length, longest first (slot s holds sentence
// io[order + s]), so those running at a step are the first io[live + step]
// slots. gh = W_hh h_s + b_hh fused with the cell, gi[b, j] = W_ih x + b_ih
// being precomputed for all positions (product.comp). h is per slot,
// double-buffered by the step's parity (read h[step % 2], write
// h[(step + 1) % 2]); the workgroup's own writes are made visible to it
// before the next step (a coherent view of the buffer and a barrier), and no
// other workgroup reads them. The new state also goes into the layer's
// output [b, j, dir * hidden ...]. One invocation per unit, GROUP_SIZE units
// at a time (product.glsl): workgroups of 256, since a layer has only a few
// of them, each running every position.
#include "common.glsl"
// The states: read as a product's x and written by the same workgroup.
layout(set = 0, binding = 1) coherent buffer ActCoherent { float act_c[]; };
#define X_ACT act_c
#include "product.glsl"
layout(local_size_x = GROUP_SIZE) in;

// The storage types of the two directions' W_hh, fixed per pipeline
// (vulkan_device.hpp's Specialization; the same in every model file, so the
// direction's choice below folds away).
layout(constant_id = 0) const uint FORWARD_TYPE = TYPE_F32;
layout(constant_id = 1) const uint BACKWARD_TYPE = TYPE_F32;

layout(push_constant) uniform Push {
  uint hidden, max_source, live_slot, order_slot, lens_slot;
  uint data_f, scales_f, bias_f, data_b, scales_b, bias_b;
  uint gi_f, gi_b;
  uint h_off;  // [dir][parity][slot][hidden]
  uint out_off;
  uint sentences;  // rows of each h buffer
} p;

void main() {
  const uint dir = gl_WorkGroupID.z;
  const uint n = p.hidden;
  const uint hbuf = p.sentences * n;
  const uint type = dir == 0u ? FORWARD_TYPE : BACKWARD_TYPE;
  const uint data = dir == 0u ? p.data_f : p.data_b;
  const uint scales = dir == 0u ? p.scales_f : p.scales_b;
  const uint bias = dir == 0u ? p.bias_f : p.bias_b;
  const uint gi_off = dir == 0u ? p.gi_f : p.gi_b;
  // The tile's states start at zero (parity 0: the first step's h).
  if (tile_begin(io[p.live_slot], NONE)) {
    const uint h0 = p.h_off + dir * 2u * hbuf + tile_first * n;
    for (uint k = gl_LocalInvocationID.x; k < tile_rows * n; k += GROUP) act_c[h0 + k] = 0.0;
  }
  memoryBarrierBuffer();
  barrier();
  for (uint step = 0u; step < p.max_source; ++step) {
    if (!tile_begin(io[p.live_slot + step], NONE)) return;  // the tile's sentences have ended
    const uint h_cur = p.h_off + (dir * 2u + (step & 1u)) * hbuf;
    const uint h_next = p.h_off + (dir * 2u + ((step + 1u) & 1u)) * hbuf;
    for (uint first = 0u; first < n; first += OUTS) {
      const uint u = first + out_slot();
      const bool live = u < n;
      float gh[NRMAX * TM];
      gru_gates(type, data, scales, bias, n, n, h_cur, n, u, live, gh);
      if (live && out_lane() == 0u) {
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
          if (i >= tile_rows) continue;
          const uint s = tile_first + i;
          const uint b = io[p.order_slot + s];
          const uint len = io[p.lens_slot + b];
          const uint j = dir == 0u ? step : len - 1u - step;
          const uint pos = b * p.max_source + j;
          const uint gi = gi_off + pos * 3u * n;
          const float h = gru_cell(act[gi + u], act[gi + n + u], act[gi + 2u * n + u], gh[i], gh[TM + i],
                                   gh[2u * TM + i], act_c[h_cur + s * n + u]);
          act_c[h_next + s * n + u] = h;
          act[p.out_off + pos * 2u * n + dir * n + u] = h;
        }
      }
    }
    memoryBarrierBuffer();  // this step's states, before the next step reads them
    barrier();
  }
}
