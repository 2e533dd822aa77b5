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
  engine_->select_vocab(false, src, s);  // full logits
  engine_->start(src, s);
  for (std::size_t t = 0; t < t_len; ++t) {
    if (!engine_->force_step(tgt[t], static_cast<int>(t), logits + t * V)) return nonfinite_scores();
    if (attention) std::memcpy(attention + t * s, engine_->attention(0), sizeof(float) * s);
  }
  return Status::Ok();
}

Status TranslatorImpl::translate_ids(const int32_t* src, std::size_t n, const Search& sr, NBestView* out) {
  Status st = check_source(src, n);
  if (!st.ok()) return st;
  if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
  const int s = static_cast<int>(n);
  const int t_max = max_target_for(s, sr);
  if (t_max > T)
    return Status(StatusCode::kInvalidArgument, "max_len_a/b give " + std::to_string(t_max) +
                                                    " target tokens, more than the prepared " + std::to_string(T));
  const int beam = sr.beam;
  const int eos = c->eos_id;
  // Candidates are flattened indices row * width + column.
  const int width = engine_->select_vocab(sr.shortlist, src, s);
  engine_->start(src, s);
  int alive = 1;
  alive_tok_[0] = c->bos_id;
  alive_logp_[0] = 0.0f;
  alive_idx_[0] = -1;
  int finished = 0;

  for (int t = 0; t < t_max && alive > 0; ++t) {
    const int want = beam - finished;
    const int got = engine_->step(alive, alive_tok_, alive_logp_, t, want, top_idx_, top_val_);
    if (got < 1) return nonfinite_scores();
    for (int j = 0; j < got; ++j) {
      const int parent = top_idx_[j] / width;
      hist_tok_[static_cast<std::size_t>(t) * K + j] = engine_->token(top_idx_[j] % width);
      hist_parent_[static_cast<std::size_t>(t) * K + j] = alive_idx_[parent];
      std::memcpy(hist_att_ + (static_cast<std::size_t>(t) * K + j) * S, engine_->attention(parent),
                  sizeof(float) * s);
    }
    // A kept EOS finishes; at the last step every kept candidate finishes as it is.
    int next_alive = 0;
    for (int j = 0; j < got; ++j) {
      const int parent = top_idx_[j] / width;
      const int tok = engine_->token(top_idx_[j] % width);
      if (tok == eos || t + 1 == t_max) {
        Finished& f = finished_[finished++];
        f.step = t;
        f.index = j;
        f.log_prob = top_val_[j];
      } else {
        alive_parent_[next_alive] = parent;
        alive_tok_[next_alive] = tok;
        alive_logp_next_[next_alive] = top_val_[j];
        alive_idx_[next_alive] = j;
        ++next_alive;
      }
    }
    alive = next_alive;
    engine_->reorder(alive_parent_, alive);
    std::memcpy(alive_logp_, alive_logp_next_, sizeof(float) * alive);
  }

  // Scores, then the n-best order (stable: ties keep the finishing order).
  // In double, as the reference computes it (ranking near-ties the same way).
  for (int f = 0; f < finished; ++f) {
    Finished& h = finished_[f];
    const int len = h.step + 1;
    const double lp = std::pow((5.0 + len) / 6.0, static_cast<double>(sr.alpha));
    double cp = 0.0;
    if (sr.beta > 0.0f) {
      std::fill(coverage_, coverage_ + s, 0.0);
      for (int t = h.step, j = h.index; t >= 0; --t) {
        const float* row = hist_att_ + (static_cast<std::size_t>(t) * K + j) * S;
        for (int x = 0; x < s; ++x) coverage_[x] += row[x];
        j = hist_parent_[static_cast<std::size_t>(t) * K + j];
      }
      for (int x = 0; x < s; ++x) cp += std::log(std::min(std::max(coverage_[x], 1e-6), 1.0));
      cp *= static_cast<double>(sr.beta);
    }
    h.score = static_cast<double>(h.log_prob) / lp + cp;
  }
  // Insertion sort: stable and allocation-free (std::stable_sort may allocate).
  for (int i = 1; i < finished; ++i) {
    const Finished f = finished_[i];
    int j = i;
    while (j > 0 && finished_[j - 1].score < f.score) {
      finished_[j] = finished_[j - 1];
      --j;
    }
    finished_[j] = f;
  }
  const int count = std::min(finished, sr.nbest);
  for (int r = 0; r < count; ++r) {
    const Finished& h = finished_[r];
    int32_t* ids = out_ids_ + static_cast<std::size_t>(r) * T;
    float* att = out_att_ + static_cast<std::size_t>(r) * T * S;
    const int rows = h.step + 1;
    const bool ends_eos = hist_tok_[static_cast<std::size_t>(h.step) * K + h.index] == eos;
    for (int t = h.step, j = h.index; t >= 0; --t) {
      ids[t] = hist_tok_[static_cast<std::size_t>(t) * K + j];
      std::memcpy(att + static_cast<std::size_t>(t) * s, hist_att_ + (static_cast<std::size_t>(t) * K + j) * S,
                  sizeof(float) * s);
      j = hist_parent_[static_cast<std::size_t>(t) * K + j];
    }
    HypothesisView& v = out_views_[r];
    v.ids = ids;
    v.length = static_cast<std::size_t>(ends_eos ? rows - 1 : rows);
    v.score = static_cast<float>(h.score);
    v.log_prob = h.log_prob;
    v.attention = att;
    v.source_length = static_cast<std::size_t>(s);
    v.attention_rows = static_cast<std::size_t>(rows);
  }
  out->hypotheses = out_views_;
  out->count = static_cast<std::size_t>(count);
  return Status::Ok();
}

}  // namespace softalign::internal
