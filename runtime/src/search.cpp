// Beam search (greedy is beam 1) and teacher-forced decoding, exactly as
// models/WEIGHTS_FORMAT.md "Search" describes. Allocation-free: every buffer
// is in the arena.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "translator_impl.hpp"

namespace softalign::internal {

namespace {

// Weights that hold NaN or Inf (a damaged file: the loader checks the scales
// and vectors, not every value of a float matrix) make NaN scores.
Status nonfinite_scores() {
  return Status(StatusCode::kInvalidModel,
                "the model computed non-finite scores: its weights are damaged (NaN or Inf values)");
}

}  // namespace

Status TranslatorImpl::step_failure() const {
  Status st = engine_->fault();
  return st.ok() ? nonfinite_scores() : st;
}

Status TranslatorImpl::check_source(const int32_t* src, std::size_t n) const {
  if (n == 0 || src == nullptr)
    return Status(StatusCode::kInvalidArgument, "the source must hold at least the EOS id");
  if (n > static_cast<std::size_t>(S))
    return Status(StatusCode::kInputTooLong, "the source has " + std::to_string(n) +
                                                 " tokens, more than the translator's max_source_tokens " +
                                                 std::to_string(S));
  for (std::size_t j = 0; j < n; ++j)
    if (src[j] < 0 || src[j] >= c->src_vocab)
      return Status(StatusCode::kInvalidArgument, "source id " + std::to_string(src[j]) + " at position " +
                                                      std::to_string(j) + " is outside [0, " +
                                                      std::to_string(c->src_vocab) + ")");
  if (src[n - 1] != c->eos_id)
    return Status(StatusCode::kInvalidArgument, "the source must end with the EOS id " + std::to_string(c->eos_id));
  return Status::Ok();
}

Status TranslatorImpl::force_decode(const int32_t* src, std::size_t n, const int32_t* tgt, std::size_t t_len,
                                    float* logits, float* attention) {
  Status st = check_source(src, n);
  if (!st.ok()) return st;
  if (logits == nullptr) return Status(StatusCode::kInvalidArgument, "logits is null");
  const int V = c->tgt_vocab;
  if (t_len > static_cast<std::size_t>(T))
    return Status(StatusCode::kInvalidArgument, "the target has " + std::to_string(t_len) +
                                                    " steps, more than the prepared maximum " + std::to_string(T));
  for (std::size_t i = 0; i < t_len; ++i)
    if (tgt[i] < 0 || tgt[i] >= V)
      return Status(StatusCode::kInvalidArgument, "target id " + std::to_string(tgt[i]) + " out of range");
  const int s = static_cast<int>(n);
  engine_->select_vocab(false, &src, &s, 1);  // full logits
  engine_->start(&src, &s, 1);
  for (std::size_t t = 0; t < t_len; ++t) {
    if (!engine_->force_step(tgt[t], static_cast<int>(t), logits + t * V)) return step_failure();
    if (attention) std::memcpy(attention + t * s, engine_->attention(0), sizeof(float) * s);
  }
  return Status::Ok();
}

Status TranslatorImpl::translate_ids(const int32_t* src, std::size_t n, const Search& sr, NBestView* out) {
  return translate_ids_batch(&src, &n, 1, sr, out);
}

Status TranslatorImpl::translate_ids_batch(const Span<const int32_t>* sources, int n, const Search& sr,
                                           NBestView* out) {
  for (int b = 0; b < n && b < B; ++b) {
    batch_srcs_[b] = sources[b].data();
    batch_lens_[b] = sources[b].size();
  }
  return translate_ids_batch(batch_srcs_, batch_lens_, n, sr, out);
}

// Several sentences decode together: every step runs the rows of all live
// sentences through the engine at once, and each sentence keeps its own beam
// (its best candidates over its own rows). A sentence leaves when its beam is
// finished. One sentence is the same search with n = 1.
Status TranslatorImpl::translate_ids_batch(const int32_t* const* srcs, const std::size_t* lens, int n,
                                           const Search& sr, NBestView* out) {
  if (out == nullptr || srcs == nullptr || lens == nullptr) return Status(StatusCode::kInvalidArgument, "null argument");
  if (n < 1 || n > B)
    return Status(StatusCode::kInvalidArgument, "a batch of " + std::to_string(n) + " sentences; the translator "
                                                "was prepared for 1 to " + std::to_string(B));
  for (int b = 0; b < n; ++b) {
    Status st = check_source(srcs[b], lens[b]);
    if (!st.ok()) return st;
    src_len_[b] = static_cast<int>(lens[b]);
    t_max_[b] = max_target_for(src_len_[b], sr);
    if (t_max_[b] > T)
      return Status(StatusCode::kInvalidArgument, "max_len_a/b give " + std::to_string(t_max_[b]) +
                                                      " target tokens, more than the prepared " + std::to_string(T));
    if (sr.prefix_len >= t_max_[b])
      return Status(StatusCode::kInvalidArgument,
                    "the target prefix has " + std::to_string(sr.prefix_len) + " pieces, but the max target length of " +
                        (n > 1 ? "source " + std::to_string(b) : std::string("the source")) + " is " +
                        std::to_string(t_max_[b]) + " (EOS included): the prefix must be shorter");
  }
  const int beam = sr.beam;
  const int eos = c->eos_id;
  const std::size_t TK = static_cast<std::size_t>(T) * K;
  // Candidates are flattened indices row * V + token id, per sentence.
  const int vocab = c->tgt_vocab;
  engine_->select_vocab(sr.shortlist, srcs, src_len_, n);
  engine_->start(srcs, src_len_, n);
  for (int b = 0; b < n; ++b) {
    alive_count_[b] = 1;
    finished_count_[b] = 0;
    alive_tok_[b] = c->bos_id;
    alive_logp_[b] = 0.0f;
    alive_idx_[b] = -1;
  }

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
        group_want_[groups] = forcing ? 1 : beam - finished_count_[b];
        group_forced_[groups] = forcing ? sr.prefix[t] : -1;
        ++groups;
      }
    if (groups == 0) break;
    StepGroups step_groups{groups, group_sent_, group_rows_, group_want_, forcing ? group_forced_ : nullptr};
    if (!forcing && sr.block_repeats > 0 && t > 0) {
      ban_repeats(t, groups, sr);
      step_groups.banned = banned_;
      step_groups.banned_per_row = ConfigLimits::kMaxBlockRepeats;
    }
    if (!engine_->step(step_groups, alive_tok_, alive_logp_, t, top_idx_, top_val_, group_got_))
      return step_failure();
    int next_alive = 0;
    for (int g = 0, first = 0; g < groups; first += group_rows_[g], ++g) {
      const int b = group_sent_[g], s = src_len_[b], got = group_got_[g];
      const int32_t* idx = top_idx_ + static_cast<std::size_t>(g) * K;
      const float* val = top_val_ + static_cast<std::size_t>(g) * K;
      int32_t* hist_tok = hist_tok_ + b * TK;
      int32_t* hist_parent = hist_parent_ + b * TK;
      float* hist_att = hist_att_ + b * TK * S;
      float* hist_logp = hist_logp_ + b * TK;
      for (int j = 0; j < got; ++j) {
        const int parent = first + idx[j] / vocab;
        hist_tok[static_cast<std::size_t>(t) * K + j] = idx[j] % vocab;
        hist_parent[static_cast<std::size_t>(t) * K + j] = alive_idx_[parent];
        hist_logp[static_cast<std::size_t>(t) * K + j] = val[j];
        std::memcpy(hist_att + (static_cast<std::size_t>(t) * K + j) * S, engine_->attention(parent),
                    sizeof(float) * s);
      }
      // A kept EOS finishes; at the last step every kept candidate finishes as it is.
      int alive = 0;
      for (int j = 0; j < got; ++j) {
        const int parent = first + idx[j] / vocab;
        const int tok = idx[j] % vocab;
        if (tok == eos || t + 1 == t_max_[b]) {
          Finished& f = finished_[static_cast<std::size_t>(b) * K + finished_count_[b]++];
          f.step = t;
          f.index = j;
          f.log_prob = val[j];
        } else {
          alive_parent_[next_alive] = parent;
          alive_tok_[next_alive] = tok;
          alive_logp_next_[next_alive] = val[j];
          alive_idx_next_[next_alive] = j;
          ++next_alive;
          ++alive;
        }
      }
      alive_count_[b] = alive;
    }
    engine_->reorder(alive_parent_, next_alive);
    std::memcpy(alive_logp_, alive_logp_next_, sizeof(float) * next_alive);
    std::memcpy(alive_idx_, alive_idx_next_, sizeof(int32_t) * next_alive);
  }
  for (int b = 0; b < n; ++b) finish(b, sr, &out[b]);
  return Status::Ok();
}

