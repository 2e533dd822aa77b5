// The ids calls of the translator: their checks, then the search
// (beam_search.hpp) or teacher-forced decoding. Allocation-free: every buffer
// is in the arena.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "api/translator_impl.hpp"

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
  switch (search_.run(*engine_, srcs, src_len_, t_max_, n, sr, out)) {
    case BeamSearch::End::kDone: return Status::Ok();
    case BeamSearch::End::kFailed: return step_failure();
    case BeamSearch::End::kStopped: break;
  }
  return sr.stop->status();
}

}  // namespace softalign::internal
