// y[i, r] = act(Σ_t W_t[w_r, :] · x_t[i, :] + bias[w_r]) for activation rows
// i < m: one to three terms summed into one output (bahdanau's
// U_o s + b_o + V_o E y + C_o c), in the CPU's order (term 0 plus the bias,
// then each further term added to that). w_r = r, or with a row list (the
// vocabulary shortlist's ids) w_r = io[row_ids + r] for r < io[rows_slot].
// flags: 2 tanh; 4 maxout: output unit k is max(row 2k, row 2k + 1) (then
// rows counts weight rows, the output has rows / 2 columns).
// Rows of x and y: i, or with seff_slot the positions of a batch's sources,
// i -> (i / seff) * stride + i % seff with seff = io[seff_slot] (only the
// positions up to the batch's longest source are computed).
// Each term has its own weight storage (and int8 its own x scales).
// One invocation per output (unit), a workgroup per 64 outputs × TM rows.
#include "common.glsl"
#include "product.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint rows, bias, y_off, ldy;
  uint m, m_slot, flags, row_ids, rows_slot, seff_slot, stride, nterms;
  uint type0, data0, scales0, x0, ldx0, cols0;
  uint type1, data1, scales1, x1, ldx1, cols1;
  uint type2, data2, scales2, x2, ldx2, cols2;
} p;

void main() {
  if (!tile_begin(count_of(p.m, p.m_slot), p.seff_slot == NONE ? 0u : io[p.seff_slot], p.stride)) return;
  const bool maxout = (p.flags & 4u) != 0u;
  const uint nr = maxout ? 2u : 1u;
  const uint outputs = count_of(p.rows, p.rows_slot) / nr;
  const uint o = gl_WorkGroupID.x * OUTS + out_slot();
  const bool live = o < outputs;
  uint wr[NRMAX];
  wr[0] = 0u;
  wr[1] = 0u;
  wr[2] = 0u;
  if (live) {
    if (maxout) {
      wr[0] = 2u * o;
      wr[1] = 2u * o + 1u;
    } else {
      wr[0] = p.row_ids == NONE ? o : io[p.row_ids + o];
    }
  }
  float v[2 * TM];
  for (uint term = 0u; term < p.nterms; ++term) {
    const uint type = term == 0u ? p.type0 : term == 1u ? p.type1 : p.type2;
    const uint data = term == 0u ? p.data0 : term == 1u ? p.data1 : p.data2;
    const uint scales = term == 0u ? p.scales0 : term == 1u ? p.scales1 : p.scales2;
    const uint x = term == 0u ? p.x0 : term == 1u ? p.x1 : p.x2;
    const uint ldx = term == 0u ? p.ldx0 : term == 1u ? p.ldx1 : p.ldx2;
    const uint cols = term == 0u ? p.cols0 : term == 1u ? p.cols1 : p.cols2;
    int acci[NRMAX * TM];
    float accf[NRMAX * TM];
    [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
      acci[k] = 0;
      accf[k] = 0.0;
    }
    if (type == TYPE_I8) row_scales(x, ldx, cols);
    term_product(type, data, p.rows, cols, x, ldx, live, wr, nr, acci, accf);
    if (live && out_lane() == 0u) {
      [[unroll]] for (uint q = 0u; q < 2u; ++q) {
        if (q >= nr) continue;
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
          if (i >= tile_rows) continue;
          float s = term_value(type, scales, wr[q], q, i, acci, accf);
          if (term == 0u) {
            if (p.bias != NONE) s += weight_f32(p.bias + wr[q]);
          } else {
            s += v[q * TM + i];
          }
          v[q * TM + i] = s;
        }
      }
    }
  }
  if (!live || out_lane() != 0u) return;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    if (i >= tile_rows) continue;
    float y = maxout ? max(v[i], v[TM + i]) : v[i];
    if ((p.flags & 2u) != 0u) y = tanh(y);
    act[p.y_off + tile_row(i) * p.ldy + o] = y;
  }
}
