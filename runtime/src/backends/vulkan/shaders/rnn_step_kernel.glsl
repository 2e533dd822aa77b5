// One decoder layer step for rows i < m, fused: gi = W_ih x + b_ih and
// gh = W_hh h + b_hh, then the cell. GRU (gate blocks r, z, n): PyTorch's
// h_out = (1 - z) n + z h with r = σ(gi_r + gh_r), z = σ(gi_z + gh_z),
// n = tanh(gi_n + r gh_n). LSTM (LSTM defined; gate blocks i, f, g, o): the
// cell c' = f c + i g from the row's previous cell c (at c_off, the state's
// stride), written at c_out, and h_out = o tanh(c'). One invocation per unit
// (its gate rows of both matrices), a workgroup per 64 units × TM rows
// (product.glsl).
#ifdef LSTM
#define WEIGHT_ROWS 4u
#endif
#include "common.glsl"
#include "product.glsl"
layout(local_size_x = 64) in;

// The storage types of W_ih and W_hh, fixed per pipeline (vulkan_device.hpp's Specialization).
layout(constant_id = 0) const uint IH_TYPE = TYPE_F32;
layout(constant_id = 1) const uint HH_TYPE = TYPE_F32;

layout(push_constant) uniform Push {
  uint hidden, m, m_slot;
  uint ih_data, ih_scales, x_off, ldx, x_cols, b_ih;
  uint hh_data, hh_scales, h_off, ldh, b_hh;
  uint out_off, ldout;
  uint c_off, c_out;  // LSTM: the previous cells (stride ldh) and the new ones (stride ldout)
} p;

void main() {
  if (!tile_begin(count_of(p.m, p.m_slot), NONE)) return;
  const uint n = p.hidden;
  const uint u = gl_WorkGroupID.x * OUTS + out_slot();
  const bool live = u < n;
  float gi[NRMAX * TM], gh[NRMAX * TM];
  cell_gates(IH_TYPE, p.ih_data, p.ih_scales, p.b_ih, n, p.x_cols, p.x_off, p.ldx, u, live, gi);
  cell_gates(HH_TYPE, p.hh_data, p.hh_scales, p.b_hh, n, n, p.h_off, p.ldh, u, live, gh);
  if (!live || out_lane() != 0u) return;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    if (i >= tile_rows) continue;
    const uint row = tile_first + i;
#ifdef LSTM
    float h;
    act[p.c_out + row * p.ldout + u] =
        lstm_cell(gi[i], gi[TM + i], gi[2u * TM + i], gi[3u * TM + i], gh[i], gh[TM + i], gh[2u * TM + i],
                  gh[3u * TM + i], act[p.c_off + row * p.ldh + u], h);
    act[p.out_off + row * p.ldout + u] = h;
#else
    act[p.out_off + row * p.ldout + u] = gru_cell(gi[i], gi[TM + i], gi[2u * TM + i], gh[i], gh[TM + i],
                                                  gh[2u * TM + i], act[p.h_off + row * p.ldh + u]);
#endif
  }
}
