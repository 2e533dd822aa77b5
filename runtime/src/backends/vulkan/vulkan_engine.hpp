// The Vulkan engine: the decoder engine (engine.hpp) as compute shaders on a
// Vulkan device. The model's weights are on the device once per Model
// (vulkan_weights.hpp, laid out for the products); everything per sentence —
// the device buffers, the host-visible I/O block, the descriptor set and the
// command buffers — is made at prepare. The command buffers are recorded
// once, from the model's plan (ops.hpp: record_encoder_op,
// record_step_op), and resubmitted: the encoder (all sentences of a batch at
// once) — the embeddings; per layer its input projections (the batch's
// positions only), then its recurrence in one dispatch for its one or two
// directions (a workgroup per tile of sentences loops over the positions, as
// long as its sentences run), which also writes the layer's final states
// (and LSTM cells); the keys and the bridge (every DecoderInit, from those
// final states: record_bridge); a decoder step over all the rows of a batch ending in
// log-softmax + top-k (row_candidates: the host reads want candidates per
// row, never the vocabulary, and the search merges them); and a teacher-forced step that copies the logits out. Counts
// (sentences, rows) and ids travel in the I/O block, so one recording serves
// every step; workgroups past the counts return at once.
//
// A decoder step is few dispatches, each fusing what runs back to back:
// the state gather with the embedding (step_input: the whole state row, an
// LSTM's cells at cell_offset included, follows the beam's parents), each
// GRU or LSTM layer's two products with its cell (gru_step, lstm_step), bahdanau's U_o, V_o, C_o with the maxout
// (one product of three terms), luong's attention with the [c ; h] row; int8
// activations are quantized inside the products (product.glsl).
//
// The vocabulary shortlist: the host selects each sentence's ids as the CPU
// does (shortlist.hpp) and writes their union into the I/O block; the output
// layer computes those rows only, and top-k masks each row to its own
// sentence's ids when a batch shares the union.
//
// Greedy search (beam 1) chooses on the device: greedy() submits up to
// kGreedySteps steps at once, each ending in top-k and greedy.comp, which
// takes each row's best id, ends the rows that took EOS or reached their
// sentence's last step, and writes the rows that go on as the next step's
// (their ids, sentences, parents) into the device's I/O copy, where the next
// step's step_input reads them. The host reads the steps' ids,
// log-probabilities and attention rows once, at the end.
//
// Steps chosen on the host: a third step command buffer also copies every
// row's logits back (to a host-visible buffer of rows × vocabulary floats,
// the size of the CPU engine's logits), and
// log_probs() makes them the rows' log-softmax over their own vocabularies
// (the logit minus the device's log-sum-exp). An ensemble of Vulkan members
// averages those (ensemble_engine.hpp); the search chooses a step with a
// forced target prefix or repetition blocking from them as from the CPU's.
//
// The op interface's fallback: supports(op) says which of the plan's step
// operations the engine records as dispatches. One it does not support (an
// attention whose score or window attend_luong.comp lacks) runs on the host
// with the CPU's implementation of that op (backends/cpu/attention.hpp): the
// step's recording is cut there into parts, the op's inputs copied to a
// host-visible exchange buffer at the end of one part, the host computes the
// op between the submissions, and the next part begins by copying its outputs
// back (the encoder's annotations and keys are copied there once per batch).
// Such a plan takes its greedy steps one at a time (greedy_steps() 0).
//
// Variants: every one the CPU runs — bahdanau, luong (dot, general, concat,
// location scores; global, local-m, local-p scopes; input feeding; any number
// of decoder layers) and encdec — with every option of format version 2:
// GRU or LSTM cells, one- or two-way encoders (reversed sources), sources
// without EOS (the encoder reads S - 1 positions, attention covers
// max(1, S - 1), the EOS column's weight is 0 per row and step: three
// lengths per sentence in the I/O block), every decoder init, the combine's
// bias and tanh and the concat query's bias. The annotations are A =
// directions × n wide (PlanShapes::ann) throughout. Every plan runs here:
// there is nothing the engine declines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/engine.hpp"
#include "backends/ops.hpp"
#include "backends/shortlist.hpp"
#include "backends/vulkan/vulkan_weights.hpp"
#include "kernels/kernels.hpp"

