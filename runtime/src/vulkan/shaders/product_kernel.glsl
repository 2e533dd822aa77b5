// y[i, r] = act(Σ_t W_t[w_r, :] · x_t[i, :] + bias[w_r]) for activation rows
// i < m: one to three terms summed into one output (bahdanau's
// U_o s + b_o + V_o E y + C_o c), in the CPU's order (term 0 plus the bias,
// then each further term added to that). w_r = r, or with a row list (the
// vocabulary shortlist's ids) w_r = io[row_ids + r] for r < io[rows_slot].
// flags: 2 tanh. With ROWS_PER_OUTPUT 2 (maxout) output unit k is
// max(row 2k, row 2k + 1) (rows counts weight rows, the output has rows / 2
// columns).
// Rows of x and y: i, or with seff_slot the positions of a batch's sources,
// i -> (i / seff) * stride + i % seff with seff = io[seff_slot] (only the
// positions up to the batch's longest source are computed).
// Each term has its own weight storage (and int8 its own x scales); the
// storage types and the number of terms are fixed per pipeline.
// One invocation per output (unit), a workgroup per 64 outputs × TM rows.
#include "common.glsl"
#include "product.glsl"
layout(local_size_x = 64) in;

// Fixed per pipeline (vulkan_device.hpp's Specialization).
layout(constant_id = 0) const uint TERM0_TYPE = TYPE_F32;
layout(constant_id = 1) const uint TERM1_TYPE = TYPE_F32;
layout(constant_id = 2) const uint TERM2_TYPE = TYPE_F32;
layout(constant_id = 3) const uint TERMS = 1u;
layout(constant_id = 4) const uint ROWS_PER_OUTPUT = 1u;  // 2: maxout

layout(push_constant) uniform Push {
  uint rows, bias, y_off, ldy;
  uint m, m_slot, flags, row_ids, rows_slot, seff_slot, stride;
  uint data0, scales0, x0, ldx0, cols0;
  uint data1, scales1, x1, ldx1, cols1;
  uint data2, scales2, x2, ldx2, cols2;
} p;

const bool MAXOUT = ROWS_PER_OUTPUT == 2u;

uint o;        // this invocation's output
bool live;     // o exists
uint wr[NRMAX];  // its weight rows
float v[2 * TM];  // its sums so far

// Adds term `term` (of storage `type`) to v: term 0 with the bias, in the CPU's order.
void add_term(uint term, uint type, uint data, uint scales, uint x, uint ldx, uint cols) {
  int acci[NRMAX * TM];
  float accf[NRMAX * TM];
  [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
    acci[k] = 0;
    accf[k] = 0.0;
  }
  if (type == TYPE_I8) row_scales(x, ldx, cols);
  term_product(type, data, p.rows, cols, x, ldx, live, wr, ROWS_PER_OUTPUT, acci, accf);
  if (!live || out_lane() != 0u) return;
  [[unroll]] for (uint q = 0u; q < ROWS_PER_OUTPUT; ++q) {
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

void main() {
  if (!tile_begin(count_of(p.m, p.m_slot), p.seff_slot == NONE ? 0u : io[p.seff_slot], p.stride)) return;
  const uint outputs = count_of(p.rows, p.rows_slot) / ROWS_PER_OUTPUT;
  o = gl_WorkGroupID.x * OUTS + out_slot();
  live = o < outputs;
  wr[0] = 0u;
  wr[1] = 0u;
  wr[2] = 0u;
  if (live) {
    if (MAXOUT) {
      wr[0] = 2u * o;
      wr[1] = 2u * o + 1u;
    } else {
      wr[0] = p.row_ids == NONE ? o : io[p.row_ids + o];
    }
  }
  // Each term with its type a constant (the compiler keeps that type's code only).
  add_term(0u, TERM0_TYPE, p.data0, p.scales0, p.x0, p.ldx0, p.cols0);
  if (TERMS > 1u) add_term(1u, TERM1_TYPE, p.data1, p.scales1, p.x1, p.ldx1, p.cols1);
  if (TERMS > 2u) add_term(2u, TERM2_TYPE, p.data2, p.scales2, p.x2, p.ldx2, p.cols2);
  if (!live || out_lane() != 0u) return;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    if (i >= tile_rows) continue;
    float y = MAXOUT ? max(v[i], v[TM + i]) : v[i];
    if ((p.flags & 2u) != 0u) y = tanh(y);
    act[p.y_off + tile_row(i) * p.ldy + o] = y;
  }
}
