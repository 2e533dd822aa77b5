// The CPU engine: the decoder engine (engine.hpp) on the kernel table of
// this CPU (kernels/): the model's plan (ops.hpp), each kind of operation
// implemented here from the operation alone, over the weights as the file
// maps them, every working buffer in the translator's arena.
#pragma once

#include <memory>
#include <vector>

#include "backends/cpu/attention.hpp"
#include "backends/cpu/cpu_shortlist.hpp"
#include "backends/cpu/cpu_weights.hpp"
#include "backends/cpu/linear.hpp"
#include "backends/engine.hpp"
#include "backends/ops.hpp"
#include "backends/shortlist.hpp"
#include "kernels/kernels.hpp"

struct pthreadpool;

namespace softalign::internal {

class CpuEngine final : public Engine {
 public:
  // `plan`: the model's (it outlives the engine). `pool`: the translator's
  // own thread pool for the intra-sentence work (null: one thread). `shortlist`: the
  // vocabulary shortlist to select from (the model's; an ensemble's members
  // all use their first member's).
  CpuEngine(const Plan& plan, const ShortlistTable& shortlist, std::unique_ptr<const CpuWeights> weights,
            const kernels::KernelTable& kernels, pthreadpool* pool, const EngineLimits& limits);

  const char* name() const override { return "cpu"; }
  void layout(Arena& arena) override;
  void select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) override;
  void start(const int32_t* const* srcs, const int* lens, int n) override;
  const float* attention(int row) const override { return att_step_ + static_cast<std::size_t>(row) * S_; }
  void reorder(const int32_t* parents, int n) override;
  bool force_step(int32_t token, int t, float* logits) override;
  bool log_probs(const StepGroups& groups, const int32_t* tokens, int t) override;
  float* log_prob_rows() override { return logits_; }
  const SentenceVocabularies& vocabulary() const override { return vocab_; }
  // Beams of 32 sentences together ran at 0.97x the sentences/s of one by one
  // for int8 weights on kernels that do not take int8 inputs in vector lanes
  // (AVX2, NEON; shipped en→fr, its shortlist on and off), where AVX-512
  // VNNI's lanes ran them 1.10x with the shortlist and 1.38x without, and f32
  // weights 1.8-1.9x on either (tests/bench/README.md, "One engine").
  bool batches_beams() const override {
    return shapes_.weight_type != WeightType::kI8 || k_.i8_lanes_min_inputs > 0;
  }

 private:
  // Points ann_, keys_buf_, finals_ and fixed_ctx_ at sentence b's; returns
  // the positions its attention covers.
  int use_sentence(int b);
  // Sentence b's annotations, keys and length (attention.hpp).
  SourceMemory memory(int b) const;
  // The encoder's operations (plan_.encoder) for n sources.
  void run_encoder_op(const EncoderOperation& op, const int32_t* const* srcs, const int* lens, int n);
  // Layer op.layer of one source of s tokens (its annotations into sentence 0's ann_ after the last).
  void encode_layer(const EncoderOperation& op, int s);
  // Layer op.layer of sentences 0..n together (the last into ann_all_).
  void encode_layer_together(const EncoderOperation& op, const int32_t* const* srcs, const int* lens, int n);
  void init_state(const EncoderOperation& bridge, float* state);
  // One step of a recurrent cell: GRU h_out = cell(gi, gh, h); LSTM (h_out,
  // c) = cell(gi, gh, c), c updated in place.
  void cell_step(const float* gi, const float* gh, const float* h, float* c, int hidden, float* h_out) const;
  // The decoder for `count` rows: tokens[i], state_cur_ rows → state_next_
  // rows (row i of sentence row_sent_[i]), attention rows att_step_, logits
  // rows (width columns) into `logits`: the step's operations (plan_.step) in turn.
  void decode(int count, const int32_t* tokens, int t, float* logits);
  void run_step_op(const StepOperation& op, int count, const int32_t* tokens, int t, float* logits);
  void fill_x(int count, const float* fed, std::size_t stride, std::size_t width);
  void zero_skipped_eos(int row);
  void rnn_layer(const StepOperation& op, int count);
  // The output layer for `count` rows into consecutive logits blocks, one
  // per run of rows of a sentence (rows × that sentence's vocabulary).
  void output_layer(int count, float* logits);
  void rows_product(const kernels::Matrix& w, const float* x, int count, const float* bias, float* y);