namespace softalign::internal::vk {

// A test hook: the attention operations run on the host (the per-op
// fallback) even where the shaders have them, so that a test runs every
// model through the fallback on any device. False in normal use; set before
// a translator is prepared.
extern bool g_attention_on_host;

// Which axis of a step's grid spans its rows, `per` rows a workgroup: a
// greedy step's grid follows the rows greedy.comp leaves
// (VulkanEngine::rows_grid).
struct RowsIn {
  enum Axis : uint32_t { kNone, kX, kY } axis = kNone;
  uint32_t per = 1;
};

class VulkanEngine final : public Engine {
 public:
  // `plan`: the model's (it outlives the engine); `shortlist`: the table to
  // select from (the model's; an ensemble's members all use their first
  // member's); `weights`: the plan's upload (vulkan_weights.hpp), held as
  // long as the engine; `kernels`: the host's, for steps chosen on the host.
  VulkanEngine(const Plan& plan, const ShortlistTable& shortlist, Device& device,
               std::shared_ptr<const VulkanWeights> weights, const kernels::KernelTable& kernels,
               const EngineLimits& limits);
  ~VulkanEngine() override;
  VulkanEngine(const VulkanEngine&) = delete;
  VulkanEngine& operator=(const VulkanEngine&) = delete;

  // Creates the buffers, the descriptor set and the command buffers; an
  // error (the reason) when the device cannot hold them.
  Status init();

  const char* name() const override { return "vulkan"; }
  // Whether the step operation `op` runs as dispatches here; if not, it
  // runs on the host (the header's "fallback").
  static bool supports(const StepOperation& op);
  void layout(Arena& arena) override;
  void select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) override;
  void start(const int32_t* const* srcs, const int* lens, int n) override;
  bool chooses_row_candidates() const override { return true; }
  bool row_candidates(const StepGroups& groups, const int32_t* tokens, int t, RowCandidates* out) override;
  const float* attention(int row) const override;
  void reorder(const int32_t* parents, int n) override;
  bool force_step(int32_t token, int t, float* logits) override;
  bool log_probs(const StepGroups& groups, const int32_t* tokens, int t) override;
  int greedy_steps() const override { return host_ops_.empty() ? static_cast<int>(kGreedySteps) : 0; }
  bool greedy(const StepGroups& groups, const int32_t* tokens, const float* row_logp, int t, const int* t_max,
              int steps, GreedySteps* out) override;
  float* log_prob_rows() override { return host_rows_; }
  const SentenceVocabularies& vocabulary() const override { return vocab_; }
  Status fault() const override { return fault_; }
  DeviceCosts costs() const override { return costs_; }

