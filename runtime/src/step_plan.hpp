// The decoder step, written once: the model's equations (DESIGN.md, "The
// model"; models/softalign_ref/model.py) as a short list of operations,
// planned from the config at prepare. Every backend runs this list with its
// own implementation of each operation — the CPU engine with its kernel
// table (CpuEngine::run_step_op), the Vulkan engine with compute shaders
// (VulkanEngine::record_step_op) — so which operations a variant runs, and in
// which order, is decided here only; a backend says how each one is computed.
// (As ncnn's layers or ggml's ops: one graph, an implementation per backend.)
#pragma once

#include <vector>

#include "softalign/config.hpp"

namespace softalign::internal {

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

struct StepOperation {
  StepOp op;
  int layer = 0;  // kGru: which layer
};

// The operations of one decoder step of a model with this config, in order.
std::vector<StepOperation> plan_decoder_step(const ModelConfig& c);

}  // namespace softalign::internal
