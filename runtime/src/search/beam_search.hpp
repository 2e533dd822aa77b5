// Beam search (greedy is beam 1) over an Engine, exactly as
// models/WEIGHTS_FORMAT.md "Search" describes: hypotheses, length and
// coverage penalties, repetition blocking, forced target prefixes, n-best
// lists; or OpenNMT-py's or JoeyNMT's beam rules ("Beam rules") for models
// imported from them; several sentences decoded together, each with its own beam. The
// Engine (engine.hpp) computes the numbers, one model or an ensemble, on any
// backend; the search never sees which. Allocation-free: every buffer is laid
// out in the translator's arena.
#pragma once

#include <cstdint>

#include "backends/engine.hpp"
#include "core/arena.hpp"
#include "core/call_stop.hpp"
#include "kernels/kernels.hpp"
#include "softalign/config.hpp"
#include "softalign/result.hpp"

namespace softalign::internal {

// Greedy search's pieces as they come (streaming): sentence b's id kept at a
// step (EOS excepted). False stops the call.
class PieceSink {
 public:
  virtual bool piece(int sentence, int32_t id) = 0;

 protected:
  ~PieceSink() = default;
};

// The search parameters of one call, resolved and checked (TranslatorImpl::resolve).
struct Search {
  int beam = 1;
  int nbest = 1;
  float alpha = 0.0f;
  float beta = 0.0f;
  float max_len_a = 0.0f;
  float max_len_b = 0.0f;
  bool shortlist = false;  // output layer over the model's shortlist (it has one)
  int block_repeats = 0;   // SearchOptions::block_repeats
  // Whose rules (SearchOptions::beam_rules); opennmt and joeynmt with nbest
  // 1, beta 0, no repetition blocking and no prefix (resolve checks).
  BeamRules rules = BeamRules::kSoftalign;
  // The forced target prefix (SearchOptions::target_prefix_ids), checked
  // against the vocabulary; its length against each source's max target
  // length when translating.
  const int32_t* prefix = nullptr;
  int prefix_len = 0;
  // The call's stop, asked before every step (null: never stops), and with
  // beam 1 where its pieces go (null: nowhere). Neither is the search's.
  const CallStop* stop = nullptr;
  PieceSink* pieces = nullptr;
};

// What the buffers are sized for.
struct SearchLimits {
  int max_source = 0;     // S: source tokens, EOS included
  int max_beam = 0;       // K
  int max_target = 0;     // T: target tokens, EOS included
  int max_sentences = 1;  // B: sentences decoded together
  int vocab = 0;          // V: the target vocabulary
  int bos_id = 0;
  int eos_id = 0;
  int pad_id = 0;  // JoeyNMT's rules never choose it
};

class BeamSearch {
 public:
  // Lays the buffers out (called twice: once to measure, once on the reserved memory).
  // `kernels`: the table the search's own choices run on (top-k).
  void layout(Arena& arena, const SearchLimits& limits, const kernels::KernelTable& kernels);
  // Which target ids start a word ([V]: 1 when the piece starts with U+2581),
  // for repetition blocking: filled by the caller after the real layout.
  uint8_t* word_start() { return word_start_; }

  // Decodes n sentences (n <= max_sentences) together: srcs[i], lens[i] ids
  // (checked, EOS last), at most t_max[i] target tokens each (<= max_target,
  // more than s.prefix_len). out[i] views sentence i's n-best list until the
  // next call. kFailed when a step failed (the engine's fault(), else
  // non-finite scores); kStopped when s.stop said so (or s.pieces), before a step.
  enum class End { kDone, kFailed, kStopped };
  End run(Engine& engine, const int32_t* const* srcs, const int* lens, const int* t_max, int n, const Search& s,
          NBestView* out);