 private:
  void plan();
  // Greedy steps per submission: a sentence of 20-30 tokens takes 3-4
  // submissions instead of 20-30; the steps past the batch's end (at most
  // kGreedySteps - 1) find no rows and dispatch no workgroups.
  static constexpr uint32_t kGreedySteps = 8;
  static constexpr uint32_t kMaxStepDispatches = 16;  // room for a greedy step's grids
  // The encoder's operations: the embeddings, a layer, the keys and the bridge.
  void record_embeddings(VkCommandBuffer cb, const EncoderOperation& op);
  void record_layer(VkCommandBuffer cb, const EncoderOperation& op);
  void record_encoder_op(VkCommandBuffer cb, const EncoderOperation& op);
  void record_bridge(VkCommandBuffer cb, const EncoderOperation& op);
  // The attention shaders' EOS column to zero: each sentence's encoder
  // length, where the source's EOS is skipped (else none).
  uint32_t eos_slot() const { return shapes_.skip_source_eos ? io_enc_lens_ : kNone; }
  // A decoder step over at most `rows` rows, ending in: top-k (kTopk); top-k
  // and every row's logits copied to rows_ (kRows); row 0's logits to the I/O
  // block (kForced); top-k and greedy.comp, its results stored for step
  // `slot` of the submission (kGreedy: its inputs are on the device).
  enum class StepEnd { kTopk, kRows, kForced, kGreedy };
  // Its parts: 1 + host_ops_.size() command buffers (the caller begins the
  // first and ends the last: begin_part, end_part).
  void record_step(VkCommandBuffer* parts, StepEnd end, uint32_t rows, uint32_t slot = 0);
  VkResult begin_part(VkCommandBuffer cb);
  VkResult end_part(VkCommandBuffer cb);
  // A host op's inputs from the device to the exchange buffer (at the end of
  // a part), its outputs back (at the start of the next), for rec_rows_ rows.
  void copy_host_inputs(VkCommandBuffer cb, const StepOperation& op);
  void copy_host_outputs(VkCommandBuffer cb, const StepOperation& op);
  // Runs `op` on the host for the step's rows (io_rows_), over the exchange buffer.
  void run_host_op(const StepOperation& op);
  void copy(VkCommandBuffer cb, const Buffer& from, const Buffer& to, const VkBufferCopy* regions, uint32_t count);
  // The bucket (of bucket_rows_) of the step's recordings for `rows` live rows.
  std::size_t bucket_index(uint32_t rows) const;
  void record_step_op(VkCommandBuffer cb, const StepOperation& op);
  // The step's inputs for the rows of `groups` into the I/O block; their count.
  uint32_t write_step_inputs(const StepGroups& groups, const int32_t* tokens, int t, bool one_candidate);
  // One dispatch of `kernel` specialized by `spec`, with push constants
  // `push`, groups gx × gy × gz, then a barrier (every dispatch reads what the
  // one before it wrote). A pipeline that cannot be made sets record_fault_.
  void dispatch(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push, uint32_t words,
                uint32_t gx, uint32_t gy, uint32_t gz = 1, RowsIn rows = {});
  // The same with a grid the device reads from the I/O block, written by the
  // host for the work at hand (not the most there can be): by kPositions,
  // `fixed` groups across and one down per `per` of the batch's source
  // positions (start()); by kWidth, one across per `per` columns of the
  // vocabulary now (its union shrinks as sentences end) and `fixed` down.
  enum class GridBy { kPositions, kWidth };
  void dispatch_grid(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push,
                     uint32_t words, GridBy by, uint32_t fixed, uint32_t per, RowsIn rows = {});
  // An indirect grid's rule, per axis: fixed (n groups), or one group per n
  // of the vocabulary's width, the rows of a greedy step or the batch's
  // source positions.
  enum class AxisBy : uint32_t { kFixed, kWidth, kRows, kPositions };
  struct GridAxis {
    AxisBy by;
    uint32_t n;
  };
  struct GridRule {
    GridAxis x, y;
  };
  // A greedy step's dispatch with a grid from io_rows_grids_ (axes by rows
  // or width); the steps of one greedy recording share their grids.
  void rows_grid(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push, uint32_t words,
                 GridAxis x, GridAxis y);
  // The grids of `rules` (x, y, z each from word `first`) for the work now:
  // width_, positions_ and `rows`.
  void write_grids(const std::vector<GridRule>& rules, uint32_t first, uint32_t rows);
  // A product's rows, in tiles of kTileRows (one row: the one-row kernels).
  static RowsIn rows_in_tiles(uint32_t max_rows);
  // Binds `kernel`'s pipeline for `spec` and the push constants (counted as
  // a step's dispatch); false, with record_fault_ set, when it cannot be made.
  bool bind(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push, uint32_t words);
  // The logits' columns now: width_, its I/O word and the kWidth grids for it.
  void set_width(uint32_t width);
  void barrier(VkCommandBuffer cb);
  // One term of a product: W times the rows of x (x_off, ldx).
  struct Term {
    const MatrixRef* w;
    uint32_t x_off, ldx;
  };
  // y[i] = act(Σ terms + bias) for the rows i < io[m_slot] (at most max_m),
  // product.comp; flags 2 tanh, 4 maxout (its ROWS_PER_OUTPUT 2). row_ids / rows_slot: only the
  // weight rows io[row_ids + r], r < io[rows_slot]. positions: rows are the batch's
  // source positions, packed (io_positions_: the encoder's products).
  void product(VkCommandBuffer cb, const Term* terms, uint32_t nterms, uint32_t bias, uint32_t max_m, uint32_t m_slot,
               uint32_t y_off, uint32_t ldy, uint32_t flags, uint32_t row_ids = kNone, uint32_t rows_slot = kNone,
               bool positions = false);
  void product(VkCommandBuffer cb, const MatrixRef& w, uint32_t bias, uint32_t x_off, uint32_t ldx, uint32_t max_m,
               uint32_t m_slot, uint32_t y_off, uint32_t ldy, uint32_t flags, bool positions = false) {
    const Term t{&w, x_off, ldx};
    product(cb, &t, 1, bias, max_m, m_slot, y_off, ldy, flags, kNone, kNone, positions);
  }
  void fill_zero(VkCommandBuffer cb, uint32_t off, uint32_t words);
  // Copies words [first, end) of the I/O block between the host's and the device's.
  void copy_io(VkCommandBuffer cb, bool to_device, uint32_t first, uint32_t end);
  // Submits a step's parts (the vocabulary's copy first when select_vocab
  // changed it), running the host ops between them.
  bool run_step(const VkCommandBuffer* parts);
  // The union of some sentences' vocabularies into the I/O block (null: the first count).
  void write_union(const int32_t* sentences, int count);
  void narrow_union(const StepGroups& groups);
  bool run(const VkCommandBuffer* cbs, uint32_t count);
  bool position_fault(uint32_t rows) const;

