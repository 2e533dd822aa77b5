// What the rest of the library (and its tests) may reach inside a Translator:
// a friend of Translator, declared only here; not public API.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/status.hpp"
#include "softalign/translator.hpp"

namespace softalign::internal {

struct DeviceCostReport;  // device_costs.hpp
struct BatchCall;         // batch.hpp

struct TranslatorAccess {
  static const DeviceCostReport& device_costs(const Translator& translator);
  // translate_batch's two halves around the policy (translator_pool.cpp):
  // the call checked and its texts tokenised, then one batch translated
  // (`sentences`: n indices into texts, decoded together when they are all
  // direct, else the one sentence through translate()'s path). `cancels`:
  // the cancel() count the call stops on (the caller's: a Translator's or a pool's).
  static Status begin_batch(Translator& translator, const std::vector<std::string>& texts,
                            const SearchOptions& search, const std::atomic<uint64_t>* cancels, BatchCall* call);
  static void translate_run(Translator& translator, const BatchCall& call, const std::vector<std::string>& texts,
                            const std::size_t* sentences, std::size_t n, std::vector<TranslationResult>* results,
                            std::vector<Status>* status);
};

}  // namespace softalign::internal
