// The inside of a Translator: the prepared limits, the kernels, the engine,
// the search and every working buffer, laid out once in the arena. The
// translator is a facade: options -> checked search parameters -> the
// search (beam_search.hpp) over the engine (engine.hpp) -> results.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "api/device_costs.hpp"
#include "backends/engine.hpp"
#include "core/arena.hpp"
#include "kernels/kernels.hpp"
#include "model/model_impl.hpp"
#include "search/beam_search.hpp"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/span.hpp"
#include "softalign/translator.hpp"
#include "softalign/translator_pool.hpp"
#include "text/glossary_index.hpp"

struct pthreadpool;

namespace softalign::internal {

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
  // Whether translate_batch decodes beams of several sentences together (Engine::batches_beams).
  bool batches_beams() const { return engine_->batches_beams(); }

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
  DeviceCostReport device_costs;  // what its device steps cost (device_costs.hpp)
  Arena arena;
  // threads > 1: translate_batch's replicas (`threads` of them, one thread
  // each, the same models and options), made at prepare. This translator's own
  // pool (`pool`, its CpuEngine's) serves translate() and the ids calls.
  std::unique_ptr<TranslatorPool> batch_pool;
  // Translator::cancel() calls: a call stops when the count moves (core/call_stop.hpp).
  std::atomic<uint64_t> cancels{0};

 private:
  void layout(Arena& a);

  // The search's answer when a step fails: the engine's fault, else damaged weights.
  Status step_failure() const;
  // Picks the engine (TranslatorOptions::backend) and fills `backend`.
  Status choose_engine(const EngineLimits& limits, const std::vector<const ModelImpl*>& impls);

  // The numbers under the search (engine.hpp): the CPU engine or the Vulkan engine.
  std::unique_ptr<Engine> engine_;

  // The search, below this facade: its buffers are in the arena.
  BeamSearch search_;
  // Per sentence of a batch (B of them): its source length and max target length.
  int32_t* src_len_ = nullptr;  // [B]
  int32_t* t_max_ = nullptr;    // [B]
  const int32_t** batch_srcs_ = nullptr;  // [B] translate_ids_batch's sources
  std::size_t* batch_lens_ = nullptr;     // [B]
};

}  // namespace softalign::internal