  const Plan& plan_;  // the encoder's and the step's operations (ops.hpp)
  const PlanShapes& shapes_;
  const kernels::KernelTable& k_;
  const ShortlistTable& table_;  // the shortlist selected from
  Device& dev_;
  const Api& api_;
  const std::shared_ptr<const VulkanWeights> weights_;
  const VulkanWeights& w_;
  const uint32_t S_, K_, B_, R_;  // max source, beam rows per sentence, sentences, rows (B K)
  uint32_t n_ = 0, d_ = 0, e_ = 0, a_ = 0, l_ = 0, V_ = 0;
  uint32_t A_ = 0;        // the annotations' width (directions × n)
  uint32_t gates_ = 3;    // gate blocks of the cells (3 GRU, 4 LSTM)
  bool lstm_ = false;
  uint32_t state_ = 0;    // floats per row: dec_layers * d (twice with LSTM) (+ d for input feeding's h~)
  uint32_t cell_at_ = 0;  // where a state row's cells start (LSTM)
  uint32_t fed_at_ = 0;   // where a state row's fed-back h~ starts
  uint32_t xw_ = 0;       // the GRU stack's input row
  uint32_t key_dim_ = 0;  // columns of the keys (0: none)
  uint32_t q_width_ = 0;  // columns of a row's attention query (W_a s, W_q h, W_loc h)
  bool zero_attention_ = false;  // the step attends nowhere (kInput): no attention rows
  bool predicted_window_ = false;  // a Window::kPredicted attention: its position may fault
  bool feed_back_ = false;         // kCombine writes h~ into the state

