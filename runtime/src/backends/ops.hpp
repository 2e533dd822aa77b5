// The op interface: the model as a plan of operations, each carrying its
// operands — its kind, its weights, its inputs, and the parameters that say
// what it computes (which scores, which window, what the GRU reads). The
// plan is made once per model from its config (model/step_plan.hpp, the only
// place that reads the variant, score and scope); an engine implements each
// kind of operation from the operation alone and never reads the config
// (as ggml's backends implement ops and ncnn's layers run per backend).
// Every backend implements the base operations (the encoder's, and the
// step's gathers, products and cells); an attention operation a device
// engine does not support runs on the host with the CPU's implementation
// (backends/cpu/attention.hpp; VulkanEngine::supports), as ncnn's Vulkan
// layers fall back to their CPU layers.
//
// The buffers an operation reads and writes are the engine's, named here by
// their role: the annotations h_j ([S, A] a source, A = directions × n), the
// keys ([S, key_dim]), the encoder's final states ([L_e, A], and the cells'
// with LSTM), the fixed context c ([A]), each row's decoder state ([state
// size]: every layer's s, then every layer's cell with LSTM, then h~ where it
// is fed back), the decoder's input row [E y ; fed], the attention row and
// context, the output layer's input.
#pragma once

#include <vector>

#include "backends/weights.hpp"

