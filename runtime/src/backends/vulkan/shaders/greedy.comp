#version 450
// Greedy search's choice on the device (beam 1), after top-k gave each row
// i < rows its best column (want 1), one workgroup for all rows:
//   - row i's id = vocab_ids[its column], its summed log-probability =
//     row_logp[i] + (logit - lse), both stored for its sentence b at step
//     slot `slot` (out_tok / out_logp [slot, b]), its attention row too
//     (out_att [slot, b, :], when there is one);
//   - the row ends when the id is EOS or the sentence reaches t_max[b]
//     tokens (step t + 1 == t_max[b]), as the search ends it;
//   - the rows that go on become the next step's rows, in order (a prefix
//     sum): their id, sentence, parent (the row i whose state they continue)
//     and log-probability, the row count and the step t + 1.
// Then each greedy grid's row axes (x, y: one group per `per` rows, 0 where
// the axis is not by rows) for the rows that go on: the next step's
// dispatches span those rows, and none once every row has ended.
// A row whose scores are not finite (no column, a non-finite lse or total,
// local-p's position fault) sets the status word and ends: the search
// fails as the host's step() would.
#include "common.glsl"
layout(local_size_x = 256) in;

layout(push_constant) uniform Push {
  uint rows_slot, t_slot, tok_slot, sent_slot, parents_slot, logp_slot, t_max_slot, status_slot;
  uint idx_off, val_off, lse_off, k_stride, vocab_ids, fault_off, eos;
  uint att_off, max_source, out_tok, out_logp, out_att, sentences, slot;
  uint grids, grid_per, grid_count, lens_slot;
} p;

shared uint kept_before[256];

bool finite(float x) { return !isnan(x) && !isinf(x); }

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint rows = io[p.rows_slot];
  const uint step = io[p.t_slot];
  const uint out_base = p.slot * p.sentences;
  // The attention rows first (their sentence's length: what the host
  // reads): the rows' sentences are rewritten below.
  if (p.att_off != NONE) {
    for (uint k = t; k < rows * p.max_source; k += 256u) {
      const uint i = k / p.max_source, j = k - i * p.max_source;
      const uint b = io[p.sent_slot + i];
      if (j < io[p.lens_slot + b]) io_f[p.out_att + (out_base + b) * p.max_source + j] = io_f[p.att_off + k];
    }
  }
  memoryBarrierBuffer();
  barrier();
  uint kept = 0u;
  for (uint first = 0u; first < rows; first += 256u) {
    const uint i = first + t;
    bool goes_on = false;
    uint tok = 0u, b = 0u;
    float logp = 0.0;
    if (i < rows) {
      b = io[p.sent_slot + i];
      const int column = int(io[p.idx_off + i * p.k_stride]);
      const float lse = io_f[p.lse_off + i];
      logp = io_f[p.logp_slot + i] + io_f[p.val_off + i * p.k_stride];
      bool ok = column >= 0 && finite(lse) && finite(logp);
      if (p.fault_off != NONE && io[p.fault_off + i] != 0u) ok = false;
      tok = ok ? io[p.vocab_ids + uint(column)] : p.eos;
      if (!ok) io[p.status_slot] = 1u;
      io[p.out_tok + out_base + b] = tok;
      io_f[p.out_logp + out_base + b] = logp;
      goes_on = ok && tok != p.eos && step + 1u < io[p.t_max_slot + b];
    }
    // Inclusive prefix sum of the rows that go on (Hillis-Steele).
    kept_before[t] = goes_on ? 1u : 0u;
    barrier();
    for (uint d = 1u; d < 256u; d <<= 1u) {
      const uint add = t >= d ? kept_before[t - d] : 0u;
      barrier();
      kept_before[t] += add;
      barrier();
    }
    // Every row of this block was read above; a row moves to a lower index.
    memoryBarrierBuffer();
    barrier();
    if (goes_on) {
      const uint to = kept + kept_before[t] - 1u;
      io[p.tok_slot + to] = tok;
      io[p.sent_slot + to] = b;
      io[p.parents_slot + to] = i;
      io_f[p.logp_slot + to] = logp;
    }
    kept += kept_before[255];
    memoryBarrierBuffer();
    barrier();
  }
  for (uint g = t; g < p.grid_count; g += 256u)
    for (uint axis = 0u; axis < 2u; ++axis) {
      const uint per = io[p.grid_per + 2u * g + axis];
      if (per != 0u) io[p.grids + 3u * g + axis] = (kept + per - 1u) / per;
    }
  if (t == 0u) {
    io[p.rows_slot] = kept;
    io[p.t_slot] = step + 1u;
  }
}
