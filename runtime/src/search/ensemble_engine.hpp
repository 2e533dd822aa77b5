// Ensembles (Luong et al. 2015, §4): several models that share both
// vocabularies decode as one. Each member is an engine of any backend that
// computes its own rows' log-softmax (Engine::log_probs); the ensemble's
// step scores are their mean (member 0
// + member 1 + ..., divided by the number of members, in float32, as the
// reference's torch.stack(...).mean(0)), and its attention rows are the mean
// of the members' rows (what the coverage penalty and the soft alignment
// then see). The search chooses the candidates from the mean as from a
// single engine's rows (candidates.hpp).
//
// Every member selects its vocabulary from the first member's shortlist (if
// it has one), so all members' rows have the same columns; the shortlist is
// then the first member's, exactly as for that model alone.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/engine.hpp"
#include "kernels/kernels.hpp"
#include "model/model_impl.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

// Whether the models can form an ensemble: the same source and target
// vocabulary sizes and special ids, and the same embedded SentencePiece
// models (so a text gives every member the same source ids, and target ids
// mean the same pieces). kInvalidArgument with the first difference otherwise.
Status check_ensemble(const std::vector<const ModelImpl*>& members);

class EnsembleEngine final : public Engine {
 public:
  EnsembleEngine(std::vector<std::unique_ptr<Engine>> members, const kernels::KernelTable& kernels,
                 const EngineLimits& limits, int vocab);

  const char* name() const override { return "ensemble"; }
  void layout(Arena& arena) override;
  void select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) override;
  void start(const int32_t* const* srcs, const int* lens, int n) override;
  const float* attention(int row) const override { return att_ + static_cast<std::size_t>(row) * S_; }
  void reorder(const int32_t* parents, int n) override;
  // `logits` receives the mean of the members' log-softmax rows (the scores
  // the search adds up), the attention the mean of their rows.
  bool force_step(int32_t token, int t, float* logits) override;
  // The mean rows (an ensemble of ensembles is not built, but nothing stops it).
  bool log_probs(const StepGroups& groups, const int32_t* tokens, int t) override;
  float* log_prob_rows() override { return scores_; }
  const SentenceVocabularies& vocabulary() const override { return members_[0]->vocabulary(); }
  bool batches_beams() const override;  // when every member's does
  Status fault() const override;
  // The members' costs added up.
  DeviceCosts costs() const override;

 private:
  // Adds `rows` rows of `count` floats of each member (from(member)) into
  // `sum` and divides by the number of members.
  template <typename From>
  void mean(int rows, std::size_t count, float* sum, From from);

  std::vector<std::unique_ptr<Engine>> members_;
  const kernels::KernelTable& k_;
  const int S_, K_, B_, V_;
  int32_t* src_len_ = nullptr;  // [B] each sentence's length
  int32_t* row_len_ = nullptr;  // [B K] the source length of each row of the step
  float* scores_ = nullptr;     // [B K, V] the mean rows of a step (blocks as Engine::log_prob_rows)
  float* att_ = nullptr;        // [B K, S] the mean attention rows of a step
  float* scratch_ = nullptr;    // [members, V] the members' forced log-softmax rows
};

}  // namespace softalign::internal
