// softalign — a TranslatorPool: replicas of one Translator over the same
// models, each with its own threads, and the one batching policy.
//
// translate_batch tokenises the texts, sorts them by length in pieces, cuts
// the sentences that fit into runs of up to max_batch decoded together (each
// step one product over all their rows; beam search where the engine says
// that is slower goes one by one), deals each group of runs taken at the
// same time so that the replicas get the same mix of lengths, and hands the
// runs to the replicas (one on the calling thread, the others on threads made
// at prepare, asleep between calls). Results come back in input order.
// Translator::translate_batch is this pool (of options.threads replicas of one
// thread, or of the translator alone); the CLI, C, Python, Java and JS
// bindings call it and none of them sorts or chunks again.
//
// A TranslatorPool is not thread-safe: one call at a time (cancel() excepted,
// which any thread may call).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "softalign/export.h"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/status.hpp"
#include "softalign/translator.hpp"

namespace softalign {

namespace internal {
class WorkerPool;
}

class TranslatorPool {
 public:
  // options.threads is the threads the pool uses in all: `replicas`
  // translators (0: options.threads of them), each prepared with
  // options.threads / replicas intra-sentence threads (at least 1) and its
  // own arena of options.max_batch sentences. The other options are each
  // replica's (Translator::prepare; its errors are returned).
  SOFTALIGN_API static Status prepare(const std::vector<std::shared_ptr<const Model>>& models,
                                      const TranslatorOptions& options, int replicas,
                                      std::unique_ptr<TranslatorPool>* out);
  SOFTALIGN_API static Status prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options,
                                      std::unique_ptr<TranslatorPool>* out);
  SOFTALIGN_API ~TranslatorPool();
  TranslatorPool(const TranslatorPool&) = delete;
  TranslatorPool& operator=(const TranslatorPool&) = delete;

  // Translator::translate_batch's contract: results in input order, each the
  // one translate() gives; a sentence that fails puts its Status in
  // (*status)[i] and leaves its result empty, while an error of the call
  // itself (null arguments, search options, target prefix, max_batch) is
  // returned with no result. max_batch bounds the sentences decoded together
  // (1 to options().max_batch; 0: options().max_batch).
  SOFTALIGN_API Status translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                       std::vector<TranslationResult>* out, std::vector<Status>* status,
                                       int max_batch = 0);

  // Stops the translate_batch call running when it is called, as
  // Translator::cancel() does: the sentences not finished get kCancelled.
  // Any thread, any time; a later call runs as usual.
  SOFTALIGN_API void cancel();

  SOFTALIGN_API std::size_t replica_count() const;
  // Replica i (< replica_count()): its options, model, backend; translate()
  // on it runs on its own threads.
  SOFTALIGN_API Translator& replica(std::size_t i);
  SOFTALIGN_API const TranslatorOptions& options() const;  // replica 0's

 private:
  TranslatorPool();
  std::vector<std::unique_ptr<Translator>> replicas_;
  std::unique_ptr<internal::WorkerPool> threads_;  // replica_count() - 1 threads
  std::atomic<uint64_t> cancels_{0};  // cancel() calls (internal::CallStop)
};

}  // namespace softalign