// For each alive row of step t (the rows of groups[0..groups), sentence after
// sentence), the ids it may not take (SearchOptions::block_repeats): for each
// n <= block_repeats, the id that would end a group of n pieces, starting a
// word, equal to the n pieces right before it. With y the row's tokens so
// far, that id is y[t-n], when y[t-n+1..t-1] == y[t-2n+1..t-n-1] and the
// group's first piece (the id itself for n = 1, else y[t-n+1]) starts a word.
void TranslatorImpl::ban_repeats(int t, int groups, const Search& sr) {
  constexpr int kMax = ConfigLimits::kMaxBlockRepeats;
  const std::size_t TK = static_cast<std::size_t>(T) * K;
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

// Sentence b's finished hypotheses: scores, the n-best order, the views.
void TranslatorImpl::finish(int b, const Search& sr, NBestView* out) {
  const int s = src_len_[b], eos = c->eos_id, finished = finished_count_[b];
  const std::size_t TK = static_cast<std::size_t>(T) * K;
  const int32_t* hist_tok = hist_tok_ + b * TK;
  const int32_t* hist_parent = hist_parent_ + b * TK;
  const float* hist_att = hist_att_ + b * TK * S;
  const float* hist_logp = hist_logp_ + b * TK;
  Finished* fin = finished_ + static_cast<std::size_t>(b) * K;
  // Scores, then the n-best order (stable: ties keep the finishing order).
  // In double, as the reference computes it (ranking near-ties the same way).
  for (int f = 0; f < finished; ++f) {
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
