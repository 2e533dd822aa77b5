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
  if (t_len > static_cast<std::size_t>(T))
    return Status(StatusCode::kInvalidArgument, "the target has " + std::to_string(t_len) +
                                                    " steps, more than the prepared maximum " + std::to_string(T));
  for (std::size_t i = 0; i < t_len; ++i)
    if (tgt[i] < 0 || tgt[i] >= V_)
      return Status(StatusCode::kInvalidArgument, "target id " + std::to_string(tgt[i]) + " out of range");
  const int s = static_cast<int>(n);
  shortlist_.select(m->shortlist, false, src, s, c->eos_id);  // full logits
  nonfinite_ = false;
  encode(src, s);
  init_state(state_cur_);
  for (std::size_t t = 0; t < t_len; ++t) {
    step(1, tgt + t, static_cast<int>(t), s, logits + t * V_);
    if (nonfinite_) return nonfinite_scores();
    if (attention) std::memcpy(attention + t * s, att_step_, sizeof(float) * s);
    std::memcpy(state_cur_, state_next_, sizeof(float) * state_size_);
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
  // Logits rows have `width` columns: the shortlist's union, or the vocabulary.
  const int width = shortlist_.select(m->shortlist, sr.shortlist, src, s, eos);
  nonfinite_ = false;
  encode(src, s);
  init_state(state_cur_);
  int alive = 1;
  alive_tok_[0] = c->bos_id;
  alive_logp_[0] = 0.0f;
  alive_idx_[0] = -1;
  int finished = 0;

  for (int t = 0; t < t_max && alive > 0; ++t) {
    step(alive, alive_tok_, t, s, logits_);
    // Candidate totals: logp of the hypothesis + log_softmax of its logits.
    for (int i = 0; i < alive; ++i) {
      float* row = logits_ + static_cast<std::size_t>(i) * width;
      k->log_softmax(row, width, row);
      for (int v = 0; v < width; ++v) row[v] += alive_logp_[i];
    }
    // Flattened index i * V + v: ties go to the lower hypothesis, then the lower token.
    const int want = beam - finished;
    const int got = k->topk(logits_, static_cast<std::size_t>(alive) * width, want, top_idx_, top_val_);
    if (nonfinite_ || got < 1) return nonfinite_scores();
    for (int j = 0; j < got; ++j)
      if (!std::isfinite(top_val_[j])) return nonfinite_scores();
    for (int j = 0; j < got; ++j) {
      const int parent = top_idx_[j] / width;
      hist_tok_[static_cast<std::size_t>(t) * K + j] = shortlist_.token(top_idx_[j] % width);
      hist_parent_[static_cast<std::size_t>(t) * K + j] = alive_idx_[parent];
      std::memcpy(hist_att_ + (static_cast<std::size_t>(t) * K + j) * S,
                  att_step_ + static_cast<std::size_t>(parent) * S, sizeof(float) * s);
    }
    // A kept EOS finishes; at the last step every kept candidate finishes as it is.
    int next_alive = 0;
    for (int j = 0; j < got; ++j) {
      const int parent = top_idx_[j] / width;
      const int tok = shortlist_.token(top_idx_[j] % width);
      if (tok == eos || t + 1 == t_max) {
        Finished& f = finished_[finished++];
        f.step = t;
        f.index = j;
        f.log_prob = top_val_[j];
      } else {
        std::memcpy(state_cur_ + static_cast<std::size_t>(next_alive) * state_size_,
                    state_next_ + static_cast<std::size_t>(parent) * state_size_, sizeof(float) * state_size_);
        alive_tok_[next_alive] = tok;
        alive_logp_next_[next_alive] = top_val_[j];
        alive_idx_[next_alive] = j;
        ++next_alive;
      }
    }
    alive = next_alive;
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
