// One GRU layer step for rows i < m, fused: gi = W_ih x + b_ih and
// gh = W_hh h + b_hh (gate blocks r, z, n), then PyTorch's cell
// h_out = (1 - z) n + z h with r = σ(gi_r + gh_r), z = σ(gi_z + gh_z),
// n = tanh(gi_n + r gh_n). One invocation per unit (its three gate rows of
// both matrices), a workgroup per 64 units × TM rows (product.glsl).
#include "common.glsl"
#include "product.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint hidden, m, m_slot;
  uint ih_type, ih_data, ih_scales, x_off, ldx, x_cols, b_ih;
  uint hh_type, hh_data, hh_scales, h_off, ldh, b_hh;
  uint out_off, ldout;
} p;

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint m = count_of(p.m, p.m_slot);
  const uint i0 = gl_WorkGroupID.y * TM;
  if (i0 >= m) return;
  tile_rows = min(TM, m - i0);
  tile_first = i0;
  map_seff = 0u;
  const uint n = p.hidden;
  const uint u = gl_WorkGroupID.x * OUTS + out_slot();
  const bool live = u < n;
  uint wr[NRMAX];
  wr[0] = live ? u : 0u;
  wr[1] = live ? n + u : 0u;
  wr[2] = live ? 2u * n + u : 0u;
  float gi[NRMAX * TM];
  {
    int acci[NRMAX * TM];
    float accf[NRMAX * TM];
    [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
      acci[k] = 0;
      accf[k] = 0.0;
    }
    if (p.ih_type == TYPE_I8) row_scales(p.x_off, p.ldx, p.x_cols);
    term_product(p.ih_type, p.ih_data, 3u * n, p.x_cols, p.x_off, p.ldx, live, wr, 3u, acci, accf);
    if (live && out_lane() == 0u)
      [[unroll]] for (uint q = 0u; q < 3u; ++q)
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
          if (i >= tile_rows) continue;
          gi[q * TM + i] = term_value(p.ih_type, p.ih_scales, wr[q], q, i, acci, accf) + bias_at(p.b_ih, wr[q]);
        }
  }
  int acci[NRMAX * TM];
  float accf[NRMAX * TM];
  [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
    acci[k] = 0;
    accf[k] = 0.0;
  }
  if (p.hh_type == TYPE_I8) row_scales(p.h_off, p.ldh, n);
  term_product(p.hh_type, p.hh_data, 3u * n, n, p.h_off, p.ldh, live, wr, 3u, acci, accf);
  if (!live || out_lane() != 0u) return;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    if (i >= tile_rows) continue;
    const float gh_r = term_value(p.hh_type, p.hh_scales, wr[0], 0u, i, acci, accf) + bias_at(p.b_hh, wr[0]);
    const float gh_z = term_value(p.hh_type, p.hh_scales, wr[1], 1u, i, acci, accf) + bias_at(p.b_hh, wr[1]);
    const float gh_n = term_value(p.hh_type, p.hh_scales, wr[2], 2u, i, acci, accf) + bias_at(p.b_hh, wr[2]);
    const float r = sigmoid(gi[i] + gh_r);
    const float z = sigmoid(gi[TM + i] + gh_z);
    const float c = tanh(gi[2u * TM + i] + r * gh_n);
    const uint row = i0 + i;
    const float h = act[p.h_off + row * p.ldh + u];
    act[p.out_off + row * p.ldout + u] = (1.0 - z) * c + z * h;
  }
}
