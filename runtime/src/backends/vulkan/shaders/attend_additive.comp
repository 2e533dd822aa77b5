#version 450
// Additive (Bahdanau) attention for rows i < m, one workgroup per row: over
// the source of the row's sentence b (length len_b),
//   e_j = v · tanh(q_i + keys[b, j]),  α = softmax(e),  c_i = Σ_j α_j h[b, j].
// Writes α into the I/O block (the host reads the attention rows) and c into
// row i of ctx.
#include "common.glsl"
layout(local_size_x = 64) in;

const uint MAX_SOURCE = 1024u;  // ConfigLimits::kMaxSourceLength
shared float score[MAX_SOURCE];
shared float partial[64];

layout(push_constant) uniform Push {
  uint q_off, keys_off, v_off, ann_off, att_off, ctx_off, ldctx;
  uint dim, ann_dim, max_source;
  uint m, m_slot, sent_slot, lens_slot;
  uint eos_slot;  // a source without EOS: each sentence's positions the encoder read (its EOS's column); NONE
} p;

void main() {
  const uint i = gl_WorkGroupID.x;
  const uint t = gl_LocalInvocationID.x;
  if (i >= count_of(p.m, p.m_slot)) return;
  const uint b = io[p.sent_slot + i];
  const uint len = io[p.lens_slot + b];
  const uint q = p.q_off + i * p.dim;
  for (uint j = t; j < len; j += 64u) {
    const uint key = p.keys_off + (b * p.max_source + j) * p.dim;
    float e = 0.0;
    for (uint k = 0u; k < p.dim; ++k) e += weight_f32(p.v_off + k) * tanh(act[q + k] + act[key + k]);
    score[j] = e;
  }
  barrier();
  // Softmax: the max, then the sum of exponentials.
  float mx = -1.0 / 0.0;
  for (uint j = t; j < len; j += 64u) mx = max(mx, score[j]);
  partial[t] = mx;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] = max(partial[t], partial[t + s]);
    barrier();
  }
  mx = partial[0];
  barrier();
  float sum = 0.0;
  for (uint j = t; j < len; j += 64u) {
    const float e = exp(score[j] - mx);
    score[j] = e;
    sum += e;
  }
  partial[t] = sum;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  const float inv = 1.0 / partial[0];
  barrier();
  for (uint j = t; j < len; j += 64u) {
    score[j] *= inv;
    io_f[p.att_off + i * p.max_source + j] = score[j];
  }
  // The EOS column the encoder skipped: weight 0 (past the attended positions).
  if (p.eos_slot != NONE && t == 0u) {
    const uint eos_at = io[p.eos_slot + b];
    if (eos_at >= 1u) io_f[p.att_off + i * p.max_source + eos_at] = 0.0;
  }
  barrier();
  for (uint k = t; k < p.ann_dim; k += 64u) {
    float c = 0.0;
    for (uint j = 0u; j < len; ++j) c += score[j] * act[p.ann_off + (b * p.max_source + j) * p.ann_dim + k];
    act[p.ctx_off + i * p.ldctx + k] = c;
  }
}
