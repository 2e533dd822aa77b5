#version 450
// Luong attention for rows i < m, one workgroup per row, over the source of
// the row's sentence b (length len), with the top decoder state h:
//   window: global [0, len); local-m centred on min(t, len - 1); local-p on
//     p = len · sigmoid(v_p · tanh(W_p h)) (W_p h precomputed), half-width D;
//   scores in the window: dot h · h_j; general h · (W_a h_j); concat
//     v_a · tanh(W_q h + W_k h_j) (both products precomputed); location
//     (W_loc h)_j (precomputed);
//   a = softmax over the window (local-p: times exp(-(j - p)² / (2 σ²)),
//     σ = D / 2, not renormalised), zeros outside; c = Σ_j a_j h_j.
// Writes a into the I/O block and [c ; h] into row i of ctx. A local-p position
// that is not a number in [0, len] (damaged weights) sets io[fault_slot + i]
// and the window is taken at 0, as the CPU does.
#include "common.glsl"
layout(local_size_x = 64) in;

const uint MAX_SOURCE = 1024u;  // ConfigLimits::kMaxSourceLength
shared float score[MAX_SOURCE];
shared float partial[64];

const uint SCORE_DOT = 1u, SCORE_GENERAL = 2u, SCORE_CONCAT = 3u, SCORE_LOCATION = 4u;
const uint SCOPE_LOCAL_M = 1u, SCOPE_LOCAL_P = 2u;

layout(push_constant) uniform Push {
  uint score_kind, scope, window, t_slot;
  uint h_off, ldh, h_dim;
  uint q_off, ldq;         // concat: W_q h (att_dim); location: W_loc h
  uint qp_off;             // local-p: W_p h (att_dim)
  uint keys_off, key_dim;  // dot: the annotations; general, concat: the keys
  uint v_off, vp_off, att_dim;
  uint ann_off, ann_dim, max_source;
  uint att_off, ctx_off, ldctx;
  uint m, m_slot, sent_slot, lens_slot, fault_slot;
  uint eos_slot;  // a source without EOS: each sentence's positions the encoder read (its EOS's column); NONE
} p;

float reduce_max(float v, uint t) {
  partial[t] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] = max(partial[t], partial[t + s]);
    barrier();
  }
  const float r = partial[0];
  barrier();
  return r;
}

float reduce_sum(float v, uint t) {
  partial[t] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  const float r = partial[0];
  barrier();
  return r;
}

void main() {
  const uint i = gl_WorkGroupID.x;
  const uint t = gl_LocalInvocationID.x;
  if (i >= count_of(p.m, p.m_slot)) return;
  const uint b = io[p.sent_slot + i];
  const int len = int(io[p.lens_slot + b]);
  const uint h = p.h_off + i * p.ldh;
  int lo = 0, hi = len - 1;
  float pos = 0.0;
  if (p.scope == SCOPE_LOCAL_M || p.scope == SCOPE_LOCAL_P) {
    int centre;
    if (p.scope == SCOPE_LOCAL_M) {
      centre = min(int(io[p.t_slot]), len - 1);
    } else {
      float z = 0.0;
      for (uint k = 0u; k < p.att_dim; ++k) z += weight_f32(p.vp_off + k) * tanh(act[p.qp_off + i * p.att_dim + k]);
      const float sig = 1.0 / (1.0 + exp(-z));
      pos = float(len) * sig;
      const bool bad = !(pos >= 0.0 && pos <= float(len));
      if (t == 0u) io[p.fault_slot + i] = bad ? 1u : 0u;
      if (bad) pos = 0.0;
      centre = min(int(floor(pos)), len - 1);
    }
    lo = max(centre - int(p.window), 0);
    hi = min(centre + int(p.window), len - 1);
  }
  for (int j = lo + int(t); j <= hi; j += 64) {
    float e = 0.0;
    if (p.score_kind == SCORE_LOCATION) {
      e = act[p.q_off + i * p.ldq + uint(j)];
    } else {
      const uint key = p.keys_off + (b * p.max_source + uint(j)) * p.key_dim;
      if (p.score_kind == SCORE_CONCAT) {
        for (uint k = 0u; k < p.att_dim; ++k)
          e += weight_f32(p.v_off + k) * tanh(act[p.q_off + i * p.ldq + k] + act[key + k]);
      } else {
        for (uint k = 0u; k < p.h_dim; ++k) e += act[h + k] * act[key + k];
      }
    }
    score[j] = e;
  }
  barrier();
  float mx = -1.0 / 0.0;
  for (int j = lo + int(t); j <= hi; j += 64) mx = max(mx, score[j]);
  mx = reduce_max(mx, t);
  float sum = 0.0;
  for (int j = lo + int(t); j <= hi; j += 64) {
    const float e = exp(score[j] - mx);
    score[j] = e;
    sum += e;
  }
  const float inv = 1.0 / reduce_sum(sum, t);
  const float sigma = float(p.window) / 2.0;
  for (int j = int(t); j < len; j += 64) {
    float a = 0.0;
    if (j >= lo && j <= hi) {
      a = score[j] * inv;
      if (p.scope == SCOPE_LOCAL_P) {
        const float dj = float(j) - pos;
        a *= exp(-(dj * dj) / (2.0 * sigma * sigma));
      }
      score[j] = a;
    }
    io_f[p.att_off + i * p.max_source + uint(j)] = a;
  }
  // The EOS column the encoder skipped: weight 0 (past the attended positions).
  if (p.eos_slot != NONE && t == 0u) {
    const uint eos_at = io[p.eos_slot + b];
    if (eos_at >= 1u) io_f[p.att_off + i * p.max_source + eos_at] = 0.0;
  }
  barrier();
  for (uint k = t; k < p.ann_dim; k += 64u) {
    float c = 0.0;
    for (int j = lo; j <= hi; ++j) c += score[j] * act[p.ann_off + (b * p.max_source + uint(j)) * p.ann_dim + k];
    act[p.ctx_off + i * p.ldctx + k] = c;
  }
  // h after c: the row [c ; h] that W_c multiplies.
  for (uint k = t; k < p.h_dim; k += 64u) act[p.ctx_off + i * p.ldctx + p.ann_dim + k] = act[h + k];
}