 private:
  // Step t of the rows of `groups`: each group's candidates into top_idx_,
  // top_val_, group_got_ (candidates.hpp), from the engine's rows or, where
  // it offers them and nothing is forced or banned, its rows' own candidates.
  bool step(Engine& engine, const StepGroups& groups, int t);
  // Candidate j of sentence b at step t into the history.
  void record(int b, int t, int j, int32_t tok, int parent, float logp, const float* att, int src_len);
  bool keep(int b, int t, int j, int32_t tok, int parent, float logp, const float* att, int src_len, int t_max,
            int* next_alive);
  // With beam 1, sentence b's piece of this step to s.pieces; false: stop.
  static bool stream(const Search& s, int b, int32_t tok, int32_t eos);
  // Fills banned_ for the alive rows of step t's groups (their history in hist_*).
  void ban_repeats(int t, int groups, const Search& s);
  // The toolkits' rules for a kept candidate (keep's): OpenNMT's finished
  // candidates leave the beam, JoeyNMT's stay in it; each keeps only its
  // best finished hypothesis (their n-best is 1). True when it goes on.
  bool keep_toolkit(int b, int t, int j, int32_t tok, int parent, float logp, int t_max, const Search& s,
                    int* next_alive);
  // Candidate j (after row `parent`) becomes the next step's row *next_alive.
  void push_alive(int parent, int32_t tok, float logp, int j, int eos_count, int* next_alive);
  // Stores candidate j of step t as sentence b's result if it scores above
  // the one stored (ties: the earlier).
  void store_best(int b, int t, int j, float logp, double score);
  // Fills banned_ with JoeyNMT's banned ids for the alive rows of step t.
  void ban_joey(int t, int rows);
  // Sentence b's finished hypotheses: scores, the n-best order, the views.
  void finish(int b, int src_len, const Search& s, NBestView* out);

  struct Finished {
    int step = 0;   // step of its last token
    int index = 0;  // its index in that step's kept list
    float log_prob = 0.0f;
    double score = 0.0;
  };

  SearchLimits lim_;
  const kernels::KernelTable* k_ = nullptr;
  // Per sentence (B of them): the history ([T, K] and [T, K, S]: every kept
  // candidate's token, its parent's index in the step before, its attention
  // row, its summed log-probability), finished hypotheses and the results.
  int32_t* hist_tok_ = nullptr;     // [B, T, K]
  int32_t* hist_parent_ = nullptr;  // [B, T, K]
  float* hist_att_ = nullptr;       // [B, T, K, S]
  float* hist_logp_ = nullptr;      // [B, T, K]
  Finished* finished_ = nullptr;    // [B, K]
  int32_t* out_ids_ = nullptr;      // [B, K, T]
  float* out_att_ = nullptr;        // [B, K, T, S]
  float* out_logp_ = nullptr;       // [B, K, T] each step's log-probability
  HypothesisView* out_views_ = nullptr;  // [B, K]
  int32_t* alive_count_ = nullptr;     // [B]
  int32_t* finished_count_ = nullptr;  // [B]
  // The alive rows of all sentences, sentence after sentence ([B K]).
  int32_t* alive_idx_ = nullptr;    // history index of each alive hypothesis
  int32_t* alive_idx_next_ = nullptr;
  float* alive_logp_ = nullptr;
  float* alive_logp_next_ = nullptr;
  int32_t* alive_tok_ = nullptr;
  int32_t* alive_parent_ = nullptr;  // the row each next alive hypothesis continues
  // The toolkits' rules: each alive row's count of EOS ids (JoeyNMT keeps
  // hypotheses past EOS), JoeyNMT's sticky per-slot "finished" flags ([B,
  // K]) and each sentence's "stop after this step".
  int32_t* alive_eos_ = nullptr;
  int32_t* alive_eos_next_ = nullptr;
  uint8_t* slot_done_ = nullptr;
  uint8_t* stop_after_ = nullptr;  // [B]
  // One step's groups ([B]) and their candidates ([B, K]).
  int32_t* group_sent_ = nullptr;
  int32_t* group_rows_ = nullptr;
  int32_t* group_want_ = nullptr;
  int32_t* group_got_ = nullptr;
  int32_t* group_forced_ = nullptr;
  int32_t* top_idx_ = nullptr;
  float* top_val_ = nullptr;
  int32_t* heads_ = nullptr;  // [K] merge_row_candidates' cursor per row
  double* coverage_ = nullptr;  // [S]
  // Repetition blocking: each alive row's refused ids ([B K, kMaxBlockRepeats], -1 for none).
  int32_t* banned_ = nullptr;
  uint8_t* word_start_ = nullptr;  // [V]
};

}  // namespace softalign::internal
