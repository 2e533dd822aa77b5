// The tensors a model gives its engines: every tensor of WEIGHTS_FORMAT.md
// as the file maps it (kernels::Matrix: any storage type, in place). The
// model (model/model_impl.hpp) fills them at load; the plan's operations
// (ops.hpp) point at them; a backend reads them through the operations, or
// uploads the set once (Vulkan).
#pragma once

#include <vector>

#include "kernels/kernels.hpp"

namespace softalign::internal {

using kernels::Matrix;

// One GRU or LSTM layer (one direction): W_ih [gates·h, in], W_hh [gates·h,
// h], biases [gates·h]; gates 3 (r, z, n) or 4 (i, f, g, o).
struct RnnWeights {
  Matrix w_ih, w_hh;
  const float* b_ih = nullptr;
  const float* b_hh = nullptr;
  int input = 0;
  int hidden = 0;
};

// Every tensor of WEIGHTS_FORMAT.md; the ones a variant does not use stay empty.
struct Weights {
  Matrix src_emb, tgt_emb;
  std::vector<RnnWeights> enc_fwd, enc_bwd, dec;  // enc_bwd empty for a one-way encoder
  Matrix bridge_w, bridge_c_w;  // bridge_c: relu-final's for LSTM cells
  const float* bridge_b = nullptr;
  const float* bridge_c_b = nullptr;
  // bahdanau: W_a [a, d], U_a [a, 2n] + b; luong general: W_a [d, 2n]
  Matrix att_W_a, att_U_a;
  const float* att_U_a_b = nullptr;
  const float* att_v_a = nullptr;  // [a] (bahdanau, luong concat)
  Matrix att_W_q, att_W_k, att_W_loc, att_W_p;
  const float* att_W_q_b = nullptr;  // luong concat with query_bias
  const float* att_v_p = nullptr;  // [a]
  // bahdanau / encdec output
  Matrix out_U_o, out_V_o, out_C_o;
  const float* out_U_o_b = nullptr;
  // luong output
  Matrix dec_W_c;
  const float* dec_W_c_b = nullptr;  // combine_bias
  Matrix gen_w;
  const float* gen_b = nullptr;
};

}  // namespace softalign::internal
