// After prepare, translate_ids and force_decode perform no heap allocation,
// for every golden model in every precision and every search of golden.json;
// nor does a call stopped by cancel(), its deadline or its stream callback.
// The text API (SentencePiece tokenisation, owned result strings) does
// allocate; its count is printed, not asserted.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "alloc_counter.hpp"
#include "golden_util.hpp"
#include "shipped_model.hpp"
#if SOFTALIGN_TEST_VULKAN
#include "backends/vulkan/vulkan_device.hpp"
#include "backends/vulkan/vulkan_engine.hpp"
#endif

using namespace softalign;

// Kept where the optimiser cannot prove them unused (it may drop a malloc/free pair).
std::vector<int>* volatile g_vector;
void* volatile g_block;

TEST_CASE("the counter sees allocations") {
  alloc_counter::start();
  g_vector = new std::vector<int>(100);  // two: the object and its elements
  g_block = std::malloc(10);
  const long n = alloc_counter::stop();
  std::free(g_block);
  delete g_vector;
  CHECK(n == 3);
}

namespace {

// Counts allocations over three rounds of every golden sentence × search, and
// force_decode; then, for the record, over one translate() of text.
void check_model(const std::string& name, const char* precision, int threads, Backend backend = Backend::kCpu) {
  const nlohmann::json g = golden::load_json(name);
  INFO("model ", name, " (", precision, "), threads ", threads);
  std::shared_ptr<const Model> model;
  Status st = Model::load(golden::model_path(name, precision).string(), &model);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  TranslatorOptions opt;
  opt.search.beam_size = golden::widest_beam(g);
  opt.search.max_len_b = 64.0f;
  opt.threads = threads;
  opt.backend = backend;
  // Copy-through (the default) works on the text around the core; the core
  // it wraps must still allocate nothing.
  opt.copy_through = true;
  std::unique_ptr<Translator> tr;
  st = Translator::prepare(model, opt, &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  if (backend == Backend::kVulkan) REQUIRE(tr->backend_info().backend == Backend::kVulkan);

  // Inputs and option sets are built before counting starts.
  std::vector<std::vector<int32_t>> sources, targets;
  for (const auto& s : g["sentences"]) {
    sources.push_back(golden::ids(s["src_ids"]));
    targets.push_back(golden::ids(s["teacher_forced"]["tgt_in"]));
  }
  std::vector<SearchOptions> searches;
  for (const auto& spec : g["searches"]) {
    const SearchOptions so = golden::search_options(spec);
    searches.push_back(so);
  }
  std::vector<float> logits(64 * model->config().tgt_vocab), att(64 * 64);
  bool all_ok = true;
  std::size_t produced = 0;

  alloc_counter::start();
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < sources.size(); ++i) {
      for (const SearchOptions& so : searches) {
        NBestView nb;
        all_ok = all_ok && tr->translate_ids(sources[i], so, &nb).ok();
        produced += nb.count;
      }
      all_ok = all_ok && tr->force_decode(sources[i], targets[i], logits.data(), att.data()).ok();
    }
  }
  const long core = alloc_counter::stop();
  const long driver = alloc_counter::driver_allocations();
  CHECK(all_ok);
  CHECK(produced > 0);
  CHECK_MESSAGE(core == 0, core, " allocations in translate_ids/force_decode");

  // Batched decoding, on a translator prepared for batches of 3.
  TranslatorOptions batch_opt = opt;
  batch_opt.max_batch = 3;
  std::unique_ptr<Translator> batched;
  REQUIRE(Translator::prepare(model, batch_opt, &batched).ok());
  std::vector<Span<const int32_t>> spans;
  for (const auto& src : sources) spans.emplace_back(src.data(), src.size());
  NBestView views[3];
  alloc_counter::start();
  for (int round = 0; round < 3; ++round)
    for (const SearchOptions& so : searches)
      for (std::size_t first = 0; first < spans.size(); first += 3)
        all_ok = all_ok && batched->translate_ids_batch(spans.data() + first, std::min<std::size_t>(3, spans.size() - first),
                                                        so, views).ok();
  const long batch = alloc_counter::stop();
  CHECK(all_ok);
  CHECK_MESSAGE(batch == 0, batch, " allocations in translate_ids_batch");

