// A translate_batch call inside the library: its texts tokenised once (by
// the first replica; replicas share models and options), and the policy that
// runs it over a pool's replicas (translator_pool.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/translator_access.hpp"
#include "api/worker_pool.hpp"
#include "core/call_stop.hpp"
#include "search/beam_search.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/translator.hpp"
#include "text/copy_through.hpp"

namespace softalign::internal {

struct BatchCall {
  struct Item {
    std::vector<int32_t> ids;
    std::vector<std::string> pieces;
    CopyPlan plan;
    bool direct = false;  // tokenised and within the limit
  };
  SearchOptions search;         // the call's, unset fields the prepared ones; a text prefix as ids:
  std::vector<int32_t> prefix;  // (viewed by search.target_prefix_ids)
  std::optional<CallStop> stop;  // the call's (from its start), which `resolved` points to
  Search resolved;              // checked before any sentence
  // Sentences decoded together (greedy, or beam search on an engine where
  // that pays: Engine::batches_beams), up to the prepared max_batch; else one by one.
  bool together = false;
  int max_batch = 1;
  std::vector<Item> items;  // one per text
};

// translate_batch over `count` replicas: the first runs on the calling
// thread, the others on `threads` (null when count is 1). max_batch: 0 or
// 1 to the replicas' max_batch. `cancels`: the cancel() count it stops on.
Status translate_batch_on(Translator* const* replicas, std::size_t count, WorkerPool* threads,
                          const std::atomic<uint64_t>* cancels, const std::vector<std::string>& texts, const SearchOptions& search, int max_batch,
                          std::vector<TranslationResult>* out, std::vector<Status>* status);

}  // namespace softalign::internal
