// The inside of a Translator: the prepared limits, the kernels, the linear
// layers and every working buffer, laid out once in the arena.
#pragma once

#include <memory>
#include <vector>

#include "arena.hpp"
#include "engine.hpp"
#include "glossary_index.hpp"
#include "kernels/kernels.hpp"
#include "model_impl.hpp"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/span.hpp"
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
  int block_repeats = 0;   // SearchOptions::block_repeats
  // The forced target prefix (SearchOptions::target_prefix_ids), checked
  // against the vocabulary; its length against each source's max target
  // length when translating.
  const int32_t* prefix = nullptr;
  int prefix_len = 0;
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
  // One model, or an ensemble of several (ensemble_engine.hpp).
  Status prepare(const std::vector<std::shared_ptr<const Model>>& models, const TranslatorOptions& options);
  Status resolve(const SearchOptions& o, Search* out) const;
  Status check_source(const int32_t* src, std::size_t n) const;
  Status translate_ids(const int32_t* src, std::size_t n, const Search& search, NBestView* out);
  // n sources (n <= B) decoded together, each with its own beam: out[i] for srcs[i].
  Status translate_ids_batch(const int32_t* const* srcs, const std::size_t* lens, int n, const Search& search,
                             NBestView* out);
  Status translate_ids_batch(const Span<const int32_t>* sources, int n, const Search& search, NBestView* out);
  Status force_decode(const int32_t* src, std::size_t n, const int32_t* tgt, std::size_t t, float* logits,
                      float* attention);
  int max_target_for(int src_len, const Search& s) const;

  std::vector<std::shared_ptr<const Model>> models;  // the ensemble's members (one: a single model)
  std::shared_ptr<const Model> model;  // models[0]: its config, tokenizers and decoding defaults serve all
  const ModelImpl* m = nullptr;
  const ModelConfig* c = nullptr;
  TranslatorOptions options;  // defaults filled in
  GlossaryIndex glossary;     // options.glossary, for matching
  const kernels::KernelTable* k = nullptr;
  pthreadpool* pool = nullptr;
  int S = 0;  // max source tokens
  int K = 0;  // max beam
  int T = 0;  // max target tokens (EOS included) for a source of S tokens
  int B = 1;  // max sentences decoded together
  BackendInfo backend;  // the engine's backend and why
  Arena arena;
  // threads > 1: the other translators of translate_batch (one thread each,
  // the same model and options), made at prepare.
  std::vector<std::unique_ptr<Translator>> workers;

 private:
  void layout(Arena& a);
  void finish(int b, const Search& search, NBestView* out);

  // The search's answer when a step fails: the engine's fault, else damaged weights.
  Status step_failure() const;
  // Picks the engine (TranslatorOptions::backend) and fills `backend`.
  Status choose_engine(const EngineLimits& limits, const std::vector<const ModelImpl*>& impls);

  // The numbers under the search (engine.hpp): the CPU engine or the Vulkan engine.
  std::unique_ptr<Engine> engine_;

  // Per sentence of a batch (B of them): the search history ([T, K] and
  // [T, K, S]: every kept candidate's token, its parent's index in the step
  // before, its attention row, its summed log-probability), finished
  // hypotheses and the results.
  int32_t* hist_tok_ = nullptr;     // [B, T, K]
  int32_t* hist_parent_ = nullptr;  // [B, T, K]
  float* hist_att_ = nullptr;       // [B, T, K, S]
  float* hist_logp_ = nullptr;      // [B, T, K]
  Finished* finished_ = nullptr;    // [B, K]
  int32_t* out_ids_ = nullptr;      // [B, K, T]
  float* out_att_ = nullptr;        // [B, K, T, S]
  float* out_logp_ = nullptr;       // [B, K, T] each step's log-probability
  HypothesisView* out_views_ = nullptr;  // [B, K]
  int32_t* src_len_ = nullptr;      // [B]
  int32_t* t_max_ = nullptr;        // [B]
  int32_t* alive_count_ = nullptr;  // [B]
  int32_t* finished_count_ = nullptr;  // [B]
  // The alive rows of all sentences, sentence after sentence ([B K]).
  int32_t* alive_idx_ = nullptr;    // history index of each alive hypothesis
  int32_t* alive_idx_next_ = nullptr;
  float* alive_logp_ = nullptr;
  float* alive_logp_next_ = nullptr;
  int32_t* alive_tok_ = nullptr;
  int32_t* alive_parent_ = nullptr; // the row each next alive hypothesis continues
  // One step's groups ([B]) and their candidates ([B, K]).
  int32_t* group_sent_ = nullptr;
  int32_t* group_rows_ = nullptr;
  int32_t* group_want_ = nullptr;
  int32_t* group_got_ = nullptr;
  int32_t* group_forced_ = nullptr;
  int32_t* top_idx_ = nullptr;
  float* top_val_ = nullptr;
  double* coverage_ = nullptr;      // [S]
  // Repetition blocking: each alive row's refused ids ([B K, kMaxBlockRepeats],
  // -1 for none), and which target ids start a word ([V]: 1 when the piece
  // starts with U+2581), from the first model's target vocabulary.
  int32_t* banned_ = nullptr;
  uint8_t* word_start_ = nullptr;
  // Fills banned_ for the alive rows of step t's groups (their history in hist_*).
  void ban_repeats(int t, int groups, const Search& search);
  const int32_t** batch_srcs_ = nullptr;  // [B] the public batch call's sources
  std::size_t* batch_lens_ = nullptr;     // [B]
};

}  // namespace softalign::internal
