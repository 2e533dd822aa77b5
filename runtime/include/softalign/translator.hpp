// softalign — a Translator: one model, fixed options, one arena.
//
// prepare() plans the arena from the model's config and the options (max
// source length, beam size, max-length ratio) and reserves it once; it picks
// the kernels and creates the XNNPACK operators. After prepare,
// translate_ids() and force_decode() perform no heap allocation at all.
// The text functions (translate, translate_batch) allocate for tokenisation
// (SentencePiece) and for the owned result strings, not in the numeric core.
//
// Per-call SearchOptions: unset fields take the prepared ones (options().search);
// the beam size and the resulting max target length may not exceed what was
// prepared.
//
// A Translator is not thread-safe: use one per thread (they may share a
// Model). The one exception is cancel(), which any thread may call.
//
// Stopping a call: cancel() from another thread, or a deadline
// (SearchOptions::timeout_ms), or a stream callback that answers kStop. The
// call then returns kCancelled or kDeadlineExceeded, with no result, within
// about one decoder step; the translator is ready for the next call, which
// the cancel does not touch.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "softalign/export.h"
#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "softalign/span.hpp"
#include "softalign/status.hpp"

namespace softalign {

namespace internal {
class TranslatorImpl;
struct TranslatorAccess;
}

// The backend a Translator computes on, chosen at prepare and kept for its
// life (never switched mid-sentence), and why.
struct BackendInfo {
  Backend backend = Backend::kCpu;  // kCpu or kVulkan, never kAuto
  std::string name = "cpu";         // "cpu" or "vulkan"
  std::string device;               // the Vulkan device, "<name> (<type>)"; empty on the CPU
  // Why this backend, e.g. "backend=auto: no Vulkan driver (vkCreateInstance:
  // VK_ERROR_INCOMPATIBLE_DRIVER)", "backend=cpu", "backend=vulkan".
  std::string reason;
  // What a device step costs (dispatches, barriers, weight bytes) is not
  // public: the benchmark and the tests read it (runtime/src/api/device_costs.hpp).
};

class Translator {
 public:
  SOFTALIGN_API static Status prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options,
                                      std::unique_ptr<Translator>* out);
  // An ensemble (1 to TranslatorOptions::kMaxEnsemble models): each step's
  // scores are the mean of the members' log-probabilities (log-softmax), its
  // attention rows the mean of theirs. The members must share both
  // vocabularies: the same vocabulary sizes and special ids and the same
  // embedded SentencePiece models, else kInvalidArgument; their variants and
  // weight types (f32, f16, i8) may differ. The first member's config gives
  // the decoding defaults, tokenizers and shortlist (every member computes
  // its output layer over the first member's shortlist); max_source_tokens
  // defaults to the members' smallest S_max. One model is the plain
  // translator of that model.
  SOFTALIGN_API static Status prepare(const std::vector<std::shared_ptr<const Model>>& models,
                                      const TranslatorOptions& options, std::unique_ptr<Translator>* out);
  SOFTALIGN_API ~Translator();
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  // Text in, text out. An empty (or all-whitespace) input gives one hypothesis
  // with empty text and score 0. Errors: kInvalidUtf8, kInputTooLong (unless
  // options().long_input splits at sentence boundaries), kInvalidArgument.
  // With options().copy_through (the default) names and identifiers are
  // copied through into each hypothesis's text (the ids API has no source
  // text and never does).
  SOFTALIGN_API Status translate(std::string_view text, TranslationResult* out);
  SOFTALIGN_API Status translate(std::string_view text, const SearchOptions& search, TranslationResult* out);
  // The same, streaming (StreamEvent): `callback` (empty: none) is told each
  // finished sentence and, with beam 1, each step's piece, on this thread,
  // before the call returns; answering kStop ends the call (kCancelled).
  SOFTALIGN_API Status translate(std::string_view text, const SearchOptions& search, const StreamCallback& callback,
                                 TranslationResult* out);
  // Results in input order; each sentence's result is the one translate()
  // gives. The policy is TranslatorPool's (translator_pool.hpp): sorted by
  // length, runs of up to options().max_batch decoded together (beam search
  // with int8 weights on CPU kernels without int8 lanes, AVX2 or NEON, goes
  // one by one, which measured faster there). With options().threads > 1 the
  // runs go to a pool of that many replicas over the same models, one thread
  // each, made at prepare (this translator's own threads serve a sentence
  // alone); else to this translator. This is the library's one way to use
  // several threads on many sentences: the CLI and the bindings call it.
  SOFTALIGN_API Status translate_batch(const std::vector<std::string>& texts, std::vector<TranslationResult>* out);
  SOFTALIGN_API Status translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                       std::vector<TranslationResult>* out);
  // The same, but a sentence that fails does not fail the others: its Status
  // goes into (*status)[i] and its result stays empty, while the call returns
  // Ok; an error of the call itself (null arguments, search options, target
  // prefix) is returned as above, with no result.
  SOFTALIGN_API Status translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                       std::vector<TranslationResult>* out, std::vector<Status>* status);
  // The same, at most max_batch sentences decoded together (1 to
  // options().max_batch, else kInvalidArgument; 0: options().max_batch).
  SOFTALIGN_API Status translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                       std::vector<TranslationResult>* out, std::vector<Status>* status,
                                       int max_batch);

  // The numeric core, allocation-free. `source` are source ids ending with the
  // model's EOS (1 <= size <= max_source_tokens, else kInputTooLong; ids
  // outside the vocabulary: kInvalidArgument). The views in `out` (ids,
  // scores, attention rows: always filled) stay valid until the next call on
  // this Translator.
  SOFTALIGN_API Status translate_ids(Span<const int32_t> source, NBestView* out);
  SOFTALIGN_API Status translate_ids(Span<const int32_t> source, const SearchOptions& search, NBestView* out);
  // The same with beam 1's pieces streamed (kPiece events; allocation-free
  // itself: the callback is the caller's).
  SOFTALIGN_API Status translate_ids(Span<const int32_t> source, const SearchOptions& search,
                                     const StreamCallback& callback, NBestView* out);
  // Up to options().max_batch sources decoded together (allocation-free): one
  // product per step over the rows of all of them, each weight read once for
  // the batch, each sentence with its own beam. out[i] (n views) is source
  // i's n-best list; with the reference kernels it is exactly what
  // translate_ids gives for that source alone (and with the others too, but
  // for a shortlist: there a row's log-softmax sums its vector lanes in
  // another grouping, a difference in the last bits of a score).
  SOFTALIGN_API Status translate_ids_batch(const Span<const int32_t>* sources, std::size_t n,
                                           const SearchOptions& search, NBestView* out);

  // Teacher-forced decoding (allocation-free): for target input `target_in`
  // (BOS then the pieces, T steps), writes T × tgt_vocab logits and, if
  // `attention` is not null, T × source.size() attention rows. For an
  // ensemble the "logits" are the mean of the members' log-softmax rows (the
  // scores its search adds up) and the attention rows the mean of theirs.
  SOFTALIGN_API Status force_decode(Span<const int32_t> source, Span<const int32_t> target_in, float* logits,
                                    float* attention);

  // Stops the calls of this translator running when it is called (translate,
  // translate_batch, the ids calls; force_decode is not stopped): they
  // return kCancelled. A call that starts afterwards runs as usual. Safe to
  // call from any thread, at any time, and allocation-free.
  SOFTALIGN_API void cancel();

  // Bytes reserved by prepare for all of this Translator's working memory.
  SOFTALIGN_API std::size_t arena_bytes() const;
  // The prepared options, with the model defaults filled in.
  SOFTALIGN_API const TranslatorOptions& options() const;
  SOFTALIGN_API const Model& model() const;  // an ensemble's first member
  SOFTALIGN_API std::size_t model_count() const;  // 1, or an ensemble's members
  SOFTALIGN_API int max_source_tokens() const;
  SOFTALIGN_API int max_target_tokens() const;  // T for the longest source, EOS included
  // The kernel set in use ("ref", ...).
  SOFTALIGN_API const char* kernels_name() const;
  // The backend in use and why (TranslatorOptions::backend).
  SOFTALIGN_API const BackendInfo& backend_info() const;

 private:
  // internal::TranslatorAccess (runtime/src/api/translator_access.hpp); not public API.
  friend struct internal::TranslatorAccess;
  explicit Translator(std::unique_ptr<internal::TranslatorImpl> impl);
  std::unique_ptr<internal::TranslatorImpl> impl_;
};

}  // namespace softalign
