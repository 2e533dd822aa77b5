// The decoder engine: the seam between the search and the numbers.
//
// The search (search/, beam_search.hpp) keeps the beams and makes every
// choice: the history of kept candidates, finished hypotheses, penalties,
// the candidates of a step (top-k, a forced prefix, banned ids), the n-best
// list, an ensemble's mean. An engine computes: it encodes a source, steps
// its rows (each row one hypothesis) to their log-probabilities, reorders its
// rows after a beam step and restricts the vocabulary to a shortlist. Where
// the numbers are on a device, an engine may also offer each row's own best
// candidates (row_candidates) or whole greedy steps (greedy): capabilities
// the search may use. A backend is one implementation of
// this class, running the model's planned operations (ops.hpp) with
// its own implementation of each: CpuEngine (cpu_engine.hpp) and
// VulkanEngine (vulkan/), chosen
// in TranslatorImpl::choose_engine (prepare.cpp). Everything an engine needs
// per sentence is created at prepare: translating allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/shortlist.hpp"
#include "core/arena.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

// The largest work a translator is prepared for.
struct EngineLimits {
  int max_source = 0;     // S: source tokens of one sentence, EOS included
  int max_rows = 0;       // K: rows of one sentence (its beam)
  int max_sentences = 1;  // B: sentences decoded together (rows: B * K)
  bool shortlist = false; // room for the model's vocabulary shortlist
};

// The rows of one step, grouped by sentence: group g is `rows[g]` contiguous
// rows of sentence `sentence[g]` (an index given to start()), and wants its
// own `want[g]` best candidates. When `forced` is set, each group has one row
// and its one candidate is column forced[g] whatever its score (a target
// prefix; the search then uses the whole vocabulary, so a column is an id).
struct StepGroups {
  int count = 0;
  const int32_t* sentence = nullptr;
  const int32_t* rows = nullptr;
  const int32_t* want = nullptr;
  const int32_t* forced = nullptr;
  // When set, row r (over all groups, in order) may not take the ids
  // banned[r * banned_per_row + i] (-1: none): the search's repetition
  // blocking. An engine that cannot honour it fails the step (fault()).
  const int32_t* banned = nullptr;
  int banned_per_row = 0;
  // A candidate of log-probability -inf (every other id banned, or a row
  // already at -inf) is one to keep, not a fault: JoeyNMT's rules keep such
  // slots (and flag them finished). Otherwise only NaN or +inf is a fault.
  bool minus_inf_ok = false;
};

// Each row's own best candidates, as Engine::row_candidates chose them: row
// r's list at [r * stride, r * stride + want of its group), best first (ties:
// the lower column), column -1 where it ended early; values are the row's
// log-softmax; a column's id is ids[column] (ids null: the column is the id).
// Readable until the next step.
struct RowCandidates {
  const int32_t* columns = nullptr;
  const float* log_probs = nullptr;
  const uint32_t* ids = nullptr;
  int stride = 0;
};

// What Engine::greedy ran: for each of its `steps` steps s and each sentence
// b that was alive at that step, the id it chose, its summed log-probability
// (the row's before plus the id's log-softmax) and its attention row
// (the sentence's length; zeros for encdec), at [s * sentences + b] and
// [(s * sentences + b) * source]. Readable until the next call.
struct GreedySteps {
  const int32_t* tokens = nullptr;
  const float* log_probs = nullptr;
  const float* attention = nullptr;
  int sentences = 0;  // B: the stride of a step
  int source = 0;     // S: the stride of an attention row
};

// The dispatches and barriers a device engine records for a piece of work,
// and the weight bytes it reads.
struct RecordedCost {
  int dispatches = 0, barriers = 0;
  uint64_t weight_bytes = 0;
};
// A decoder step (ending in top-k), one of greedy()'s steps, a batch's
// encoder; the step's operations the engine runs on the host (supports()).
struct DeviceCosts {
  RecordedCost step, greedy, encoder;
  int host_operations = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;