namespace softalign::internal {

// The sizes of a planned model (floats of each buffer's row).
struct PlanShapes {
  int emb = 0;         // e: the embeddings (source and target)
  int enc_hidden = 0;  // n: one encoder direction
  int directions = 2;  // the encoder's: 2 (both ways) or 1
  int ann = 0;         // A = directions × n: the annotations' width
  Cell cell = Cell::kGru;  // the encoder's and the decoder's cells
  int gates = 3;       // gate blocks of the cell: 3 (GRU) or 4 (LSTM)
  int dec_hidden = 0;  // d
  int att_hidden = 0;  // a: additive attention's hidden size, local-p's position layer
  int maxout = 0;      // l: the maxout's output
  int vocab = 0;       // V: the target vocabulary
  int enc_layers = 0;
  int dec_layers = 0;
  int key_dim = 0;     // columns of the attention keys (0: the plan has no kKeys)
  int state_size = 0;  // floats of decoder state a row carries
  int cell_offset = 0; // where a state row's cells start (LSTM: after the L_d states; GRU: none, 0)
  int fed_offset = 0;  // where a state row's fed-back h~ starts
  int fed = 0;         // columns after E y in the decoder's input row (0, A or d: kInput's FedInput)
  // The encoder reads a source's ids but its last (EOS): attention then covers
  // max(1, S - 1) positions, and the EOS position's weight is 0.
  bool skip_source_eos = false;
  int output_in = 0;   // the output layer's input (l after kMaxout, d after kCombine)
  int eos_id = 0;
  WeightType weight_type = WeightType::kF32;  // the stored precision of the matrices
};

enum class EncoderOp {
  // The source embeddings E x_j (matrix: E_src).
  kEmbed,
  // Encoder layer `layer` over the positions of each source, in one or both
  // directions: →h_j = cell(x_j, →h_{j-1}), ←h_j = cell(x_j, ←h_{j+1}) from
  // zero states, x the embeddings (layer 0) or the layer below's outputs;
  // its rows [→h_j ; ←h_j] (one-way: h_j) are the next layer's input, the
  // last layer's the annotations (forward, backward: the directions; a
  // one-way layer has forward only, which runs right to left when
  // reverse). Each direction's last state (and cell) is the layer's final
  // state F_layer (WEIGHTS_FORMAT.md).
  kLayer,
  // The attention keys, once per source: matrix h_j (+ bias), key_dim columns.
  kKeys,
  // The fixed context c = F_top, the top layer's final states ([→h_{S-1} ; ←h_0]).
  kFixedContext,
  // Each decoder layer's initial state (and cell), as `init` says
  // (WEIGHTS_FORMAT.md "Bridge"); the rest of the state (a fed-back h~) zeros.
  kBridge,
};

struct EncoderOperation {
  EncoderOp op;
  int layer = 0;                          // kLayer
  const Matrix* matrix = nullptr;         // kEmbed, kKeys, kBridge
  const float* bias = nullptr;            // kKeys (none: null), kBridge
  const RnnWeights* forward = nullptr;    // kLayer
  const RnnWeights* backward = nullptr;   // kLayer (null: one-way)
  bool reverse = false;                   // kLayer, one-way: the direction runs right to left
  DecoderInit init = DecoderInit::kTanhBackward;  // kBridge
  const Matrix* cell_matrix = nullptr;    // kBridge, relu-final with LSTM: the cells' W
  const float* cell_bias = nullptr;       // its b
};

enum class StepOp {
  // The rows' inputs: E y_{t-1} for each row's last token (matrix: E_tgt),
  // and the GRU input row [E y ; fed] (FedInput). With zero_attention, the
  // step attends nowhere: each row's attention row is zeros. (Where a row's
  // previous state is gathered from its parent is the backend's.)
  kInput,
  // The query q = matrix s_{t-1} (the top layer's previous state).
  kQuery,
  // Additive attention with the query: e_j = vectorᵀ tanh(q + key_j),
  // α = softmax(e), c = Σ_j α_j h_j; then the GRU input row [E y ; c].
  kAttendAdditive,
  // Decoder layer `layer` (rnn): s_t = cell(x, s_{t-1}) (LSTM: and its
  // cell); x is layer 0's rnn_input, a higher layer's the new state of the
  // layer below.
  kRnn,
  // Attention with the new top state h: the scores over the window, a
  // softmax there (Window::kPredicted: times the Gaussian), zeros outside,
  // c = Σ_j a_j h_j; the row [c ; h].
  kAttendWithState,
  // h~ = tanh(matrix [c ; h] + bias) (bias: none when null; no tanh unless
  // tanh), the output layer's input; with feed_back also the next step's fed
  // input (the state's h~).
  kCombine,
  // t = maxout_2(from_state s_t + bias + from_embedding E y_{t-1} +
  // from_context c), the output layer's input.
  kMaxout,
  // logits = matrix x + bias over the vocabulary, or over each sentence's
  // shortlist; x the output layer's input.
  kOutput,
};

// What follows E y in the GRU input row.
enum class FedInput {
  kNone,           // nothing (the row is E y)
  kFixedContext,   // c, the same every step
  kAttentional,    // h~_{t-1}: the state's d floats at fed_offset (zeros at the first step)
  kAttention,      // c of this step's kAttendAdditive, which writes it
};

// What decoder layer 0 reads.
enum class RnnInput {
  kRow,        // the input row [E y ; fed]
  kEmbedding,  // E y alone
};

// kAttendWithState's score of source position j for the state h.
enum class Scores {
  kDot,       // hᵀ h_j
  kDotKeys,   // hᵀ key_j
  kAdditive,  // vectorᵀ tanh(matrix h + bias + key_j)
  kPosition,  // (matrix h)_j: one weight row per source position
};

// kAttendWithState's window [p - D, p + D] ∩ the source.
enum class Window {
  kAll,        // the whole source
  kAtStep,     // p = min(t, S - 1)
  kPredicted,  // p = S sigmoid(vectorᵀ tanh(position h)) (position_vector), times exp(-(j - p)² / (2 (D/2)²));
               // a position that is not a number (damaged weights) is a fault of the step
};

struct StepOperation {
  StepOp op;
  int layer = 0;                       // kRnn
  const Matrix* matrix = nullptr;      // kInput, kQuery, kAttendWithState (kAdditive, kPosition), kCombine, kOutput
  const float* bias = nullptr;         // kMaxout, kOutput, kCombine and kAttendWithState (kAdditive): none when null
  const float* vector = nullptr;       // kAttendAdditive, kAttendWithState (kAdditive)
  FedInput fed = FedInput::kNone;      // kInput
  bool zero_attention = false;         // kInput
  const RnnWeights* rnn = nullptr;     // kRnn
  RnnInput rnn_input = RnnInput::kRow; // kRnn, layer 0
  Scores scores = Scores::kDot;        // kAttendWithState
  Window window = Window::kAll;        // kAttendWithState
  int window_d = 0;                    // kAttendWithState: D
  const Matrix* position = nullptr;    // kAttendWithState, Window::kPredicted: W_p
  const float* position_vector = nullptr;  // kAttendWithState, Window::kPredicted: v_p
  bool feed_back = false;              // kCombine
  bool tanh = true;                    // kCombine
  const Matrix* from_state = nullptr;      // kMaxout
  const Matrix* from_embedding = nullptr;  // kMaxout
  const Matrix* from_context = nullptr;    // kMaxout
};

// A model's plan: its sizes, the encoder's operations and one decoder step's, in order.
struct Plan {
  PlanShapes shapes;
  std::vector<EncoderOperation> encoder;
  std::vector<StepOperation> step;
  // The step's operation of this kind (the first), or null.
  const StepOperation* find(StepOp op) const {
    for (const StepOperation& s : step)
      if (s.op == op) return &s;
    return nullptr;
  }
  const EncoderOperation* find(EncoderOp op) const {
    for (const EncoderOperation& e : encoder)
      if (e.op == op) return &e;
    return nullptr;
  }
};

}  // namespace softalign::internal
