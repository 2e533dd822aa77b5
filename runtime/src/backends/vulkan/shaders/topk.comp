#version 450
// Log-softmax fused with top-k, one workgroup per row i < m: lse = log Σ exp
// of the row's width = io[width_slot] logits (columns outside the row's
// sentence's own shortlist, when io[mask_on_slot] says so, count as -inf),
// then its want_i best columns, best first (ties: the lower column), as
// (column, logit - lse) into the I/O block. The host merges a sentence's
// rows; it never reads the vocabulary. A column of -1 means fewer candidates
// than asked (non-finite logits).
#include "common.glsl"
layout(local_size_x = 256) in;

shared float best_v[256];
shared int best_j[256];
shared float red[256];

layout(push_constant) uniform Push {
  uint x_off, ldx, width_slot, k_stride;
  uint m, m_slot, want_slot;
  uint idx_off, val_off, lse_off;
  uint mask_off, mask_words, mask_on_slot, sent_slot;  // mask bits [sentence, column]; mask_off NONE: none
} p;

uint width;
uint mask_row;  // the word offset of this row's sentence's mask bits, or NONE

float logit(uint x0, uint c) {
  if (mask_row != NONE && ((io[mask_row + (c >> 5u)] >> (c & 31u)) & 1u) == 0u) return -1.0 / 0.0;
  return act[x0 + c];
}

// (v, j) before (bv, bj) in the order: larger value first, then the lower column.
bool before(float v, int j, float bv, int bj) { return bj < 0 || v > bv || (v == bv && j < bj); }

void main() {
  const uint i = gl_WorkGroupID.x;
  const uint t = gl_LocalInvocationID.x;
  if (i >= count_of(p.m, p.m_slot)) return;
  width = io[p.width_slot];
  mask_row = p.mask_off != NONE && io[p.mask_on_slot] != 0u ? p.mask_off + io[p.sent_slot + i] * p.mask_words : NONE;
  const uint x0 = p.x_off + i * p.ldx;
  // The best column (the first pick, and the max for the log-sum-exp): each
  // invocation's, then the workgroup's.
  float bv = 0.0;
  int bj = -1;
  for (uint c = t; c < width; c += 256u) {
    const float v = logit(x0, c);
    if (!isnan(v) && before(v, int(c), bv, bj)) {
      bv = v;
      bj = int(c);
    }
  }
  best_v[t] = bv;
  best_j[t] = bj;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (t < s && best_j[t + s] >= 0 && before(best_v[t + s], best_j[t + s], best_v[t], best_j[t])) {
      best_v[t] = best_v[t + s];
      best_j[t] = best_j[t + s];
    }
    barrier();
  }
  const float mx = best_j[0] >= 0 ? best_v[0] : -1.0 / 0.0;
  float prev_v = best_v[0];
  int prev_j = best_j[0];
  float sum = 0.0;
  for (uint c = t; c < width; c += 256u) sum += exp(logit(x0, c) - mx);
  red[t] = sum;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (t < s) red[t] += red[t + s];
    barrier();
  }
  const float lse = mx + log(red[0]);
  if (t == 0u) io_f[p.lse_off + i] = lse;
  const uint want = io[p.want_slot + i];
  if (want == 0u) return;
  if (t == 0u) {
    io[p.idx_off + i * p.k_stride] = uint(prev_j);
    io_f[p.val_off + i * p.k_stride] = prev_v - lse;
  }
  // Round r picks the best entry strictly after the previous pick in the order.
  for (uint r = 1u; r < want && prev_j >= 0; ++r) {
    bv = 0.0;
    bj = -1;
    for (uint c = t; c < width; c += 256u) {
      const float v = logit(x0, c);
      const int j = int(c);
      const bool after_prev = v < prev_v || (v == prev_v && j > prev_j);
      if (after_prev && before(v, j, bv, bj)) {
        bv = v;
        bj = j;
      }
    }
    barrier();
    best_v[t] = bv;
    best_j[t] = bj;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
      if (t < s && best_j[t + s] >= 0 && before(best_v[t + s], best_j[t + s], best_v[t], best_j[t])) {
        best_v[t] = best_v[t + s];
        best_j[t] = best_j[t + s];
      }
      barrier();
    }
    prev_v = best_v[0];
    prev_j = best_j[0];
    if (t == 0u) {
      io[p.idx_off + i * p.k_stride + r] = uint(prev_j);
      io_f[p.val_off + i * p.k_stride + r] = prev_v - lse;
    }
  }
}