  TranslationResult r;
  alloc_counter::start();
  const bool text_ok = tr->translate(g["sentences"][1]["src_text"].get<std::string>(), &r).ok();
  const long text = alloc_counter::stop();
  CHECK(text_ok);
  std::printf("alloc %-24s %-4s threads %d, %s: arena %zu bytes; translate_ids: %ld allocations (the Vulkan driver's: "
              "%ld); translate(text): %ld\n",
              name.c_str(), precision, threads, tr->backend_info().name.c_str(), tr->arena_bytes(), core, driver, text);
}

}  // namespace

TEST_CASE("translate_ids and force_decode allocate nothing after prepare") {
  const auto names = golden::names();
  REQUIRE(!names.empty());
  for (const std::string& name : names)
    for (const char* precision : {"f32", "f16", "int8"}) check_model(name, precision, 1);
}

TEST_CASE("nor with a thread pool") {
  for (const std::string& name : golden::names()) check_model(name, "f32", 2);
}

// A TranslatorPool's replicas (one with a pool of two threads, or two of one
// thread each): after prepare and a text batch, their numeric core allocates nothing.
TEST_CASE("nor a pool's replicas") {
  for (const std::string& name : golden::names()) {
    const nlohmann::json g = golden::load_json(name);
    std::shared_ptr<const Model> model;
    Status st = Model::load(golden::model_path(name, "f32").string(), &model);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    std::vector<std::vector<int32_t>> sources;
    std::vector<std::string> texts;
    for (const auto& s : g["sentences"]) {
      sources.push_back(golden::ids(s["src_ids"]));
      texts.push_back(s["src_text"].get<std::string>());
    }
    std::vector<Span<const int32_t>> spans;
    for (const auto& src : sources) spans.emplace_back(src.data(), src.size());
    for (int replicas : {1, 2}) {
      INFO(name, " replicas ", replicas);
      TranslatorOptions opt;
      opt.search.beam_size = 4;
      opt.search.max_len_b = 64.0f;
      opt.threads = 2;
      opt.max_batch = 2;
      std::unique_ptr<TranslatorPool> pool;
      st = TranslatorPool::prepare({model}, opt, replicas, &pool);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      std::vector<TranslationResult> results;
      std::vector<Status> status;
      REQUIRE(pool->translate_batch(texts, SearchOptions(), &results, &status).ok());
      bool all_ok = true;
      NBestView views[2];
      alloc_counter::start();
      for (std::size_t r = 0; r < pool->replica_count(); ++r)
        for (std::size_t i = 0; i < spans.size(); ++i) {
          all_ok = all_ok && pool->replica(r).translate_ids(spans[i], views).ok();
          all_ok = all_ok && pool->replica(r).translate_ids_batch(spans.data() + i, std::min<std::size_t>(2, spans.size() - i),
                                                                  SearchOptions(), views).ok();
        }
      const long core = alloc_counter::stop();
      CHECK(all_ok);
      CHECK_MESSAGE(core == 0, core, " allocations in a replica's translate_ids/translate_ids_batch");
    }
  }
}

#if SOFTALIGN_TEST_VULKAN
// The Vulkan engine's host side: the command buffers are recorded at prepare
// and only resubmitted, the I/O block is mapped once, the merge of the rows'
// candidates works in the arena: no allocation. The driver's own work inside
// a submission and its wait (lavapipe, a CPU device, executes the commands
// there and allocates as it goes; a GPU driver need not) is counted apart and
// printed, not asserted: it is not this library's.
namespace {

// Mesa writes the pipelines a prepare compiled into its on-disk shader cache
// from a thread of its own, some time after prepare: the driver's
// allocations, but outside the submissions the counter sets apart, so they
// would count as the library's. Off for this process (before its first
// Vulkan device; it changes nothing else the test sees).
void driver_cache_off() { setenv("MESA_SHADER_CACHE_DISABLE", "true", 1); }

}  // namespace

