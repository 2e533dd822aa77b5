// Beam search (beam_search.hpp).
#include "search/beam_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "search/candidates.hpp"
#include "softalign/config.hpp"

namespace softalign::internal {

void BeamSearch::layout(Arena& a, const SearchLimits& limits, const kernels::KernelTable& kernels) {
  lim_ = limits;
  k_ = &kernels;
  const std::size_t s = limits.max_source, kk = limits.max_beam, t = limits.max_target, b = limits.max_sentences;
  hist_tok_ = a.take<int32_t>(b * t * kk);
  hist_parent_ = a.take<int32_t>(b * t * kk);
  hist_att_ = a.take<float>(b * t * kk * s);
  hist_logp_ = a.take<float>(b * t * kk);
  finished_ = a.take<Finished>(b * kk);
  out_ids_ = a.take<int32_t>(b * kk * t);
  out_att_ = a.take<float>(b * kk * t * s);
  out_logp_ = a.take<float>(b * kk * t);
  out_views_ = a.take<HypothesisView>(b * kk);
  alive_count_ = a.take<int32_t>(b);
  finished_count_ = a.take<int32_t>(b);
  alive_idx_ = a.take<int32_t>(b * kk);
  alive_idx_next_ = a.take<int32_t>(b * kk);
  alive_logp_ = a.take<float>(b * kk);
  alive_logp_next_ = a.take<float>(b * kk);
  alive_tok_ = a.take<int32_t>(b * kk);
  alive_parent_ = a.take<int32_t>(b * kk);
  alive_eos_ = a.take<int32_t>(b * kk);
  alive_eos_next_ = a.take<int32_t>(b * kk);
  slot_done_ = a.take<uint8_t>(b * kk);
  stop_after_ = a.take<uint8_t>(b);
  group_sent_ = a.take<int32_t>(b);
  group_rows_ = a.take<int32_t>(b);
  group_want_ = a.take<int32_t>(b);
  group_got_ = a.take<int32_t>(b);
  group_forced_ = a.take<int32_t>(b);
  top_idx_ = a.take<int32_t>(b * kk);
  top_val_ = a.take<float>(b * kk);
  heads_ = a.take<int32_t>(kk);
  coverage_ = a.take<double>(s);
  banned_ = a.take<int32_t>(b * kk * ConfigLimits::kMaxBlockRepeats);
  word_start_ = a.take<uint8_t>(static_cast<std::size_t>(limits.vocab));
}

// Several sentences decode together: every step runs the rows of all live
// sentences through the engine at once, and each sentence keeps its own beam
// (its best candidates over its own rows). A sentence leaves when its beam is
// finished. One sentence is the same search with n = 1.
BeamSearch::End BeamSearch::run(Engine& engine, const int32_t* const* srcs, const int* lens, const int* t_max, int n,
                                const Search& sr, NBestView* out) {
  const int beam = sr.beam;
  const int K = lim_.max_beam;
  // Candidates are flattened indices row * V + token id, per sentence.
  const int vocab = lim_.vocab;
  if (sr.stop != nullptr && sr.stop->stopped()) return End::kStopped;
  engine.select_vocab(sr.shortlist, srcs, lens, n);
  engine.start(srcs, lens, n);
  for (int b = 0; b < n; ++b) {
    alive_count_[b] = 1;
    finished_count_[b] = 0;
    alive_tok_[b] = lim_.bos_id;
    alive_logp_[b] = 0.0f;
    alive_idx_[b] = -1;
    alive_eos_[b] = 0;
    stop_after_[b] = 0;
    std::memset(slot_done_ + static_cast<std::size_t>(b) * K, 0, static_cast<std::size_t>(K));
  }
  const bool softalign_rules = sr.rules == BeamRules::kSoftalign;

  for (int t = 0;; ++t) {
    // The live sentences, each a group of rows. Within the target prefix each
    // sentence has one row, whose one candidate is the prefix's piece (never
    // EOS, and t + 1 < t_max: it stays alive).
    const bool forcing = t < sr.prefix_len;
    int groups = 0;
    for (int b = 0; b < n; ++b)
      if (alive_count_[b] > 0) {
        group_sent_[groups] = b;
        group_rows_[groups] = alive_count_[b];
        // softalign's beam shrinks as hypotheses finish; the toolkits' keeps K.
        group_want_[groups] = forcing ? 1 : softalign_rules ? beam - finished_count_[b] : beam;
        group_forced_[groups] = forcing ? sr.prefix[t] : -1;
        ++groups;
      }
    if (groups == 0) break;
    if (sr.stop != nullptr && sr.stop->stopped()) return End::kStopped;
    StepGroups step_groups{groups, group_sent_, group_rows_, group_want_, forcing ? group_forced_ : nullptr};
    if (!forcing && sr.block_repeats > 0 && t > 0) {
      ban_repeats(t, groups, sr);
      step_groups.banned = banned_;
      step_groups.banned_per_row = ConfigLimits::kMaxBlockRepeats;
    } else if (sr.rules == BeamRules::kJoeyNmt) {
      int rows = 0;
      for (int g = 0; g < groups; ++g) rows += group_rows_[g];
      ban_joey(t, rows);
      step_groups.banned = banned_;
      step_groups.banned_per_row = ConfigLimits::kMaxBlockRepeats;
      step_groups.minus_inf_ok = true;
    }
    // Greedy search where the engine chooses on its own: several steps a
    // call, as many as the longest sentence may still take, kept here as if
    // each had been a step of its own (the engine ends the same rows).
    const bool engine_greedy =
        softalign_rules && beam == 1 && step_groups.banned == nullptr && !forcing && engine.greedy_steps() > 0;
    if (engine_greedy) {
      int steps = 1;
      for (int g = 0; g < groups; ++g) steps = std::max(steps, t_max[group_sent_[g]] - t);
      steps = std::min(steps, engine.greedy_steps());
      GreedySteps chosen;
      if (!engine.greedy(step_groups, alive_tok_, alive_logp_, t, t_max, steps, &chosen)) return End::kFailed;
      int next_alive = 0;
      for (int s = 0; s < steps; ++s, ++t) {
        next_alive = 0;
        for (int b = 0, row = 0; b < n; ++b) {
          if (alive_count_[b] == 0) continue;
          const std::size_t at = static_cast<std::size_t>(s) * chosen.sentences + b;
          const bool alive = keep(b, t, 0, chosen.tokens[at], row++, chosen.log_probs[at],
                                  chosen.attention + at * chosen.source, lens[b], t_max[b], &next_alive);
          alive_count_[b] = alive ? 1 : 0;
          if (!stream(sr, b, chosen.tokens[at], lim_.eos_id)) return End::kStopped;
        }
        std::memcpy(alive_logp_, alive_logp_next_, sizeof(float) * next_alive);
        std::memcpy(alive_idx_, alive_idx_next_, sizeof(int32_t) * next_alive);
      }
      --t;  // the loop's ++t
      engine.reorder(alive_parent_, next_alive);
      continue;
    }
    if (!step(engine, step_groups, t)) return End::kFailed;
    int next_alive = 0;
    for (int g = 0, first = 0; g < groups; first += group_rows_[g], ++g) {
      const int b = group_sent_[g];
      const int32_t* idx = top_idx_ + static_cast<std::size_t>(g) * K;
      const float* val = top_val_ + static_cast<std::size_t>(g) * K;
      int alive = 0;
      for (int j = 0; j < group_got_[g]; ++j) {
        const int parent = first + idx[j] / vocab;
        const int32_t tok = idx[j] % vocab;
        if (softalign_rules ? keep(b, t, j, tok, parent, val[j], engine.attention(parent), lens[b], t_max[b],
                                   &next_alive)
                            : (record(b, t, j, tok, parent, val[j], engine.attention(parent), lens[b]),
                               keep_toolkit(b, t, j, tok, parent, val[j], t_max[b], sr, &next_alive)))
          ++alive;
      }
      if (sr.rules == BeamRules::kJoeyNmt) {  // stop when every slot has been flagged
        bool all = true;
        for (int j = 0; j < beam; ++j) all = all && slot_done_[static_cast<std::size_t>(b) * K + j];
        if (all) stop_after_[b] = 1;
      }
      if (stop_after_[b]) {  // the sentence's remaining rows go nowhere
        next_alive -= alive;
        alive = 0;
      }
      alive_count_[b] = alive;
      if (beam == 1 && group_got_[g] > 0 && !stream(sr, b, idx[0] % vocab, lim_.eos_id)) return End::kStopped;
    }
    engine.reorder(alive_parent_, next_alive);
    std::memcpy(alive_logp_, alive_logp_next_, sizeof(float) * next_alive);
    std::memcpy(alive_idx_, alive_idx_next_, sizeof(int32_t) * next_alive);
    std::memcpy(alive_eos_, alive_eos_next_, sizeof(int32_t) * next_alive);
  }
  for (int b = 0; b < n; ++b) finish(b, lens[b], sr, &out[b]);
  return End::kDone;
}

bool BeamSearch::stream(const Search& sr, int b, int32_t tok, int32_t eos) {
  if (sr.pieces == nullptr || tok == eos) return true;
  if (sr.pieces->piece(b, tok)) return true;
  if (sr.stop != nullptr) sr.stop->stop_by_callback();
  return false;
}

bool BeamSearch::step(Engine& engine, const StepGroups& groups, int t) {
  const int K = lim_.max_beam;
  if (groups.forced == nullptr && groups.banned == nullptr && engine.chooses_row_candidates()) {
    RowCandidates rows;
    const bool finite = engine.row_candidates(groups, alive_tok_, t, &rows);
    if (!finite) return false;
    return merge_row_candidates(rows, groups, alive_logp_, lim_.vocab, K, heads_, top_idx_, top_val_, group_got_);
  }
  const bool finite = engine.log_probs(groups, alive_tok_, t);
  if (!finite) return false;
  return pick_candidates(*k_, engine.log_prob_rows(), engine.vocabulary(), lim_.vocab, groups, alive_logp_, K, top_idx_,
                         top_val_, group_got_);
}

// Candidate j of sentence b at step t: id `tok` after the step's row
// `parent`, with summed log-probability `logp` and attention row `att`
// (src_len floats), into the history; a kept EOS finishes, and at the last
// step (t + 1 == t_max) every kept candidate finishes as it is; else it is
// the next step's row *next_alive. True when it goes on.
void BeamSearch::record(int b, int t, int j, int32_t tok, int parent, float logp, const float* att, int src_len) {
  const int K = lim_.max_beam;
  const std::size_t TK = static_cast<std::size_t>(lim_.max_target) * K;
  const std::size_t at = b * TK + static_cast<std::size_t>(t) * K + j;
  hist_tok_[at] = tok;
  hist_parent_[at] = alive_idx_[parent];
  hist_logp_[at] = logp;
  std::memcpy(hist_att_ + at * lim_.max_source, att, sizeof(float) * src_len);
}

bool BeamSearch::keep(int b, int t, int j, int32_t tok, int parent, float logp, const float* att, int src_len,
                      int t_max, int* next_alive) {
  const int K = lim_.max_beam;
  record(b, t, j, tok, parent, logp, att, src_len);
  if (tok == lim_.eos_id || t + 1 == t_max) {
    Finished& f = finished_[static_cast<std::size_t>(b) * K + finished_count_[b]++];
    f.step = t;
    f.index = j;
    f.log_prob = logp;
    return false;
  }
  push_alive(parent, tok, logp, j, 0, next_alive);
  return true;
}

void BeamSearch::push_alive(int parent, int32_t tok, float logp, int j, int eos_count, int* next_alive) {
  const int row = (*next_alive)++;
  alive_parent_[row] = parent;
  alive_tok_[row] = tok;
  alive_logp_next_[row] = logp;
  alive_idx_next_[row] = j;
  alive_eos_next_[row] = eos_count;
}

// OpenNMT-py (beam_search.py): a candidate ending with EOS, or any at the
// last step, finishes with logp / (t + 2)^alpha (BOS and EOS counted) and
// leaves the beam; the search stops after a step whose best candidate
// finished. JoeyNMT (search.py): every candidate stays in the beam (past EOS
// too); slot j's flag is set when its candidate ends with EOS (or scores
// -inf) and stays set; a flagged slot whose hypothesis holds exactly one EOS,
// last (at the last step: or none), is a result with logp / ((6 + t) /
// 6)^alpha; the search stops when every flag is set (run() checks).
bool BeamSearch::keep_toolkit(int b, int t, int j, int32_t tok, int parent, float logp, int t_max, const Search& sr,
                              int* next_alive) {
  const int K = lim_.max_beam;
  const bool eos = tok == lim_.eos_id, last = t + 1 == t_max;
  const double alpha = sr.alpha;
  int eos_count = 0;
  if (sr.rules == BeamRules::kOpenNmt) {
    if (eos || last) {
      store_best(b, t, j, logp, static_cast<double>(logp) / std::pow(t + 2.0, alpha));
      if (j == 0) stop_after_[b] = 1;
      return false;
    }
  } else {
    eos_count = alive_eos_[parent] + (eos ? 1 : 0);
    uint8_t& done = slot_done_[static_cast<std::size_t>(b) * K + j];
    if (eos || std::isinf(logp) || last) done = 1;
    if (done && ((eos && eos_count == 1) || (last && eos_count == 0))) {
      const double lp = alpha > 0.0 ? std::pow((6.0 + t) / 6.0, alpha) : 1.0;
      store_best(b, t, j, logp, static_cast<double>(logp) / lp);
    }
    // A result is always stored by the last step (WEIGHTS_FORMAT.md: at a
    // hypothesis's first EOS, or without EOS at T - 1).
    if (last) return false;
  }
  push_alive(parent, tok, logp, j, eos_count, next_alive);
  return true;
}

void BeamSearch::store_best(int b, int t, int j, float logp, double score) {
  Finished& f = finished_[static_cast<std::size_t>(b) * lim_.max_beam];
  if (finished_count_[b] > 0 && !(score > f.score)) return;
  finished_count_[b] = 1;
  f.step = t;
  f.index = j;
  f.log_prob = logp;
  f.score = score;
}

// JoeyNMT never chooses BOS or PAD, nor EOS at the first step.
void BeamSearch::ban_joey(int t, int rows) {
  constexpr int kMax = ConfigLimits::kMaxBlockRepeats;
  for (int r = 0; r < rows; ++r) {
    int32_t* banned = banned_ + static_cast<std::size_t>(r) * kMax;
    std::fill(banned, banned + kMax, -1);
    banned[0] = lim_.bos_id;
    banned[1] = lim_.pad_id;
    if (t == 0) banned[2] = lim_.eos_id;
  }
}

// For each alive row of step t (the rows of groups[0..groups), sentence after
// sentence), the ids it may not take (SearchOptions::block_repeats): for each
// n <= block_repeats, the id that would end a group of n pieces, starting a
// word, equal to the n pieces right before it. With y the row's tokens so
// far, that id is y[t-n], when y[t-n+1..t-1] == y[t-2n+1..t-n-1] and the
// group's first piece (the id itself for n = 1, else y[t-n+1]) starts a word.
void BeamSearch::ban_repeats(int t, int groups, const Search& sr) {
  constexpr int kMax = ConfigLimits::kMaxBlockRepeats;
  const int K = lim_.max_beam;
  const std::size_t TK = static_cast<std::size_t>(lim_.max_target) * K;
  for (int g = 0, r = 0; g < groups; ++g) {
    const int b = group_sent_[g];
    const int32_t* hist_tok = hist_tok_ + b * TK;
    const int32_t* hist_parent = hist_parent_ + b * TK;
    for (int i = 0; i < group_rows_[g]; ++i, ++r) {
      // back[q] = y[t-1-q], the last tokens first (at most 2 * kMax - 1 of them).
      int32_t back[2 * kMax];
      int have = 0;
      for (int step = t - 1, j = alive_idx_[r]; step >= 0 && have < 2 * sr.block_repeats - 1; --step) {
        back[have++] = hist_tok[static_cast<std::size_t>(step) * K + j];
        j = hist_parent[static_cast<std::size_t>(step) * K + j];
      }
      int32_t* banned = banned_ + static_cast<std::size_t>(r) * kMax;
      for (int n = 1; n <= kMax; ++n) {
        banned[n - 1] = -1;
        if (n > sr.block_repeats || have < 2 * n - 1) continue;
        bool repeat = true;
        for (int d = 0; d + 2 <= n && repeat; ++d) repeat = back[d] == back[d + n];
        const int32_t first = n == 1 ? back[0] : back[n - 2];
        if (repeat && word_start_[first]) banned[n - 1] = back[n - 1];
      }
    }
  }
}

void BeamSearch::finish(int b, int s, const Search& sr, NBestView* out) {
  const int eos = lim_.eos_id, finished = finished_count_[b];
  const int K = lim_.max_beam, S = lim_.max_source, T = lim_.max_target;
  const std::size_t TK = static_cast<std::size_t>(T) * K;
  const int32_t* hist_tok = hist_tok_ + b * TK;
  const int32_t* hist_parent = hist_parent_ + b * TK;
  const float* hist_att = hist_att_ + b * TK * S;
  const float* hist_logp = hist_logp_ + b * TK;
  Finished* fin = finished_ + static_cast<std::size_t>(b) * K;
  // Scores, then the n-best order (stable: ties keep the finishing order).
  // In double, as the reference computes it (ranking near-ties the same way).
  // The toolkits' rules scored their one result as they stored it.
  for (int f = 0; f < finished && sr.rules == BeamRules::kSoftalign; ++f) {
    Finished& h = fin[f];
    const int len = h.step + 1;
    const double lp = std::pow((5.0 + len) / 6.0, static_cast<double>(sr.alpha));
    double cp = 0.0;
    if (sr.beta > 0.0f) {
      std::fill(coverage_, coverage_ + s, 0.0);
      for (int t = h.step, j = h.index; t >= 0; --t) {
        const float* row = hist_att + (static_cast<std::size_t>(t) * K + j) * S;
        for (int x = 0; x < s; ++x) coverage_[x] += row[x];
        j = hist_parent[static_cast<std::size_t>(t) * K + j];
      }
      for (int x = 0; x < s; ++x) cp += std::log(std::min(std::max(coverage_[x], 1e-6), 1.0));
      cp *= static_cast<double>(sr.beta);
    }
    h.score = static_cast<double>(h.log_prob) / lp + cp;
  }
  // Insertion sort: stable and allocation-free (std::stable_sort may allocate).
  for (int i = 1; i < finished; ++i) {
    const Finished f = fin[i];
    int j = i;
    while (j > 0 && fin[j - 1].score < f.score) {
      fin[j] = fin[j - 1];
      --j;
    }
    fin[j] = f;
  }
  const int count = std::min(finished, sr.nbest);
  HypothesisView* views = out_views_ + static_cast<std::size_t>(b) * K;
  for (int r = 0; r < count; ++r) {
    const Finished& h = fin[r];
    int32_t* ids = out_ids_ + (static_cast<std::size_t>(b) * K + r) * T;
    float* att = out_att_ + (static_cast<std::size_t>(b) * K + r) * T * S;
    float* step_logp = out_logp_ + (static_cast<std::size_t>(b) * K + r) * T;
    const int rows = h.step + 1;
    const bool ends_eos = hist_tok[static_cast<std::size_t>(h.step) * K + h.index] == eos;
    for (int t = h.step, j = h.index; t >= 0; --t) {
      const std::size_t at = static_cast<std::size_t>(t) * K + j;
      ids[t] = hist_tok[at];
      std::memcpy(att + static_cast<std::size_t>(t) * s, hist_att + at * S, sizeof(float) * s);
      j = hist_parent[at];
      // The summed log-probabilities of this step and the step before.
      step_logp[t] = hist_logp[at] - (t > 0 ? hist_logp[static_cast<std::size_t>(t - 1) * K + j] : 0.0f);
    }
    HypothesisView& v = views[r];
    v.ids = ids;
    v.length = static_cast<std::size_t>(ends_eos ? rows - 1 : rows);
    v.score = static_cast<float>(h.score);
    v.log_prob = h.log_prob;
    v.attention = att;
    v.step_log_probs = step_logp;
    v.source_length = static_cast<std::size_t>(s);
    v.attention_rows = static_cast<std::size_t>(rows);
  }
  out->hypotheses = views;
  out->count = static_cast<std::size_t>(count);
}

}  // namespace softalign::internal