  const Plan& plan_;        // the encoder's and the step's operations (ops.hpp)
  const PlanShapes& shapes_;
  const Matrix& src_emb_;   // the encoder's kEmbed matrix (a batch's layer 0 reads it position by position)
  const StepOperation& output_;  // the step's kOutput
  const std::unique_ptr<const CpuWeights> cw_;  // this engine's linear layers (cpu_weights.hpp)
  const kernels::KernelTable& k_;
  pthreadpool* const pool_;
  const int S_, K_, B_;
  const ShortlistTable& table_;  // the shortlist selected from
  SentenceVocabularies vocab_;  // each sentence's target vocabulary, when the shortlist is on
  PackedOutputRows packed_;     // the output layer's rows of those vocabularies
  bool shortlist_room_;

  bool nonfinite_ = false;  // a step met a NaN where it would become an index (damaged weights)

  // Sizes.
  int n_ = 0, d_ = 0, e_ = 0, a_ = 0, l_ = 0, V_ = 0;
  int A_ = 0;           // the annotations' width (directions × n)
  int g_ = 0;           // gate blocks of the cell (3 GRU, 4 LSTM)
  bool lstm_ = false;
  int key_dim_ = 0;     // columns of the keys (0: none; dot uses the annotations)
  int state_size_ = 0;  // floats per row: dec_layers * d (twice with LSTM) (+ d for input feeding)
  int gen_in_ = 0;      // generator input size (l or d)

  // Buffers (see layout()).
  float* enc_a_ = nullptr;   // [S, max(e, A)] layer input / output (ping-pong)
  float* enc_b_ = nullptr;
  float* gi_f_ = nullptr;    // [S, g n]
  float* gi_b_ = nullptr;
  float* gh_ = nullptr;      // [g max(n, d)]
  float* h_ = nullptr;       // [max(n, d)]
  float* c_ = nullptr;       // [max(n, d)] the LSTM's cell
  // encode_layer_together's rows, one per sentence still running ([B, ...]).
  float* enc_x_ = nullptr;   // [B, max(e, A)] inputs
  float* enc_gi_ = nullptr;  // [B, g n]
  float* enc_gh_ = nullptr;  // [B, g n]
  float* enc_hq_ = nullptr;  // [B, n] previous states, gathered
  float* enc_h_ = nullptr;   // [B, n] each sentence's state
  float* enc_c_ = nullptr;   // [B, n] each sentence's cell (LSTM)
  int32_t* enc_rows_ = nullptr;  // [B] the sentence of each row
  int32_t* enc_pos_ = nullptr;   // [B] its position
  float* enc_all_ = nullptr;     // [B, S, A] the other layer's outputs (enc_layers > 1 only)
  // Per sentence of the batch: annotations, attention keys, the encoder's
  // final states (and cells), the positions the encoder reads and the ones
  // attention covers; and the current sentence's (use_sentence).
  float* ann_all_ = nullptr;    // [B, S, A]
  float* keys_all_ = nullptr;   // [B, S, key_dim]
  float* finals_all_ = nullptr;       // [B, L_e, A]: F_0 .. F_{L_e - 1}
  float* final_cells_all_ = nullptr;  // [B, L_e, A] (LSTM)
  int32_t* enc_len_ = nullptr;  // [B] positions the encoder reads
  int32_t* src_len_ = nullptr;  // [B] positions attention covers
  int32_t* row_sent_ = nullptr; // [B K] the sentence of each row of the step
  float* ann_ = nullptr;        // [S, A]
  float* keys_buf_ = nullptr;   // [S, key_dim]
  float* finals_ = nullptr;     // [L_e, A]
  float* final_cells_ = nullptr;
  float* fixed_ctx_ = nullptr;  // [A]: the top layer's final states
  int8_t* xq_ = nullptr;        // quantized activations scratch (rows × cols of the widest product)
  float* xs_ = nullptr;         // their per-row scales
  float* state_cur_ = nullptr;  // [K, state_size]
  float* state_next_ = nullptr;
  float* q_ = nullptr;          // [max(a, d)]
  // Per-row buffers of the decoder step ([K, ...]).
  float* emb_all_ = nullptr;    // [K, e]
  float* x_all_ = nullptr;      // [K, e + max(A, d)] decoder stack input
  float* gi_all_ = nullptr;     // [K, g d]
  float* gh_all_ = nullptr;     // [K, g d]
  float* hq_ = nullptr;         // [K, d] gathered states
  float* hq2_ = nullptr;        // [K, d]
  float* q_all_ = nullptr;      // [K, a] attention queries
  float* ctx_all_ = nullptr;    // [K, A] contexts
  float* u_all_ = nullptr;      // [K, 2l]
  float* u2_all_ = nullptr;     // [K, 2l]
  float* cat_ = nullptr;        // [K, A + d] luong's [c ; h] rows
  float* gen_in_buf_ = nullptr; // [K, gen_in]
  float* logits_ = nullptr;     // [K, V] blocks of rows × their sentence's vocabulary
  float* att_step_ = nullptr;   // [K, S]
};

}  // namespace softalign::internal
