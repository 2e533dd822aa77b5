#version 450
// What a decoder step starts from, for rows i < m, in one pass:
//   state_cur[i, :] = state_next[parent_i, :]  (the rows the search kept;
//     parent_i = io[parents_slot + i]);
//   x[i, 0:e] = the target embedding of io[tok_slot + i] (int8: times its row scale);
//   x[i, e:e + feed_cols] = encdec's fixed context of the row's sentence
//     (feed 1), or luong's h~ of the parent row (feed 2: input feeding).
// It reads the step's control words from the host's I/O block (binding 3)
// and copies them into the device's copy for the kernels after it: the row
// count and step, each row's token, sentence, parent and wanted candidates.
// In greedy steps on the device (FROM_DEVICE) they are in the device's copy
// already, where greedy.comp left them.
// One invocation per element of [state | embedding | feed].
#include "common.glsl"
layout(local_size_x = 64) in;

// The embedding table's storage type, fixed per pipeline (vulkan_device.hpp's Specialization).
layout(constant_id = 0) const uint TABLE_TYPE = TYPE_F32;
// Whether the control words are in the device's copy (1) or the host's block (0).
layout(constant_id = 1) const uint FROM_DEVICE = 0u;

uint control(uint slot) { return FROM_DEVICE != 0u ? io[slot] : host[slot]; }

layout(push_constant) uniform Push {
  uint next_off, cur_off, state_w, parents_slot;
  uint emb_data, emb_scales, e;
  uint x_off, ldx;
  uint m, m_slot, tok_slot, sent_slot;
  uint feed, feed_off, feed_ld, feed_cols;
  uint t_slot, want_slot;
} p;

void main() {
  const uint c = gl_GlobalInvocationID.x;
  const uint i = gl_GlobalInvocationID.y;
  const uint rows = p.m_slot == NONE ? p.m : control(p.m_slot);
  if (FROM_DEVICE == 0u && c == 0u && i == 0u && p.m_slot != NONE) {
    io[p.m_slot] = rows;
    io[p.t_slot] = host[p.t_slot];
  }
  if (i >= rows) return;
  const uint parent = control(p.parents_slot + i);
  if (FROM_DEVICE == 0u && c == 0u) {
    io[p.parents_slot + i] = parent;
    io[p.tok_slot + i] = host[p.tok_slot + i];
    io[p.sent_slot + i] = host[p.sent_slot + i];
    io[p.want_slot + i] = host[p.want_slot + i];
  }
  if (c < p.state_w) {
    act[p.cur_off + i * p.state_w + c] = act[p.next_off + parent * p.state_w + c];
    return;
  }
  const uint k = c - p.state_w;
  if (k < p.e) {
    const uint tok = control(p.tok_slot + i);
    float v = weight(TABLE_TYPE, p.emb_data, tok * p.e + k);
    if (TABLE_TYPE == TYPE_I8) v *= weight_f32(p.emb_scales + tok);
    act[p.x_off + i * p.ldx + k] = v;
    return;
  }
  const uint f = k - p.e;
  if (p.feed == 0u || f >= p.feed_cols) return;
  const uint src = p.feed == 1u ? control(p.sent_slot + i) : parent;
  act[p.x_off + i * p.ldx + p.e + f] = act[p.feed_off + src * p.feed_ld + f];
}
