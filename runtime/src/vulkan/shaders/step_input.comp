#version 450
// What a decoder step starts from, for rows i < m, in one pass:
//   state_cur[i, :] = state_next[parent_i, :]  (the rows the search kept;
//     parent_i = io[parents_slot + i]);
//   x[i, 0:e] = the target embedding of io[tok_slot + i] (int8: times its row scale);
//   x[i, e:e + feed_cols] = encdec's fixed context of the row's sentence
//     (feed 1), or luong's h~ of the parent row (feed 2: input feeding).
// One invocation per element of [state | embedding | feed].
#include "common.glsl"
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  uint next_off, cur_off, state_w, parents_slot;
  uint emb_data, emb_scales, emb_type, e;
  uint x_off, ldx;
  uint m, m_slot, tok_slot, sent_slot;
  uint feed, feed_off, feed_ld, feed_cols;
} p;

void main() {
  const uint c = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  if (i >= count_of(p.m, p.m_slot)) return;
  const uint parent = io[p.parents_slot + i];
  if (c < p.state_w) {
    act[p.cur_off + i * p.state_w + c] = act[p.next_off + parent * p.state_w + c];
    return;
  }
  const uint k = c - p.state_w;
  if (k < p.e) {
    const uint tok = io[p.tok_slot + i];
    float v = weight(p.emb_type, p.emb_data, tok * p.e + k);
    if (p.emb_type == TYPE_I8) v *= weight_f32(p.emb_scales + tok);
    act[p.x_off + i * p.ldx + k] = v;
    return;
  }
  const uint f = k - p.e;
  if (p.feed == 0u || f >= p.feed_cols) return;
  const uint src = p.feed == 1u ? io[p.sent_slot + i] : parent;
  act[p.x_off + i * p.ldx + p.e + f] = act[p.feed_off + src * p.feed_ld + f];
}
