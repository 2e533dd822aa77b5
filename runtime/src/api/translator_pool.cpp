// TranslatorPool: replicas over the same models, and translate_batch's one
// batching policy (Translator::translate_batch comes here too).
#include "softalign/translator_pool.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <utility>

#include "api/batch.hpp"
#include "api/worker_pool.hpp"
#include "core/guard.hpp"

namespace softalign {

namespace internal {
namespace {

// translate_batch's batches, as [begin, end) ranges of `order` (the
// sentences sorted by length): a sentence that is not `direct` alone; runs of
// direct ones in batches of up to `run`. With several translators, each
// group of up to `translators` batches in a row is dealt round-robin from its
// sentences (batch j of the group takes its sentences j, j + n, j + 2n, ...,
// `order` permuted so), so the batches the translators take at the same time
// have the same mix of lengths and sizes within one of each other; a group
// of fewer sentences than `translators` runs still makes a batch for each
// translator while it has sentences for them (all translators work). Cut in
// order, one translator would take the shortest sentences and then wait for
// the other: measured 19% fewer sentences/s, greedy at 2 threads.
template <typename IsDirect>
std::vector<std::pair<std::size_t, std::size_t>> plan_batches(IsDirect direct, std::size_t run, std::size_t translators,
                                                               std::vector<std::size_t>* order) {
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  std::vector<std::size_t> group;
  for (std::size_t i = 0; i < order->size();) {
    if (!direct((*order)[i])) {
      batches.emplace_back(i, i + 1);
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < order->size() && e - i < run * translators && direct((*order)[e])) ++e;
    const std::size_t n = e - i, count = std::max((n + run - 1) / run, std::min(n, translators));
    group.assign(order->begin() + static_cast<std::ptrdiff_t>(i), order->begin() + static_cast<std::ptrdiff_t>(e));
    std::size_t at = i;
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t begin = at;
      for (std::size_t k = b; k < n; k += count) (*order)[at++] = group[k];
      batches.emplace_back(begin, at);
    }
    i = e;
  }
  return batches;
}

}  // namespace

Status translate_batch_on(Translator* const* replicas, std::size_t count, WorkerPool* threads,
                          const std::atomic<uint64_t>* cancels, const std::vector<std::string>& texts,
                          const SearchOptions& search, int max_batch, std::vector<TranslationResult>* out,
                          std::vector<Status>* item_status) {
  return guarded([&]() -> Status {
    if (out == nullptr || item_status == nullptr) return Status(StatusCode::kInvalidArgument, "out or status is null");
    BatchCall call;
    Status st = TranslatorAccess::begin_batch(*replicas[0], texts, search, cancels, &call);
    if (!st.ok()) return st;
    if (max_batch < 0 || max_batch > call.max_batch)
      return Status(StatusCode::kInvalidArgument, "max_batch must be 1 to the prepared max_batch (" +
                                                      std::to_string(call.max_batch) + "), or 0 for it, got " +
                                                      std::to_string(max_batch));
    // In order of source length, so that the sentences decoded together have
    // similar lengths. Batches: runs of up to max_batch direct sentences in
    // that order, decoded together (each step one product, or on a GPU one
    // dispatch, over all their rows), except beam search on an engine where
    // that is slower than one by one (Engine::batches_beams). The others
    // (invalid UTF-8, blank, too long) one by one through translate()'s path
    // (error, replacement, split). Each replica takes the next batch until
    // none is left.
    std::vector<std::size_t> order(texts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return call.items[a].ids.size() < call.items[b].ids.size();
    });
    const std::size_t run = call.together ? static_cast<std::size_t>(max_batch > 0 ? max_batch : call.max_batch) : 1;
    const std::size_t workers = texts.size() > 1 ? count : 1;
    const std::vector<std::pair<std::size_t, std::size_t>> batches =
        plan_batches([&](std::size_t i) { return call.items[i].direct; }, run, workers, &order);
    std::vector<TranslationResult> results(texts.size());
    std::vector<Status> status(texts.size());
    struct Shared {
      Translator* const* replicas;
      const BatchCall* call;
      const std::vector<std::string>* texts;
      const std::vector<std::size_t>* order;
      const std::vector<std::pair<std::size_t, std::size_t>>* batches;
      std::vector<TranslationResult>* results;
      std::vector<Status>* status;
      std::atomic<std::size_t> next{0};
    } shared{replicas, &call, &texts, &order, &batches, &results, &status};
    auto work = [](void* ctx, std::size_t w) {
      Shared& sh = *static_cast<Shared*>(ctx);
      for (std::size_t n; (n = sh.next.fetch_add(1)) < sh.batches->size();) {
        const auto [begin, end] = (*sh.batches)[n];
        TranslatorAccess::translate_run(*sh.replicas[w], *sh.call, *sh.texts, sh.order->data() + begin, end - begin,
                                        sh.results, sh.status);
      }
    };
    if (workers > 1 && threads != nullptr) threads->run(work, &shared);
    else work(&shared, 0);
    for (std::size_t i = 0; i < texts.size(); ++i)
      if (!status[i].ok()) results[i] = TranslationResult();
    *out = std::move(results);
    *item_status = std::move(status);
    return Status::Ok();
  });
}

}  // namespace internal