  // Lays the engine's host buffers out in the translator's arena (called
  // twice: once to measure, once on the reserved memory).
  virtual void layout(Arena& arena) = 0;

  // The vocabulary of the coming steps: for each of the n sources (srcs[i],
  // lens[i] ids) its own shortlist when `use`, else the whole vocabulary.
  virtual void select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) = 0;

  // Encodes n sources (EOS last) and starts one row per sentence from its
  // bridge state: row i is sentence i.
  virtual void start(const int32_t* const* srcs, const int* lens, int n) = 0;

  // The attention row (its sentence's length) that row `row` computed in the last step.
  virtual const float* attention(int row) const = 0;
  // Keeps the states that rows parents[0..n) reached in the last step as
  // the rows 0..n of the next one.
  virtual void reorder(const int32_t* parents, int n) = 0;

  // One decoder step (step t) for the rows of `groups`, fed tokens[r]: each
  // row's log-softmax over its sentence's vocabulary() into log_prob_rows(),
  // one block per group (its rows × that sentence's width, row after row),
  // readable (and writable: the search adds its totals in place) until the
  // next step. The step's attention rows stay readable through attention()
  // until the next step. False when the step failed (fault()) or its scores
  // are not finite (damaged weights).
  virtual bool log_probs(const StepGroups& groups, const int32_t* tokens, int t) = 0;
  virtual float* log_prob_rows() = 0;
  // The sentences' vocabularies select_vocab chose.
  virtual const SentenceVocabularies& vocabulary() const = 0;

  // A capability: the step of log_probs() with each row's own best want[g]
  // candidates chosen where the numbers are (Vulkan's top-k), so the search
  // reads those and not every row's scores. The search uses it for steps
  // without a forced prefix or banned ids, when chooses_row_candidates().
  virtual bool chooses_row_candidates() const { return false; }
  virtual bool row_candidates(const StepGroups& groups, const int32_t* tokens, int t, RowCandidates* out) {
    (void)groups, (void)tokens, (void)t, (void)out;
    return false;
  }

  // Whether beam search over several sentences together is faster than one
  // by one on this engine: the translator's batching rule asks it (greedy
  // always batches). The CPU says no for int8 weights on kernels without
  // int8 inputs in vector lanes (cpu_engine.hpp).
  virtual bool batches_beams() const { return true; }

  // Greedy search (beam 1) with the choice made where the numbers are: the
  // most steps one greedy() call runs, 0 where the engine has no such path
  // (the search then steps one at a time).
  virtual int greedy_steps() const { return 0; }
  // Runs `steps` greedy steps from step t for the rows of `groups` (one row
  // a sentence, want 1, no forced or banned ids), fed tokens[r] with running
  // log-probabilities row_logp[r], as the search would each step: each row takes
  // its best id (ties to the lower id), a row that takes EOS
  // or reaches t_max[its sentence] tokens ends, and the rows left go on, in
  // order. Afterwards the rows are those of the last step, for reorder(). The
  // results in *out; false as log_probs() returns false.
  virtual bool greedy(const StepGroups& groups, const int32_t* tokens, const float* row_logp, int t,
                      const int* t_max, int steps, GreedySteps* out) {
    (void)groups, (void)tokens, (void)row_logp, (void)t, (void)t_max, (void)steps, (void)out;
    return false;
  }

  // Teacher forcing of sentence 0's one row: the step's raw logits over the
  // whole vocabulary into `logits` (an ensemble: the mean of its members'
  // log-softmax rows), then the row moves on. False when not finite.
  virtual bool force_step(int32_t token, int t, float* logits) = 0;

  // Why the last step or force_step returned false when it was not the
  // scores (a device that failed); Ok when it was the scores.
  virtual Status fault() const { return Status::Ok(); }

  // What a device engine's recorded work costs (BackendInfo's counts). Zeros on the CPU.
  virtual DeviceCosts costs() const { return {}; }
};

}  // namespace softalign::internal