TEST_CASE("nor on the Vulkan engine") {
  driver_cache_off();
  softalign::internal::vk::g_driver_hooks.enter = alloc_counter::driver_enter;
  softalign::internal::vk::g_driver_hooks.leave = alloc_counter::driver_leave;
  for (const std::string& name : golden::names())
    for (const char* precision : {"f32", "f16", "int8"}) check_model(name, precision, 1, Backend::kVulkan);
  softalign::internal::vk::g_driver_hooks = {};
}

// With the attention operations on the host (the per-op fallback): the
// exchange buffer is mapped once and the host's scratch is in the arena.
TEST_CASE("nor on the Vulkan engine with its attention on the host") {
  driver_cache_off();
  softalign::internal::vk::g_driver_hooks.enter = alloc_counter::driver_enter;
  softalign::internal::vk::g_driver_hooks.leave = alloc_counter::driver_leave;
  softalign::internal::vk::g_attention_on_host = true;
  for (const std::string& name : golden::names()) check_model(name, "int8", 1, Backend::kVulkan);
  softalign::internal::vk::g_attention_on_host = false;
  softalign::internal::vk::g_driver_hooks = {};
}
#endif

namespace {

// Ensembles (any mix of weight types) and target prefixes: translate_ids,
// translate_ids_batch and force_decode allocate nothing either. `sizes`:
// the ensembles tried (its first members).
void check_ensembles(Backend backend, std::initializer_list<std::size_t> sizes) {
  const nlohmann::json g = golden::load_json("bahdanau");
  std::vector<std::shared_ptr<const Model>> members;
  for (const auto& [name, precision] : {std::pair<const char*, const char*>{"bahdanau", "f32"},
                                        {"luong_general", "int8"},
                                        {"encdec", "f16"}}) {
    std::shared_ptr<const Model> m;
    REQUIRE(Model::load(golden::model_path(name, precision).string(), &m).ok());
    members.push_back(m);
  }
  TranslatorOptions opt;
  opt.search.beam_size = 4;
  opt.search.max_len_b = 64.0f;
  opt.max_batch = 2;
  opt.backend = backend;
  for (std::size_t n : sizes) {
    INFO("members ", n);
    std::unique_ptr<Translator> tr;
    const std::vector<std::shared_ptr<const Model>> ensemble(members.begin(), members.begin() + n);
    REQUIRE(Translator::prepare(ensemble, opt, &tr).ok());
    REQUIRE(tr->backend_info().backend == backend);
    std::vector<std::vector<int32_t>> sources, targets;
    for (const auto& s : g["sentences"]) {
      sources.push_back(golden::ids(s["src_ids"]));
      targets.push_back(golden::ids(s["teacher_forced"]["tgt_in"]));
    }
    const std::vector<int32_t> prefix = {targets[1][1], targets[1][2]};
    std::vector<SearchOptions> searches;
    for (const auto& spec : g["searches"]) {
      searches.push_back(golden::search_options(spec));
      searches.push_back(golden::search_options(spec));
      searches.back().target_prefix_ids = prefix;
    }
    std::vector<Span<const int32_t>> spans(sources.begin(), sources.end());
    std::vector<float> logits(64 * members[0]->config().tgt_vocab), att(64 * 64);
    bool all_ok = true;
    std::size_t produced = 0;
    NBestView views[2];
    alloc_counter::start();
    for (int round = 0; round < 3; ++round)
      for (std::size_t i = 0; i < sources.size(); ++i) {
        for (const SearchOptions& so : searches) {
          NBestView nb;
          all_ok = all_ok && tr->translate_ids(sources[i], so, &nb).ok();
          produced += nb.count;
          all_ok = all_ok && tr->translate_ids_batch(spans.data() + i / 2 * 2, 2, so, views).ok();
        }
        all_ok = all_ok && tr->force_decode(sources[i], targets[i], logits.data(), att.data()).ok();
      }
    const long count = alloc_counter::stop();
    CHECK(all_ok);
    CHECK(produced > 0);
    CHECK_MESSAGE(count == 0, count, " allocations");
    std::printf("alloc ensemble of %zu on %s: arena %zu bytes; %ld allocations\n", n,
                tr->backend_info().name.c_str(), tr->arena_bytes(), count);
  }
}

}  // namespace

TEST_CASE("ensembles and target prefixes allocate nothing after prepare") {
  check_ensembles(Backend::kCpu, {1, 3});
}