TranslatorPool::TranslatorPool() = default;
TranslatorPool::~TranslatorPool() = default;

Status TranslatorPool::prepare(std::shared_ptr<const Model> model, const TranslatorOptions& options,
                               std::unique_ptr<TranslatorPool>* out) {
  return internal::guarded([&]() -> Status {
    if (model == nullptr || out == nullptr) return Status(StatusCode::kInvalidArgument, "model or out is null");
    return prepare(std::vector<std::shared_ptr<const Model>>{std::move(model)}, options, 0, out);
  });
}

Status TranslatorPool::prepare(const std::vector<std::shared_ptr<const Model>>& models,
                               const TranslatorOptions& options, int replicas, std::unique_ptr<TranslatorPool>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    if (options.threads < 1 || options.threads > TranslatorOptions::kMaxThreads)
      return Status(StatusCode::kInvalidArgument,
                    "threads must be in [1, " + std::to_string(TranslatorOptions::kMaxThreads) + "]");
    if (replicas < 0 || replicas > options.threads)
      return Status(StatusCode::kInvalidArgument, "replicas must be 0 (threads) to threads (" +
                                                      std::to_string(options.threads) + "), got " +
                                                      std::to_string(replicas));
    const int count = replicas == 0 ? options.threads : replicas;
    TranslatorOptions each = options;
    each.threads = options.threads / count;
    std::unique_ptr<TranslatorPool> pool(new TranslatorPool());
    for (int i = 0; i < count; ++i) {
      std::unique_ptr<Translator> tr;
      Status st = Translator::prepare(models, each, &tr);
      if (!st.ok()) return st;
      pool->replicas_.push_back(std::move(tr));
    }
    if (count > 1) pool->threads_ = std::make_unique<internal::WorkerPool>(count - 1);
    *out = std::move(pool);
    return Status::Ok();
  });
}

Status TranslatorPool::translate_batch(const std::vector<std::string>& texts, const SearchOptions& search,
                                       std::vector<TranslationResult>* out, std::vector<Status>* status,
                                       int max_batch) {
  std::vector<Translator*> replicas;
  for (const auto& r : replicas_) replicas.push_back(r.get());
  return internal::translate_batch_on(replicas.data(), replicas.size(), threads_.get(), &cancels_, texts, search,
                                      max_batch, out, status);
}

void TranslatorPool::cancel() { cancels_.fetch_add(1, std::memory_order_release); }

std::size_t TranslatorPool::replica_count() const { return replicas_.size(); }
Translator& TranslatorPool::replica(std::size_t i) { return *replicas_.at(i); }
const TranslatorOptions& TranslatorPool::options() const { return replicas_[0]->options(); }

}  // namespace softalign