  // Device buffer (act), in words.
  uint32_t enc_a_ = 0, enc_b_ = 0, gi_f_ = 0, gi_b_ = 0, h_ = 0, c_ = 0;
  // Each sentence's final states F_0 .. F_{L_e - 1} ([B, L_e, A]), and the
  // cells' with LSTM; finals_ld_ floats a sentence; top_final_: F_top's
  // offset (encdec's fixed context c, the bridge's input).
  uint32_t finals_ = 0, final_cells_ = kNone, finals_ld_ = 0, top_final_ = 0;
  uint32_t ann_ = 0, keys_ = 0, state_cur_ = 0, state_next_ = 0, x_ = 0, q_ = 0, qp_ = 0, cat_ = 0;
  uint32_t t_ = 0, logits_ = 0;
  uint32_t gen_in_ = 0, gen_ld_ = 0;  // the output layer's input rows and their stride
  uint64_t act_words_ = 0;
  // Host-visible I/O block, in words.
  uint32_t io_sentences_ = 0, io_enc_rows_ = 0, io_rows_ = 0, io_t_ = 0;
  // Each sentence's source tokens, the positions the encoder reads (one
  // fewer without the source's EOS) and the ones attention covers (at least
  // one) ([B] each).
  uint32_t io_lens_ = 0, io_enc_lens_ = 0, io_att_lens_ = 0;
  // The encoder's rows: each source position attention covers, packed
  // ([Σ len]: b * S + j); the sentences longest first by the positions the
  // encoder reads ([B]); how many run at each step ([S]).
  uint32_t io_positions_ = 0, io_order_ = 0, io_live_ = 0;
  // dispatch_grid's grids (x, y, z each): by positions (copied with the
  // encoder's inputs) and by width (copied with the vocabulary), and the
  // rules that fill them.
  uint32_t io_position_grids_ = 0, io_width_grids_ = 0;
  uint32_t positions_ = 0;  // the batch's source positions (start())
  std::vector<GridRule> position_grids_, width_grids_;  // reserved in plan(), filled as recorded
  uint32_t position_grids_room_ = 0, width_grids_room_ = 0;
  uint32_t io_src_ = 0, io_tokens_ = 0, io_row_sent_ = 0, io_parents_ = 0, io_want_ = 0, io_idx_ = 0, io_val_ = 0;
  // Greedy steps on the device: each row's summed log-probability ([R]),
  // each sentence's last step + 1 ([B]), the status word (1: scores not
  // finite), and each step's results per sentence ([kGreedySteps, B] ids and
  // log-probabilities, [kGreedySteps, B, S] attention rows).
  uint32_t io_row_logp_ = 0, io_t_max_ = 0, io_status_ = 0, io_greedy_tok_ = 0, io_greedy_logp_ = 0,
           io_greedy_att_ = 0, io_greedy_end_ = 0;
  // rows_grid()'s grids (x, y, z each) and, for greedy.comp, the rows per
  // group of each one's x and y (0: not by rows); their rules; the next one
  // a greedy step being recorded takes.
  uint32_t io_rows_grids_ = 0, io_rows_grid_per_ = 0;
  std::vector<GridRule> rows_grids_;  // reserved in plan(), filled as recorded
  uint32_t rows_grids_room_ = 0, rows_grid_next_ = 0;
  uint32_t io_lse_ = 0, io_fault_ = 0, io_att_ = 0, io_logits_ = 0;
  uint64_t io_words_ = 0;
  // The fallback: the step's operations that run on the host, in order, and
  // the host-visible exchange buffer's regions, in words: every sentence's
  // annotations [B, S, A] and keys [B, S, key_dim], a host op's input rows
  // [R, max(a, d)], its output rows [R, A + d], attention rows [R, S] and
  // position faults [R]. The host's scratch (arena): a query, quantized activations.
  std::vector<const StepOperation*> host_ops_;
  uint32_t parts_ = 1;  // command buffers a step's recording has
  Buffer xchg_;
  uint32_t x_ann_ = 0, x_keys_ = 0, x_in_ = 0, x_out_ = 0, x_att_ = 0, x_fault_ = 0;
  uint64_t x_words_ = 0;
  float* host_query_ = nullptr;
  int8_t* host_xq_ = nullptr;
  bool too_large_ = false;  // a plan past 2^32 words
  // The vocabulary of the coming steps: its size, its ids (identity for the
  // whole vocabulary), and with a batch's shortlist each sentence's own ids
  // as bits [sentence, column] (mask_words per sentence).
  uint32_t io_width_ = 0, io_vocab_ids_ = 0, io_mask_on_ = 0, io_mask_ = kNone, mask_words_ = 0;