#if SOFTALIGN_TEST_VULKAN
// On the Vulkan engine an ensemble's members return their rows to the host
// (VulkanEngine::log_probs), as a prefix's steps do: still nothing
// allocated but the driver's.
TEST_CASE("nor ensembles and target prefixes on the Vulkan engine") {
  driver_cache_off();
  softalign::internal::vk::g_driver_hooks.enter = alloc_counter::driver_enter;
  softalign::internal::vk::g_driver_hooks.leave = alloc_counter::driver_leave;
  check_ensembles(Backend::kVulkan, {1, 3});
  softalign::internal::vk::g_driver_hooks = {};
}
#endif

// The shipped en→fr file with its vocabulary shortlist, in batches of 12:
// each sentence's shortlist, the packed union and (greedy, with the AVX-512
// kernels) the union's product allocate nothing either, nor does repetition
// blocking.
// A call stopped in the middle (cancel() from its own stream callback, as
// another thread would; a deadline; the callback's kStop) returns its status
// without allocating, and the next call is whole.
TEST_CASE("a cancelled, a deadline-expired and a callback-stopped call allocate nothing") {
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  const std::vector<std::vector<int32_t>> sources = golden::package_sentences(*model, 2);
  TranslatorOptions opt;
  opt.search.beam_size = 1;
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, opt, &tr).ok());
  Translator* t = tr.get();
  int pieces = 0;
  // Captures of two pointers: within std::function's inline storage.
  const StreamCallback cancel_at_second = [t, &pieces](const StreamEvent&) {
    if (++pieces == 2) t->cancel();
    return StreamAction::kContinue;
  };
  const StreamCallback stop_at_first = [](const StreamEvent&) { return StreamAction::kStop; };
  const StreamCallback none;
  SearchOptions expired;
  expired.timeout_ms = 1;
  // A deadline needs a call that outlasts it: a source of the prepared
  // maximum length, whose greedy search runs to its max target length.
  std::vector<int32_t> longest(static_cast<std::size_t>(tr->max_source_tokens()), sources[0][0]);
  longest.back() = model->config().eos_id;
  NBestView nb;
  REQUIRE(tr->translate_ids(sources[0], &nb).ok());  // warm up
  Status cancelled, late, stopped, after;
  alloc_counter::start();
  for (int round = 0; round < 3; ++round) {
    pieces = 0;
    cancelled = tr->translate_ids(sources[0], opt.search, cancel_at_second, &nb);
    late = Status();
    for (int tries = 0; tries < 100 && late.ok(); ++tries) late = tr->translate_ids(longest, expired, none, &nb);
    stopped = tr->translate_ids(sources[1], opt.search, stop_at_first, &nb);
    after = tr->translate_ids(sources[1], &nb);
  }
  const long count = alloc_counter::stop();
  CHECK(cancelled.code() == StatusCode::kCancelled);
  CHECK(late.code() == StatusCode::kDeadlineExceeded);
  CHECK(stopped.code() == StatusCode::kCancelled);
  CHECK(after.ok());
  CHECK(nb.count == 1);
  CHECK_MESSAGE(count == 0, count, " allocations");
}

TEST_CASE("batches with the vocabulary shortlist allocate nothing after prepare") {
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  const std::vector<std::vector<int32_t>> sources = golden::package_sentences(*model);
  TranslatorOptions opt;
  opt.search.beam_size = 4;
  opt.max_batch = 12;
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, opt, &tr).ok());
  std::vector<Span<const int32_t>> spans(sources.begin(), sources.end());
  SearchOptions greedy, beam, blocking;
  greedy.beam_size = 1;
  beam.beam_size = 4;
  blocking.beam_size = 4;
  blocking.block_repeats = 8;  // repetition blocking reads the history, allocating nothing
  NBestView views[12];
  bool all_ok = true;
  alloc_counter::start();
  for (int round = 0; round < 3; ++round)
    for (const SearchOptions* so : {&greedy, &beam, &blocking})
      all_ok = all_ok && tr->translate_ids_batch(spans.data(), 12, *so, views).ok();
  const long count = alloc_counter::stop();
  CHECK(all_ok);
  CHECK_MESSAGE(count == 0, count, " allocations");
}
