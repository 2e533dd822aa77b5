// The inside of a Translator: the prepared limits, the kernels, the linear
// layers and every working buffer, laid out once in the arena.
#pragma once

#include <memory>
#include <vector>

#include "arena.hpp"
#include "engine.hpp"
#include "kernels/kernels.hpp"
#include "model_impl.hpp"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/translator.hpp"

struct pthreadpool;

namespace softalign::internal {

// The search parameters of one call, resolved and checked.
struct Search {
  int beam = 1;
  int nbest = 1;
  float alpha = 0.0f;
  float beta = 0.0f;
  float max_len_a = 0.0f;
  float max_len_b = 0.0f;
  bool shortlist = false;  // output layer over the model's shortlist (it has one)
};

struct Finished {
  int step = 0;   // step of its last token
  int index = 0;  // its index in that step's kept list
  float log_prob = 0.0f;
  double score = 0.0;
};

class TranslatorImpl {
 public:
  ~TranslatorImpl();
  Status prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options);
  Status resolve(const SearchOptions& o, Search* out) const;
  Status check_source(const int32_t* src, std::size_t n) const;
  Status translate_ids(const int32_t* src, std::size_t n, const Search& search, NBestView* out);
  Status force_decode(const int32_t* src, std::size_t n, const int32_t* tgt, std::size_t t, float* logits,
                      float* attention);
  int max_target_for(int src_len, const Search& s) const;

  std::shared_ptr<const Model> model;
  const ModelImpl* m = nullptr;
  const ModelConfig* c = nullptr;
  TranslatorOptions options;  // defaults filled in
  const kernels::KernelTable* k = nullptr;
  pthreadpool* pool = nullptr;
  int S = 0;  // max source tokens
  int K = 0;  // max beam
  int T = 0;  // max target tokens (EOS included) for a source of S tokens
  Arena arena;
  // threads > 1: the other translators of translate_batch (one thread each,
  // the same model and options), made at prepare.
  std::vector<std::unique_ptr<Translator>> workers;

 private:
  void layout(Arena& a);

  // The numbers under the search (engine.hpp): the CPU engine today.
  std::unique_ptr<Engine> engine_;

  // Search history ([T, K] and [T, K, S]): every kept candidate's token, its
  // parent's index in the step before, and its attention row.
  int32_t* hist_tok_ = nullptr;
  int32_t* hist_parent_ = nullptr;
  float* hist_att_ = nullptr;
  int32_t* alive_idx_ = nullptr;    // [K] history index of each alive hypothesis
  float* alive_logp_ = nullptr;     // [K]
  int32_t* alive_tok_ = nullptr;    // [K]
  float* alive_logp_next_ = nullptr;
  int32_t* alive_parent_ = nullptr; // [K] the row each next alive hypothesis continues
  int32_t* top_idx_ = nullptr;      // [K]
  float* top_val_ = nullptr;        // [K]
  double* coverage_ = nullptr;      // [S]
  Finished* finished_ = nullptr;    // [K]
  int32_t* out_ids_ = nullptr;      // [K, T]
  float* out_att_ = nullptr;        // [K, T, S]
  HypothesisView* out_views_ = nullptr;  // [K]
};

}  // namespace softalign::internal
