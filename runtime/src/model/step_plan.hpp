// The model written once: the encoder and one decoder step (DESIGN.md, "The
// model"; models/softalign_ref/model.py) as short lists of operations,
// planned from the config at prepare. Every backend runs these lists with its
// own implementation of each operation — the CPU engine with its kernel
// table (CpuEngine::run_encoder_op, run_step_op), the Vulkan engine with
// compute shaders (VulkanEngine::record_encoder_op, record_step_op) — so which
// operations a variant runs, and in which order, is decided here only; a
// backend says how each one is computed. (As ncnn's layers or ggml's ops: one
// graph, an implementation per backend.)
#pragma once

#include <vector>

#include "softalign/config.hpp"

namespace softalign::internal {

enum class EncoderOp {
  // The source embeddings E x_j.
  kEmbed,
  // Bidirectional GRU layer `layer` over the positions of each source:
  // →h_j = GRU(x_j, →h_{j-1}), ←h_j = GRU(x_j, ←h_{j+1}) from zero states,
  // x the embeddings (layer 0) or the layer below's [→h_j ; ←h_j]; the last
  // layer's rows are the annotations h_j.
  kLayer,
  // The attention keys, once per source: U_a h_j + b_a (bahdanau), W_a h_j
  // (luong general), W_k h_j (luong concat); dot and location need none.
  kKeys,
  // encdec: the fixed context c = [→h_{S-1} ; ←h_0].
  kFixedContext,
  // Each decoder layer's initial state s_0 = tanh(W_bridge x + b_bridge),
  // x = ←h_0 (encdec: c); input feeding's h~_{-1} = 0.
  kBridge,
};

// One planned operation: its kind, and for a layer's operation (kLayer, kGru) the layer.
template <typename Op>
struct Operation {
  Op op;
  int layer = 0;
};
using EncoderOperation = Operation<EncoderOp>;

// The operations of the encoder of a model with this config, in order.
std::vector<EncoderOperation> plan_encoder(const ModelConfig& c);

// kKeys' projection in a backend's weights (the same member names in each):
// its matrix, and its bias (bahdanau's b_a; `none` for the others).
template <typename Weights>
const auto& key_matrix(const ModelConfig& c, const Weights& w) {
  return c.variant == Variant::kBahdanau ? w.att_U_a : c.score == Score::kGeneral ? w.att_W_a : w.att_W_k;
}
template <typename Weights, typename Bias>
Bias key_bias(const ModelConfig& c, const Weights& w, Bias none) {
  return c.variant == Variant::kBahdanau ? w.att_U_a_b : none;
}

enum class StepOp {
  // The rows' inputs: E y_{t-1} for each row's last token, and the GRU's
  // input row x = [E y ; fed]: the fixed context c (encdec), h~_{t-1}
  // (luong with input feeding), nothing (luong); bahdanau's c comes from
  // kAttendAdditive. (Where a row's previous state is gathered from its
  // parent is the backend's: the CPU at reorder, Vulkan here.)
  kInput,
  // bahdanau: the query q = W_a s_{t-1} (the top layer's previous state).
  kQuery,
  // bahdanau: e_j = v_aᵀ tanh(q + U_a h_j + b_a), α = softmax(e),
  // c = Σ_j α_j h_j; then x = [E y ; c].
  kAttendAdditive,
  // GRU layer `layer`: s_t = GRU(x (layer 0) or the new state of the layer
  // below, s_{t-1}).
  kGru,
  // luong: the scores of the new top state h over the scope's window (dot,
  // general, concat, location; global, local-m, local-p), softmax there
  // (local-p: times the Gaussian), c = Σ_j a_j h_j; the row [c ; h].
  kAttendLuong,
  // luong: h~ = tanh(W_c [c ; h]), the output layer's input (and, with input
  // feeding, the next step's fed input).
  kCombine,
  // bahdanau, encdec: t = maxout_2(U_o s_t + b_o + V_o E y_{t-1} + C_o c),
  // the output layer's input.
  kMaxout,
  // logits = W_o t + b_o (or W_o h~ + b_o) over the vocabulary, or over each
  // sentence's shortlist.
  kOutput,
};

using StepOperation = Operation<StepOp>;

// The operations of one decoder step of a model with this config, in order.
std::vector<StepOperation> plan_decoder_step(const ModelConfig& c);

}  // namespace softalign::internal
