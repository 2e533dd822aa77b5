#version 450
// y[i, r] = act(W[w_r, :] · x[i, :] + bias[w_r]) (or y += ...) for rows
// i < m, any weight storage; w_r = r, or with a row list (the vocabulary
// shortlist's ids) w_r = io[row_ids + r] for r < io[rows_slot]. int8 weights multiply int8-quantized rows of x
// (quantize.comp) with int32 sums: y = acc * (scale_r * scale_x) + bias,
// as the CPU kernels do. One invocation per output element.
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint w_data, w_scales, w_type, rows, cols;
  uint bias;          // word offset in the weights, or NONE
  uint x_off, ldx;    // f32 input rows (f32, f16 weights)
  uint xq_off, ldxq;  // int8 input rows, in words (int8 weights)
  uint xs_off;        // their scales
  uint y_off, ldy;
  uint m, m_slot;     // rows: fixed, or io[m_slot]
  uint flags;         // 1: accumulate into y; 2: tanh
  uint row_ids, rows_slot;  // the weight rows to use (io), or NONE: all
} p;

void main() {
  const uint r = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (r >= count_of(p.rows, p.rows_slot) || i >= count_of(p.m, p.m_slot)) return;
  const uint wr = p.row_ids == NONE ? r : io[p.row_ids + r];
  float v;
  if (p.w_type == TYPE_I8) {
    int acc = 0;
    const uint wb = p.w_data * 4u + wr * p.cols;
    const uint xb = (p.xq_off + i * p.ldxq) * 4u;
    for (uint c = 0u; c < p.cols; ++c) {
      const uint wbyte = wb + c, xbyte = xb + c;
      const int wq = bitfieldExtract(int(w[wbyte >> 2u]), int((wbyte & 3u) * 8u), 8);
      const int xq = bitfieldExtract(int(act_u[xbyte >> 2u]), int((xbyte & 3u) * 8u), 8);
      acc += wq * xq;
    }
    v = float(acc) * (weight_f32(p.w_scales + wr) * act[p.xs_off + i]);
  } else {
    float acc = 0.0;
    const uint x0 = p.x_off + i * p.ldx;
    const uint w0 = wr * p.cols;
    for (uint c = 0u; c < p.cols; ++c) acc += weight(p.w_type, p.w_data, w0 + c) * act[x0 + c];
    v = acc;
  }
  if (p.bias != NONE) v += weight_f32(p.bias + wr);
  const uint y = p.y_off + i * p.ldy + r;
  if ((p.flags & 1u) != 0u) v += act[y];
  if ((p.flags & 2u) != 0u) v = tanh(v);
  act[y] = v;
}
