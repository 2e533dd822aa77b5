// An encoder layer's recurrence over every position, each direction at once
// (z: 0 forward, 1 backward; a one-way layer has forward only, which runs
// right to left when reverse), in one dispatch: a workgroup owns a tile of
// sentences and loops over the positions, all hidden units each step, until
// its sentences have ended; the positions of a step are j = step (left to
// right) or len - 1 - step (right to left). The sentences are in slots by
// length, longest first (slot s holds sentence io[order + s]), so those
// running at a step are the first io[live + step] slots. gh = W_hh h_s + b_hh
// fused with the cell (GRU, or LSTM where LSTM is defined), gi[b, j] =
// W_ih x + b_ih being precomputed for all positions (product.comp). h is per
// slot, double-buffered by the step's parity (read h[step % 2], write
// h[(step + 1) % 2]); an LSTM's cell per slot, read and written by the
// invocation that owns its unit. The workgroup's own writes are made visible
// to it before the next step (a coherent view of the buffer and a barrier),
// and no other workgroup reads them. The new state also goes into the layer's
// output [b, j, dir * hidden ...] (rows of ann_w floats), and at a sentence's
// last position the state (and cell) into its final states [b, dir * hidden
// ...] (rows of finals_ld floats; a sentence with no position keeps the zeros
// the engine wrote there). One invocation per unit, GROUP_SIZE units at a
// time (product.glsl): workgroups of 256, since a layer has only a few of
// them, each running every position.
#ifdef LSTM
#define WEIGHT_ROWS 4u
#endif
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
  uint ann_w;      // floats of an output row (directions × hidden)
  uint reverse;    // 1: the forward direction runs right to left (a one-way layer)
  uint c_off;      // LSTM: [dir][slot][hidden]
  uint finals_off, final_cells_off, finals_ld;  // this layer's final states (and cells: NONE for GRU)
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
  const bool right_to_left = dir == 1u || p.reverse != 0u;
  // The tile's states (and cells) start at zero (parity 0: the first step's h).
  if (tile_begin(io[p.live_slot], NONE)) {
    const uint h0 = p.h_off + dir * 2u * hbuf + tile_first * n;
    for (uint k = gl_LocalInvocationID.x; k < tile_rows * n; k += GROUP) act_c[h0 + k] = 0.0;
#ifdef LSTM
    const uint c0 = p.c_off + dir * hbuf + tile_first * n;
    for (uint k = gl_LocalInvocationID.x; k < tile_rows * n; k += GROUP) act_c[c0 + k] = 0.0;
#endif
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
      cell_gates(type, data, scales, bias, n, n, h_cur, n, u, live, gh);
      if (live && out_lane() == 0u) {
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
          if (i >= tile_rows) continue;
          const uint s = tile_first + i;
          const uint b = io[p.order_slot + s];
          const uint len = io[p.lens_slot + b];
          const uint j = right_to_left ? len - 1u - step : step;
          const uint pos = b * p.max_source + j;
          const uint gi = gi_off + pos * NRMAX * n;
#ifdef LSTM
          float h;
          const uint cell = p.c_off + dir * hbuf + s * n + u;
          const float c = lstm_cell(act[gi + u], act[gi + n + u], act[gi + 2u * n + u], act[gi + 3u * n + u], gh[i],
                                    gh[TM + i], gh[2u * TM + i], gh[3u * TM + i], act_c[cell], h);
          act_c[cell] = c;
          if (step + 1u == len) act[p.final_cells_off + b * p.finals_ld + dir * n + u] = c;
#else
          const float h = gru_cell(act[gi + u], act[gi + n + u], act[gi + 2u * n + u], gh[i], gh[TM + i],
                                   gh[2u * TM + i], act_c[h_cur + s * n + u]);
#endif
          act_c[h_next + s * n + u] = h;
          act[p.out_off + pos * p.ann_w + dir * n + u] = h;
          if (step + 1u == len) act[p.finals_off + b * p.finals_ld + dir * n + u] = h;
        }
      }
    }
    memoryBarrierBuffer();  // this step's states, before the next step reads them
    barrier();
  }
}