  // The I/O block: the host's (io_, mapped) and its device-local copy (ctl_,
  // the one the shaders read and write; the same layout). The step's inputs
  // reach the device through step_input, the encoder's and the vocabulary's
  // through copies; the step's results come back by a copy at its end.
  Buffer act_, io_, ctl_;
  Buffer rows_;  // host-visible [R, V]: every row's logits, for the steps chosen on the host
  uint32_t* io_u_ = nullptr;  // the mapped I/O block
  float* io_f_ = nullptr;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkCommandPool cmd_pool_ = VK_NULL_HANDLE;
  // The step is recorded for buckets of live rows (1, 4, 8, 16, ... up to
  // R): a step runs the smallest that holds its rows, so its dispatches span
  // those rows only, and a single row takes the one-row kernels.
  std::vector<uint32_t> bucket_rows_;
  std::vector<VkCommandBuffer> step_cbs_;  // ending in kTopk, per bucket (parts_ each)
  std::vector<VkCommandBuffer> rows_cbs_;  // ending in kRows, per bucket (parts_ each)
  std::vector<VkCommandBuffer> force_cbs_;  // the forced step's parts
  // Greedy: the control words in, kGreedySteps steps of the one-row kernels
  // and of the tiled ones ([0 or 1] * kGreedySteps + slot: their grids follow
  // the rows), the results out; the list greedy() submits.
  VkCommandBuffer greedy_in_cb_ = VK_NULL_HANDLE, greedy_out_cb_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> greedy_cbs_, greedy_submit_;
  bool rec_from_device_ = false;  // the step being recorded reads its inputs from the device's copy
  uint32_t rec_rows_ = 0;  // the rows of the step being recorded
  VkCommandBuffer vocab_cb_ = VK_NULL_HANDLE;  // copies the vocabulary's tables to the device
  bool vocab_dirty_ = true;                     // select_vocab wrote them since the last copy
  VkCommandBuffer encoder_cb_ = VK_NULL_HANDLE;  // the encoder of a batch
  VkFence fence_ = VK_NULL_HANDLE;
  // Counted while a command buffer is recorded (costs()): the step ending in
  // top-k and a greedy step, over every row, and the encoder.
  DeviceCosts costs_;
  RecordedCost* counting_ = nullptr;  // the one being recorded, if any
  Status fault_;  // a submission failed: every later step of the sentence reports it
  Status record_fault_;  // a pipeline init() recorded could not be made
  Status part_fault_;    // a step's part could not be ended or begun

  uint32_t* length_slots_ = nullptr;  // [S + 1] start() orders the sentences by length with it (arena)
  bool shortlist_room_ = false;  // prepared with the shortlist and the model has one
  bool identity_vocab_ = false;  // io_vocab_ids_ holds 0..V-1
  uint32_t width_ = 0;           // columns of a logits row now
  int union_sentences_ = 0;      // the sentences the union is of
  SentenceVocabularies vocab_;   // each sentence's ids (arena)
  int32_t* union_pos_ = nullptr; // [V] an id's column in the union, -1: none (arena; with the shortlist)
  float* host_rows_ = nullptr;   // [R, V] log_probs()'s blocks (arena)
};

}  // namespace softalign::internal::vk
