#include "search/ensemble_engine.hpp"

#include <cstring>

namespace softalign::internal {

Status check_ensemble(const std::vector<const ModelImpl*>& members) {
  const ModelImpl& a = *members[0];
  const ModelConfig& ca = a.config;
  for (std::size_t i = 1; i < members.size(); ++i) {
    const ModelImpl& b = *members[i];
    const ModelConfig& cb = b.config;
    auto refuse = [&](const std::string& what) {
      return Status(StatusCode::kInvalidArgument, "ensemble member " + std::to_string(i) + " (" + cb.name +
                                                      ") and member 0 (" + ca.name + ") differ: " + what +
                                                      "; an ensemble needs models that share both vocabularies");
    };
    auto sizes = [](const char* what, int x, int y) {
      return std::string(what) + " " + std::to_string(y) + " vs " + std::to_string(x);
    };
    if (cb.tgt_vocab != ca.tgt_vocab) return refuse(sizes("target vocabulary size", ca.tgt_vocab, cb.tgt_vocab));
    if (cb.src_vocab != ca.src_vocab) return refuse(sizes("source vocabulary size", ca.src_vocab, cb.src_vocab));
    if (cb.pad_id != ca.pad_id || cb.unk_id != ca.unk_id || cb.bos_id != ca.bos_id || cb.eos_id != ca.eos_id)
      return refuse("special ids (pad, unk, bos, eos)");
    if (b.tgt_spm_bytes != a.tgt_spm_bytes) return refuse("target SentencePiece models");
    if (b.src_spm_bytes != a.src_spm_bytes) return refuse("source SentencePiece models");
  }
  return Status::Ok();
}

EnsembleEngine::EnsembleEngine(std::vector<std::unique_ptr<Engine>> members, const kernels::KernelTable& kernels,
                               const EngineLimits& limits, int vocab)
    : members_(std::move(members)),
      k_(kernels),
      S_(limits.max_source),
      K_(limits.max_rows),
      B_(limits.max_sentences),
      V_(vocab) {}

void EnsembleEngine::layout(Arena& a) {
  for (auto& m : members_) m->layout(a);
  const std::size_t rows = static_cast<std::size_t>(K_) * B_;
  src_len_ = a.take<int32_t>(B_);
  row_len_ = a.take<int32_t>(rows);
  scores_ = a.take<float>(rows * V_);
  att_ = a.take<float>(rows * S_);
  scratch_ = a.take<float>(members_.size() * V_);
}

void EnsembleEngine::select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) {
  // The same table and sources: every member selects the same columns.
  for (auto& m : members_) m->select_vocab(use, srcs, lens, n);
}

void EnsembleEngine::start(const int32_t* const* srcs, const int* lens, int n) {
  for (int b = 0; b < n; ++b) src_len_[b] = lens[b];
  for (auto& m : members_) m->start(srcs, lens, n);
}

template <typename From>
void EnsembleEngine::mean(int rows, std::size_t count, float* sum, From from) {
  const std::size_t n = static_cast<std::size_t>(rows) * count;
  std::memcpy(sum, from(0), sizeof(float) * n);
  for (std::size_t m = 1; m < members_.size(); ++m) {
    const float* x = from(m);
    for (std::size_t i = 0; i < n; ++i) sum[i] += x[i];
  }
  const float members = static_cast<float>(members_.size());
  for (std::size_t i = 0; i < n; ++i) sum[i] /= members;
}

bool EnsembleEngine::log_probs(const StepGroups& groups, const int32_t* tokens, int t) {
  const SentenceVocabularies& vocab = members_[0]->vocabulary();  // every member's columns
  int rows = 0;
  std::size_t values = 0;  // the step's log-probabilities: each group's rows × its sentence's columns
  for (int g = 0; g < groups.count; ++g) {
    values += static_cast<std::size_t>(groups.rows[g]) * vocab.width(groups.sentence[g]);
    for (int r = 0; r < groups.rows[g]; ++r) row_len_[rows++] = src_len_[groups.sentence[g]];
  }
  bool finite = true;
  for (auto& m : members_) finite = m->log_probs(groups, tokens, t) && finite;
  if (!fault().ok()) return false;
  mean(1, values, scores_, [&](std::size_t m) { return members_[m]->log_prob_rows(); });
  // Attention rows: only the row's source length is meaningful.
  for (int r = 0; r < rows; ++r) {
    float* out = att_ + static_cast<std::size_t>(r) * S_;
    mean(1, static_cast<std::size_t>(row_len_[r]), out, [&](std::size_t m) { return members_[m]->attention(r); });
  }
  return finite;
}

// The members' steps and encoders, one after another (an ensemble chooses on the host: no greedy steps).
DeviceCosts EnsembleEngine::costs() const {
  DeviceCosts sum;
  auto add = [](RecordedCost* to, const RecordedCost& c) {
    to->dispatches += c.dispatches;
    to->barriers += c.barriers;
    to->weight_bytes += c.weight_bytes;
  };
  for (const auto& m : members_) {
    const DeviceCosts c = m->costs();
    add(&sum.step, c.step);
    add(&sum.encoder, c.encoder);
  }
  return sum;
}

Status EnsembleEngine::fault() const {
  for (const auto& m : members_) {
    Status st = m->fault();
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

void EnsembleEngine::reorder(const int32_t* parents, int n) {
  for (auto& m : members_) m->reorder(parents, n);
}

bool EnsembleEngine::force_step(int32_t token, int t, float* logits) {
  bool finite = true;
  auto row = [&](std::size_t m) { return scratch_ + m * V_; };
  for (std::size_t m = 0; m < members_.size(); ++m) {
    finite = members_[m]->force_step(token, t, row(m)) && finite;
    if (!fault().ok()) return false;
    k_.log_softmax(row(m), V_, row(m));
  }
  mean(1, static_cast<std::size_t>(V_), logits, row);
  mean(1, static_cast<std::size_t>(src_len_[0]), att_, [&](std::size_t m) { return members_[m]->attention(0); });
  return finite;
}

bool EnsembleEngine::batches_beams() const {
  for (const auto& m : members_)
    if (!m->batches_beams()) return false;
  return true;
}

}  // namespace softalign::internal
