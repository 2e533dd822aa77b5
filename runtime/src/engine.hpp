// The decoder engine: the seam between the search and the numbers.
//
// The search (search.cpp) keeps the beams: the history of kept candidates,
// finished hypotheses, penalties and the n-best list. An engine computes:
// it encodes a source, steps its rows (each row one hypothesis) and returns
// the best candidates over all rows, reorders its rows after a beam step and
// restricts the vocabulary to a shortlist. A backend is one implementation of
// this class: CpuEngine (cpu_engine.hpp) today; a GPU engine goes beside it
// and is chosen in TranslatorImpl::prepare. Everything an engine needs per
// sentence is created at prepare: translating allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arena.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

// The largest sentence a translator is prepared for.
struct EngineLimits {
  int max_source = 0;  // S: source tokens, EOS included
  int max_rows = 0;    // K: rows stepped together (the beam)
  bool shortlist = false;  // room for the model's vocabulary shortlist
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;

  // Lays the engine's host buffers out in the translator's arena (called
  // twice: once to measure, once on the reserved memory).
  virtual void layout(Arena& arena) = 0;

  // The vocabulary of this sentence's steps: the shortlist's union for
  // `src` (s ids) when `use`, else the whole vocabulary. Returns the width of
  // a row of candidates: column i is vocabulary id token(i).
  virtual int select_vocab(bool use, const int32_t* src, int s) = 0;
  virtual int32_t token(int column) const = 0;

  // Encodes `src` (s ids, EOS last) and starts one row from the bridge state.
  virtual void start(const int32_t* src, int s) = 0;

  // One decoder step (step t) for `rows` rows fed tokens[r], whose running
  // log-probabilities are row_logp[r]. Writes the `want` best candidates over
  // all rows, best first (ties: the lower row, then the lower column), as
  // flattened indices row * width + column into idx and their totals
  // (row_logp + log-softmax) into val; returns how many, or -1 when the
  // scores are not finite (damaged weights). The attention rows of the step
  // stay readable through attention() until the next step.
  virtual int step(int rows, const int32_t* tokens, const float* row_logp, int t, int want, int32_t* idx,
                   float* val) = 0;
  // The attention row (s weights) that row `row` computed in the last step.
  virtual const float* attention(int row) const = 0;
  // Keeps the states that rows parents[0..n) reached in the last step as
  // the rows 0..n of the next one.
  virtual void reorder(const int32_t* parents, int n) = 0;

  // Teacher forcing of one row: the step's raw logits over the whole
  // vocabulary into `logits`, then the row moves on. False when not finite.
  virtual bool force_step(int32_t token, int t, float* logits) = 0;
};

}  // namespace softalign::internal
