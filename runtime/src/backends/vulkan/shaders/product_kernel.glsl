// y[i, r] = act(Σ_t W_t[w_r, :] · x_t[i, :] + bias[w_r]) for activation rows
// i < m: one to three terms summed into one output (bahdanau's
// U_o s + b_o + V_o E y + C_o c), in the CPU's order (term 0 plus the bias,
// then each further term added to that). w_r = r, or with a row list (the
// vocabulary shortlist's ids) w_r = io[row_ids + r] for r < io[rows_slot].
// flags: 2 tanh, 8 relu. With ROWS_PER_OUTPUT 2 (maxout) output unit k is
// max(row 2k, row 2k + 1) (rows counts weight rows, the output has rows / 2
// columns).
// Rows of x and y: i, or with a row map the batch's source positions,
// i -> io[row_map + i] (its sentences' positions only, packed).
// Each term has its own weight storage (and int8 its own x scales); the
// storage types and the number of terms are fixed per pipeline.
// Each invocation owns OUTPUTS_PER_INVOCATION outputs (GROUP / KS apart, so
// that neighbouring invocations still read neighbouring weight rows): each
// activation value it reads from shared memory serves that many outputs.
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
  uint m, m_slot, flags, row_ids, rows_slot, row_map;
  uint data0, scales0, x0, ldx0, cols0;
  uint data1, scales1, x1, ldx1, cols1;
  uint data2, scales2, x2, ldx2, cols2;
} p;

const bool MAXOUT = ROWS_PER_OUTPUT == 2u;
const uint OUTPUTS_PER_INVOCATION = NRMAX / ROWS_PER_OUTPUT;
const uint NR = OUTPUTS_PER_INVOCATION * ROWS_PER_OUTPUT;  // weight rows per invocation

uint o[OUTPUTS_PER_INVOCATION];  // this invocation's outputs
uint outputs;                    // how many there are
uint wr[NRMAX];                  // their weight rows: output j's are NR-index j * ROWS_PER_OUTPUT + r
float v[NRMAX * TM];             // their sums so far

// Adds term `term` (of storage `type`) to v: term 0 with the bias, in the CPU's order.
void add_term(uint term, uint type, uint data, uint scales, uint x, uint ldx, uint cols) {
  int acci[NRMAX * TM];
  float accf[NRMAX * TM];
  [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
    acci[k] = 0;
    accf[k] = 0.0;
  }
  if (type == TYPE_I8) row_scales(x, ldx, cols);
  term_product(type, data, p.rows, cols, x, ldx, o[0] < outputs, wr, NR, acci, accf);
  if (out_lane() != 0u) return;
  [[unroll]] for (uint q = 0u; q < NR; ++q) {
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
  if (!tile_begin(count_of(p.m, p.m_slot), p.row_map)) return;
  outputs = count_of(p.rows, p.rows_slot) / ROWS_PER_OUTPUT;
  // A workgroup past the outputs (the vocabulary shortlist's columns are
  // fewer than the grid, recorded for the whole vocabulary) returns whole.
  if (gl_WorkGroupID.x * OUTPUTS_PER_INVOCATION * OUTS >= outputs) return;
  [[unroll]] for (uint j = 0u; j < OUTPUTS_PER_INVOCATION; ++j) {
    o[j] = (gl_WorkGroupID.x * OUTPUTS_PER_INVOCATION + j) * OUTS + out_slot();
    // A dead output reads row 0 and is not written.
    const uint k = o[j] < outputs ? o[j] : 0u;
    if (MAXOUT) {
      wr[2u * j] = 2u * k;
      wr[2u * j + 1u] = 2u * k + 1u;
    } else {
      wr[j] = p.row_ids == NONE || o[j] >= outputs ? k : io[p.row_ids + k];
    }
  }
  // Each term with its type a constant (the compiler keeps that type's code only).
  add_term(0u, TERM0_TYPE, p.data0, p.scales0, p.x0, p.ldx0, p.cols0);
  if (TERMS > 1u) add_term(1u, TERM1_TYPE, p.data1, p.scales1, p.x1, p.ldx1, p.cols1);
  if (TERMS > 2u) add_term(2u, TERM2_TYPE, p.data2, p.scales2, p.x2, p.ldx2, p.cols2);
  if (out_lane() != 0u) return;
  [[unroll]] for (uint j = 0u; j < OUTPUTS_PER_INVOCATION; ++j) {
    if (o[j] >= outputs) continue;
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      if (i >= tile_rows) continue;
      float y = MAXOUT ? max(v[2u * j * TM + i], v[(2u * j + 1u) * TM + i]) : v[j * TM + i];
      if ((p.flags & 2u) != 0u) y = tanh(y);
      if ((p.flags & 8u) != 0u) y = max(y, 0.0);
      act[p.y_off + tile_row(i) * p.ldy + o[j]] = y;
    }
  }
}
