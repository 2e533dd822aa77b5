// The Vulkan engine against the CPU engine (the oracle), on whatever Vulkan
// device backend=vulkan finds: in CI lavapipe, Mesa's CPU Vulkan device.
//
// For every golden model (every variant: bahdanau, encdec, luong with each
// score, scope, input feeding or not, two layers; format version 2's LSTM
// cells, one-way and reversed encoders, sources without EOS, every bridge,
// attentional and query biases) and precision, greedy and
// beam n-best ids must be identical to the CPU's, and teacher-forced logits,
// attention rows, scores and log-probabilities close to them. Tolerance: the
// golden test (golden_test.cpp) bounds each backend's distance to the PyTorch
// reference by tol (fp32: logits 1e-4, attention 1e-5; f16/int8: ε · depth ·
// max|logit|, the quantization bound), so by the triangle inequality two
// backends that both pass it differ by at most 2 · tol; that is the bound
// here. (Both compute the same quantized products for f16/int8 weights — the
// same per-row activation quantization — so they are in fact much closer;
// the measured differences are printed.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "damaged_file.hpp"
#include "golden_util.hpp"
#include "api/device_costs.hpp"
#include "backends/vulkan/vulkan_device.hpp"
#include "backends/vulkan/vulkan_engine.hpp"

using namespace softalign;

namespace {

// SOFTALIGN_TEST_INTEGER_DOT=supported runs every case on packed int8 dot
// products wherever the device has them, =never on the plain int8 path (the
// default: where the device accelerates them); SOFTALIGN_TEST_SUBGROUP=never
// sums the one-row kernels' lanes through shared memory even where subgroup
// shuffles could; SOFTALIGN_TEST_HOST_ATTENTION=1 runs every attention
// operation on the host, through the engine's per-op fallback to the CPU
// (VulkanEngine::supports). Set before the device opens.
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}
const bool kIntegerDotForced = [] {
  using softalign::internal::vk::IntegerDot;
  const std::string mode = env_or_empty("SOFTALIGN_TEST_INTEGER_DOT");
  if (mode == "never") softalign::internal::vk::g_integer_dot = IntegerDot::kNever;
  if (mode == "supported") softalign::internal::vk::g_integer_dot = IntegerDot::kWhereSupported;
  if (env_or_empty("SOFTALIGN_TEST_SUBGROUP") == "never") softalign::internal::vk::g_subgroup_sums = false;
  return mode == "supported";
}();
const bool kAttentionOnHost = [] {
  softalign::internal::vk::g_attention_on_host = env_or_empty("SOFTALIGN_TEST_HOST_ATTENTION") == "1";
  return softalign::internal::vk::g_attention_on_host;
}();

// The step's operations the Vulkan engine runs on the host for this model:
// its one attention operation when the fallback is forced (encdec has none).
int expected_host_operations(const Model& model) {
  return kAttentionOnHost && model.config().variant != Variant::kEncDec ? 1 : 0;
}

Status prepare(const std::shared_ptr<const Model>& model, Backend backend, std::unique_ptr<Translator>* out,
               int beam = 4, int max_batch = 1) {
  TranslatorOptions o;
  o.backend = backend;
  o.max_batch = max_batch;
  o.search.beam_size = beam;
  o.search.max_len_a = 1.0f;
  o.search.max_len_b = 64.0f;
  o.use_shortlist = false;
  return Translator::prepare(model, o, out);
}

// Two backends' n-best lists of one call: identical ids; scores and
// log-probabilities within one logit bound (twice, the log-sum-exp too) per
// step of the hypothesis, attention rows within tol_att. *worst: the largest
// score difference seen.
void compare_nbest(const NBestView& a, const NBestView& b, double tol_logits, double tol_att, double* worst) {
  REQUIRE(a.count == b.count);
  for (std::size_t r = 0; r < a.count; ++r) {
    const HypothesisView& x = a.hypotheses[r];
    const HypothesisView& y = b.hypotheses[r];
    INFO("hypothesis ", r);
    REQUIRE(std::vector<int32_t>(x.ids, x.ids + x.length) == std::vector<int32_t>(y.ids, y.ids + y.length));
    const double tol_s = 2 * tol_logits * static_cast<double>(x.attention_rows);
    const double ds = std::fabs(static_cast<double>(x.score) - y.score);
    CHECK_MESSAGE(ds <= tol_s, "score differs by ", ds);
    CHECK_MESSAGE(std::fabs(static_cast<double>(x.log_prob) - y.log_prob) <= tol_s, "log-prob differs");
    *worst = std::max(*worst, ds);
    REQUIRE(x.attention_rows == y.attention_rows);
    double wa = 0;
    for (std::size_t i = 0; i < x.attention_rows * x.source_length; ++i)
      wa = std::max(wa, std::fabs(static_cast<double>(x.attention[i]) - y.attention[i]));
    CHECK_MESSAGE(wa <= tol_att, "attention rows differ by ", wa);
  }
}

struct Measured {
  double logits = 0, att = 0, score = 0;
  int searches = 0;
};

void compare_model(const std::string& name, const std::string& precision, Measured* m) {
  INFO("model ", name, " (", precision, ")");
  const nlohmann::json g = golden::load_json(name);
  std::shared_ptr<const Model> model;
  Status st = Model::load(golden::model_path(name, precision).string(), &model);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  std::unique_ptr<Translator> cpu, gpu;
  // The widest beam of the golden searches (each search narrows it per call).
  const int beam = golden::widest_beam(g);
  REQUIRE(prepare(model, Backend::kCpu, &cpu, beam).ok());
  st = prepare(model, Backend::kVulkan, &gpu, beam);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  REQUIRE(gpu->backend_info().backend == Backend::kVulkan);
  CHECK(gpu->backend_info().name == "vulkan");
  CHECK(!gpu->backend_info().device.empty());
  CHECK(internal::device_costs(*gpu).host_operations == expected_host_operations(*model));

  const ModelConfig& c = model->config();
  const int V = c.tgt_vocab;
  // Both engines are within the golden test's tolerances of PyTorch: twice them of each other.
  const golden::Tolerance golden_tol = golden::tolerance(g, c, precision);
  const double tol_logits = 2 * golden_tol.logits, tol_att = 2 * golden_tol.att;

  std::vector<float> lc, lg, ac, ag;
  for (const auto& sent : g["sentences"]) {
    const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
    const std::vector<int32_t> tgt = golden::ids(sent["teacher_forced"]["tgt_in"]);
    INFO("source ", sent["src_text"].get<std::string>());
    const std::size_t T = tgt.size(), S = src.size();
    lc.assign(T * V, 0.0f);
    lg.assign(T * V, 1.0f);
    ac.assign(T * S, 0.0f);
    ag.assign(T * S, 1.0f);
    REQUIRE(cpu->force_decode(src, tgt, lc.data(), ac.data()).ok());
    st = gpu->force_decode(src, tgt, lg.data(), ag.data());
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    double dl = 0, da = 0;
    for (std::size_t i = 0; i < lc.size(); ++i) dl = std::max(dl, std::fabs(static_cast<double>(lc[i]) - lg[i]));
    for (std::size_t i = 0; i < ac.size(); ++i) da = std::max(da, std::fabs(static_cast<double>(ac[i]) - ag[i]));
    CHECK_MESSAGE(dl <= tol_logits, "teacher-forced logits differ by ", dl, " > ", tol_logits);
    CHECK_MESSAGE(da <= tol_att, "teacher-forced attention differs by ", da, " > ", tol_att);
    m->logits = std::max(m->logits, dl);
    m->att = std::max(m->att, da);

    for (const auto& spec : g["searches"]) {
      INFO("search ", spec["name"].get<std::string>());
      const SearchOptions so = golden::search_options(spec);
      NBestView a, b;
      REQUIRE(cpu->translate_ids(src, so, &a).ok());
      st = gpu->translate_ids(src, so, &b);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      ++m->searches;
      compare_nbest(a, b, tol_logits, tol_att, &m->score);
    }
  }
}

}  // namespace

TEST_CASE("vulkan: golden models on the Vulkan engine give the CPU's results") {
  const auto names = golden::names();
  REQUIRE(!names.empty());
  {  // which int8 products these cases run
    std::shared_ptr<const Model> model;
    REQUIRE(Model::load(golden::model_path(names[0], "int8").string(), &model).ok());
    std::unique_ptr<Translator> gpu;
    REQUIRE(prepare(model, Backend::kVulkan, &gpu).ok());
    const bool dot = gpu->backend_info().device.find("int8 dot products") != std::string::npos;
    const bool sub = gpu->backend_info().device.find("subgroup sums") != std::string::npos;
    std::printf("vulkan int8 products: %s; one-row kernels' lanes summed %s\n",
                dot ? "packed int8 dot products" : "plain (bytes unpacked)",
                sub ? "by subgroup shuffles" : "through shared memory");
    if (kIntegerDotForced && !dot) MESSAGE("this Vulkan device has no integer dot products: the dot path is not tested");
  }
  for (const std::string& name : names)
    for (const char* precision : {"f32", "f16", "int8"}) {
      Measured m;
      compare_model(name, precision, &m);
      std::printf("vulkan %-22s %-4s vs cpu: logits max abs %.3g  attention %.3g  score %.3g  (%d searches, ids identical)\n",
                  name.c_str(), precision, m.logits, m.att, m.score, m.searches);
    }
}

TEST_CASE("vulkan: auto takes only a GPU, and only for batches; cpu is the CPU") {
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &model).ok());
  std::unique_ptr<Translator> tr;
  REQUIRE(prepare(model, Backend::kCpu, &tr).ok());
  CHECK(tr->backend_info().backend == Backend::kCpu);
  CHECK(tr->backend_info().reason == "backend=cpu");
  // One sentence at a time: the CPU, by auto's rule, before any probe.
  REQUIRE(prepare(model, Backend::kAuto, &tr).ok());
  CHECK(tr->backend_info().backend == Backend::kCpu);
  CHECK(tr->backend_info().reason.find("backend=auto: the CPU for fewer than 8 sentences") == 0);
  // Batches: a GPU if there is one.
  REQUIRE(prepare(model, Backend::kAuto, &tr, 4, 8).ok());
  const BackendInfo info = tr->backend_info();  // a copy: tr is prepared again below
  INFO("auto: ", info.name, ", ", info.reason, ", ", info.device);
  if (info.backend == Backend::kVulkan) {
    CHECK(info.device.find("GPU") != std::string::npos);
  } else {
    CHECK(info.name == "cpu");
    CHECK(info.reason.find("backend=auto: ") == 0);
    CHECK(info.reason.size() > std::string("backend=auto: ").size());
  }
  // The device backend=vulkan takes, and that a CPU device is never auto's.
  REQUIRE(prepare(model, Backend::kVulkan, &tr).ok());
  const std::string device = tr->backend_info().device;
  std::printf("vulkan device: %s; auto: %s (%s)\n", device.c_str(), info.name.c_str(), info.reason.c_str());
  if (device.find("(CPU device)") != std::string::npos) {
    CHECK(info.backend == Backend::kCpu);
    // Without a GPU device node auto does not even load the drivers.
    CHECK(info.reason.find(softalign::internal::vk::gpu_device_node_present() ? "no Vulkan GPU" : "no GPU device node") !=
          std::string::npos);
  }
}

// Steps the search chooses on the host (engine.hpp, log_probs): an
// ensemble's mean of its members' rows, a forced target prefix and
// repetition blocking. Each golden ensemble (tests/golden/ensembles.json),
// with and without its prefix, in f32 and int8, on the Vulkan engine gives
// the CPU ensemble's ids, scores within the two backends' bound; so does a
// single model with block_repeats.
namespace {

using Models = std::vector<std::shared_ptr<const Model>>;

TranslatorOptions host_step_options(Backend backend) {
  TranslatorOptions o;
  o.backend = backend;
  o.search.beam_size = 4;
  o.search.max_len_a = 1.0f;
  o.search.max_len_b = 64.0f;
  return o;
}

}  // namespace

TEST_CASE("vulkan: ensembles, target prefixes and repetition blocking give the CPU's results") {
  const nlohmann::json all = golden::load_ensembles();
  REQUIRE(all["ensembles"].size() >= 3);
  for (const char* precision : {"f32", "int8"}) {
    for (const auto& e : all["ensembles"]) {
      Models models;
      double tol_logits = 0, tol_att = 0;
      std::string label;
      for (const auto& name : e["members"]) {
        std::shared_ptr<const Model> m;
        REQUIRE(Model::load(golden::model_path(name, precision).string(), &m).ok());
        const golden::Tolerance t = golden::tolerance(golden::load_json(name), m->config(), precision);
        tol_logits = std::max(tol_logits, 2 * t.logits);  // both backends within it of PyTorch
        tol_att = std::max(tol_att, 2 * t.att);
        models.push_back(m);
        label += (label.empty() ? "" : "+") + name.get<std::string>();
      }
      INFO("ensemble ", label, " (", precision, ")");
      std::unique_ptr<Translator> cpu, gpu;
      REQUIRE(Translator::prepare(models, host_step_options(Backend::kCpu), &cpu).ok());
      const Status st = Translator::prepare(models, host_step_options(Backend::kVulkan), &gpu);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      REQUIRE(gpu->backend_info().backend == Backend::kVulkan);
      CHECK(gpu->model_count() == models.size());
      int searches = 0;
      double worst = 0;
      for (const auto& sent : e["sentences"]) {
        const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
        for (const bool with_prefix : {false, true}) {
          for (const auto& search : sent["search"]) {
            const auto& spec = *std::find_if(all["searches"].begin(), all["searches"].end(),
                                             [&](const nlohmann::json& s) { return s["name"] == search["name"]; });
            SearchOptions so = golden::search_options(spec);
            const std::vector<int32_t> prefix = golden::ids(sent["prefix"]);
            if (with_prefix) so.target_prefix_ids = prefix;
            INFO("search ", spec["name"].get<std::string>(), with_prefix ? " with its prefix" : "");
            NBestView a, b;
            REQUIRE(cpu->translate_ids(src, so, &a).ok());
            const Status ts = gpu->translate_ids(src, so, &b);
            REQUIRE_MESSAGE(ts.ok(), ts.to_string());
            compare_nbest(a, b, tol_logits, tol_att, &worst);
            ++searches;
          }
        }
      }
      std::printf("vulkan ensemble %-40s %-4s vs cpu: %d searches (with and without prefix), ids identical, score %.3g\n",
                  label.c_str(), precision, searches, worst);
    }
  }

  // Repetition blocking, asked for per call and at prepare.
  for (const std::string& name : golden::names()) {
    INFO("model ", name);
    std::shared_ptr<const Model> model;
    REQUIRE(Model::load(golden::model_path(name, "f32").string(), &model).ok());
    const nlohmann::json g = golden::load_json(name);
    const golden::Tolerance t = golden::tolerance(g, model->config(), "f32");
    const double tol_logits = 2 * t.logits, tol_att = 2 * t.att;
    TranslatorOptions o = host_step_options(Backend::kCpu);
    o.search.block_repeats = 1;
    std::unique_ptr<Translator> cpu, gpu, per_call;
    REQUIRE(Translator::prepare(model, o, &cpu).ok());
    o.backend = Backend::kVulkan;
    const Status on_device = Translator::prepare(model, o, &gpu);
    REQUIRE_MESSAGE(on_device.ok(), on_device.to_string());
    REQUIRE(prepare(model, Backend::kVulkan, &per_call).ok());
    double worst = 0;
    for (const auto& sent : g["sentences"]) {
      const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
      NBestView a, b, c;
      REQUIRE(cpu->translate_ids(src, &a).ok());
      REQUIRE(gpu->translate_ids(src, &b).ok());
      compare_nbest(a, b, tol_logits, tol_att, &worst);
      SearchOptions so;
      so.block_repeats = 1;
      REQUIRE(per_call->translate_ids(src, so, &c).ok());
      compare_nbest(a, c, tol_logits, tol_att, &worst);
    }
  }
}

// A batch translator takes a prefix and repetition blocking per call too,
// alone and in a batch, with the CPU's ids.
TEST_CASE("vulkan: a batch translator takes a prefix and blocking per call") {
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &model).ok());
  const nlohmann::json g = golden::load_json("bahdanau");
  const golden::Tolerance t = golden::tolerance(g, model->config(), "f32");
  std::vector<std::vector<int32_t>> sources;
  for (const auto& sent : g["sentences"]) sources.push_back(golden::ids(sent["src_ids"]));
  REQUIRE(sources.size() >= 2);
  const std::vector<int32_t> tgt = golden::ids(g["sentences"][0]["teacher_forced"]["tgt_in"]);
  const std::vector<int32_t> prefix = {tgt[1]};
  TranslatorOptions o = host_step_options(Backend::kCpu);
  o.max_batch = 2;
  std::unique_ptr<Translator> cpu, gpu;
  REQUIRE(Translator::prepare(model, o, &cpu).ok());
  o.backend = Backend::kVulkan;
  REQUIRE(Translator::prepare(model, o, &gpu).ok());
  SearchOptions with_prefix, blocking;
  with_prefix.target_prefix_ids = prefix;
  blocking.block_repeats = 2;
  double worst = 0;
  for (const SearchOptions& so : {with_prefix, blocking}) {
    NBestView a, b;
    REQUIRE(cpu->translate_ids(sources[0], so, &a).ok());
    const Status st = gpu->translate_ids(sources[0], so, &b);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    compare_nbest(a, b, 2 * t.logits, 2 * t.att, &worst);
    const Span<const int32_t> two[] = {{sources[0].data(), sources[0].size()}, {sources[1].data(), sources[1].size()}};
    NBestView ab[2], bb[2];
    REQUIRE(cpu->translate_ids_batch(two, 2, so, ab).ok());
    REQUIRE(gpu->translate_ids_batch(two, 2, so, bb).ok());
    for (int i = 0; i < 2; ++i) compare_nbest(ab[i], bb[i], 2 * t.logits, 2 * t.att, &worst);
  }
  NBestView nb;
  CHECK(gpu->translate_ids(sources[0], &nb).ok());  // and a plain call after them
}

TEST_CASE("vulkan: beam and batch limits at odd sizes") {
  // Beam 3 and 5 (odd, not powers of two), batches of 3 sentences: the same
  // n-best lists as the CPU.
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &model).ok());
  const nlohmann::json g = golden::load_json("bahdanau");
  std::vector<std::vector<int32_t>> sources = golden::sources(g);
  for (int beam : {1, 3, 5}) {
    INFO("beam ", beam);
    TranslatorOptions o;
    o.search.beam_size = beam;
    o.search.nbest = beam;
    o.max_batch = 3;
    o.backend = Backend::kCpu;
    std::unique_ptr<Translator> cpu, gpu;
    REQUIRE(Translator::prepare(model, o, &cpu).ok());
    o.backend = Backend::kVulkan;
    Status st = Translator::prepare(model, o, &gpu);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    std::vector<Span<const int32_t>> spans;
    for (const auto& s : sources) spans.emplace_back(s.data(), s.size());
    for (std::size_t first = 0; first < spans.size(); first += 3) {
      const std::size_t n = std::min<std::size_t>(3, spans.size() - first);
      NBestView a[3], b[3];
      REQUIRE(cpu->translate_ids_batch(spans.data() + first, n, SearchOptions{}, a).ok());
      REQUIRE(gpu->translate_ids_batch(spans.data() + first, n, SearchOptions{}, b).ok());
      for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(a[i].count == b[i].count);
        for (std::size_t r = 0; r < a[i].count; ++r)
          CHECK(std::vector<int32_t>(a[i].hypotheses[r].ids, a[i].hypotheses[r].ids + a[i].hypotheses[r].length) ==
                std::vector<int32_t>(b[i].hypotheses[r].ids, b[i].hypotheses[r].ids + b[i].hypotheses[r].length));
      }
    }
  }
}

// Greedy search chooses on the device, several steps a submission
// (DeviceCostReport::greedy_steps_per_submit): the sentences of a batch end at
// different steps, by EOS or at their max length (cut within a submission's
// steps, at its last and just after it), and each gets the CPU's ids,
// log-probabilities and attention rows, for every variant that differs in
// what the choice reads (bahdanau; encdec: no attention rows; local-p: its
// position check; a source without EOS read: the EOS column's 0; LSTM
// cells, one-way and reversed encoders).
TEST_CASE("vulkan: greedy search on the device ends each sentence where the CPU does") {
  for (const char* name : {"bahdanau", "encdec", "luong_local_p", "onmt_gru_bridge", "luong_lstm_reversed",
                           "bahdanau_lstm_oneway"}) {
    INFO("model ", name);
    std::shared_ptr<const Model> model;
    REQUIRE(Model::load(golden::model_path(name, "f32").string(), &model).ok());
    const nlohmann::json g = golden::load_json(name);
    const golden::Tolerance tol = golden::tolerance(g, model->config(), "f32");
    std::vector<std::vector<int32_t>> sources = golden::sources(g);
    std::vector<Span<const int32_t>> spans;
    for (const auto& src : sources) spans.emplace_back(src.data(), src.size());
    const int batch = static_cast<int>(spans.size());
    std::unique_ptr<Translator> cpu, gpu;
    REQUIRE(prepare(model, Backend::kCpu, &cpu, 1, batch).ok());
    REQUIRE(prepare(model, Backend::kVulkan, &gpu, 1, batch).ok());
    // Greedy steps run on the device, several a submission, unless a host op
    // cuts each step (then the search chooses each step on the host).
    int per_submit = internal::device_costs(*gpu).greedy_steps_per_submit;
    if (expected_host_operations(*model) > 0) {
      CHECK(per_submit == 0);
      per_submit = 8;  // the same lengths as on the device
    }
    REQUIRE(per_submit > 1);
    double worst = 0;
    for (const int max_len : {1, 2, per_submit - 1, per_submit, per_submit + 1, 2 * per_submit + 1, 64}) {
      INFO("max_len_b ", max_len);
      SearchOptions so;
      so.max_len_a = 0.0f;
      so.max_len_b = static_cast<float>(max_len);
      std::vector<NBestView> a(spans.size()), b(spans.size());
      REQUIRE(cpu->translate_ids_batch(spans.data(), spans.size(), so, a.data()).ok());
      const Status st = gpu->translate_ids_batch(spans.data(), spans.size(), so, b.data());
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      for (std::size_t i = 0; i < spans.size(); ++i) {
        INFO("sentence ", i);
        REQUIRE(b[i].count == 1);
        CHECK(b[i].hypotheses[0].attention_rows <= static_cast<std::size_t>(max_len));
        compare_nbest(a[i], b[i], 2 * tol.logits, 2 * tol.att, &worst);
      }
    }
    std::printf("vulkan greedy on the device, %s: %zu sentences at 7 max lengths as the CPU (score diff up to %.3g)\n",
                name, spans.size(), worst);
  }
}

// Without the source's EOS read (onmt_gru_bridge: source_eos false), a
// source of EOS alone leaves the encoder nothing: attention covers its one
// zero annotation; a source of one id and EOS reads one position, and the
// EOS column's weight is 0. In a batch with longer sentences, greedy and
// beam 4: the CPU's n-best lists and attention rows.
TEST_CASE("vulkan: sources the encoder reads little or nothing of, without EOS, as on the CPU") {
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("onmt_gru_bridge", "f32").string(), &model).ok());
  const nlohmann::json g = golden::load_json("onmt_gru_bridge");
  REQUIRE(!model->config().source_eos);
  const golden::Tolerance tol = golden::tolerance(g, model->config(), "f32");
  const int32_t eos = model->config().eos_id;
  std::vector<std::vector<int32_t>> sources = golden::sources(g);
  sources.insert(sources.begin() + 1, std::vector<int32_t>{eos});
  sources.push_back(std::vector<int32_t>{7, eos});
  sources.push_back(std::vector<int32_t>{eos});
  std::vector<Span<const int32_t>> spans;
  for (const auto& src : sources) spans.emplace_back(src.data(), src.size());
  double worst = 0;
  for (int beam : {1, 4}) {
    INFO("beam ", beam);
    for (int batch : {1, static_cast<int>(spans.size())}) {
      INFO("batch ", batch);
      std::unique_ptr<Translator> cpu, gpu;
      REQUIRE(prepare(model, Backend::kCpu, &cpu, beam, batch).ok());
      REQUIRE(prepare(model, Backend::kVulkan, &gpu, beam, batch).ok());
      for (std::size_t first = 0; first < spans.size(); first += batch) {
        const std::size_t n = std::min<std::size_t>(batch, spans.size() - first);
        std::vector<NBestView> a(n), b(n);
        REQUIRE(cpu->translate_ids_batch(spans.data() + first, n, SearchOptions{}, a.data()).ok());
        const Status st = gpu->translate_ids_batch(spans.data() + first, n, SearchOptions{}, b.data());
        REQUIRE_MESSAGE(st.ok(), st.to_string());
        for (std::size_t i = 0; i < n; ++i) {
          INFO("sentence ", first + i);
          compare_nbest(a[i], b[i], 2 * tol.logits, 2 * tol.att, &worst);
        }
      }
    }
  }
  std::printf("vulkan sources without EOS read, EOS alone and one id among them: as the CPU (score diff up to %.3g)\n",
              worst);
}

// NaN weights that the loader does not scan (an f32 output layer) make the
// scores non-finite: greedy search on the device and beam search both end
// with the search's error, as on the CPU.
TEST_CASE("vulkan: NaN weights end greedy and beam search with an error") {
  auto file = damaged::read_file(golden::model_path("bahdanau", "f32"));
  const damaged::TensorBytes t = damaged::locate(file, "generator.weight");
  for (std::size_t at = t.data; at < t.data + t.data_size; at += 4) damaged::put_float(file, at, std::nanf(""));
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load_from_bytes(file.data(), file.size(), &model).ok());
  const auto src = golden::ids(golden::load_json("bahdanau")["sentences"][0]["src_ids"]);
  for (int beam : {1, 4}) {
    INFO("beam ", beam);
    std::unique_ptr<Translator> gpu;
    REQUIRE(prepare(model, Backend::kVulkan, &gpu, beam).ok());
    NBestView nb;
    const Status st = gpu->translate_ids(Span<const int32_t>(src.data(), src.size()), &nb);
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("non-finite scores") != std::string::npos);
  }
}

namespace {

std::shared_ptr<const Model> load_shipped_en_fr() {
  const auto path = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(path.string(), &model).ok());
  REQUIRE(model->has_shortlist());
  return model;
}

// A CPU and a Vulkan translator of `models` with the shortlist, beam `beam`, batches of `batch`.
void prepare_pair(const Models& models, int beam, int batch, std::unique_ptr<Translator>* cpu,
                  std::unique_ptr<Translator>* gpu) {
  TranslatorOptions o;
  o.search.beam_size = beam;
  o.max_batch = batch;
  o.backend = Backend::kCpu;
  REQUIRE(Translator::prepare(models, o, cpu).ok());
  o.backend = Backend::kVulkan;
  const Status st = Translator::prepare(models, o, gpu);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
}

std::vector<std::vector<int32_t>> encode_all(const Model& model, const std::vector<std::string>& texts) {
  std::vector<std::vector<int32_t>> sources;
  for (const std::string& text : texts) {
    std::vector<int32_t> ids;
    REQUIRE(model.encode_source(text, &ids).ok());
    sources.push_back(ids);
  }
  return sources;
}

}  // namespace

// The shipped en-fr model (int8, with its vocabulary shortlist): the README's
// sentences give the CPU's greedy and beam output on Vulkan, on translators of
// one sentence and of batches of 3; and in batches
// of 3 sharing one shortlist union (each row masked to its own sentence's
// vocabulary), every sentence gets the CPU's n-best ids.
TEST_CASE("vulkan: the shipped en-fr model, its shortlist, alone and in batches") {
  const std::shared_ptr<const Model> model = load_shipped_en_fr();
  // README.md (C++, C) and scripts/demo.sh.
  const std::vector<std::string> texts = {"This package contains the documentation.", "A simple text editor.",
                                          "This package contains the development files for the library.",
                                          "A simple text editor for the GNOME desktop.",
                                          "This package provides the documentation in HTML format.",
                                          "Command-line tool to convert images between formats.", "Hello"};
  // A translator of one sentence runs the one-row kernels (and the encoder's
  // with the model's full hidden size, which no golden model reaches), here
  // also over sources of 40 and more positions.
  std::vector<std::string> alone = texts;
  alone.push_back(
      "This package contains the shared library and the header files needed to build applications that use it, "
      "together with the documentation in HTML format and a set of examples for the command-line tools.");
  alone.push_back("$h->set(Forever => \"Don't expire\", 0); do {$h->set($_,\"Value of $_\", 1); sleep 2;} for qw(Have a nice day);");
  // Each text's best translation as the CPU's. int8: an activation may round
  // to the next quantum on one backend (a division of 2.5 ulp in Vulkan):
  // measured up to 3e-4 here, 0.015 on lower-ranked hypotheses.
  auto same_best = [](Translator& cpu, Translator& gpu, const std::vector<std::string>& list) {
    for (const std::string& text : list) {
      TranslationResult a, b;
      REQUIRE(cpu.translate(text, &a).ok());
      REQUIRE(gpu.translate(text, &b).ok());
      CHECK_MESSAGE(a.hypotheses.at(0).text == b.hypotheses.at(0).text, text);
      CHECK(std::fabs(a.hypotheses.at(0).score - b.hypotheses.at(0).score) < 0.05f);
    }
  };
  for (int beam : {1, 4}) {
    INFO("beam ", beam, ", max_batch 1");
    std::unique_ptr<Translator> cpu, gpu;
    prepare_pair({model}, beam, 1, &cpu, &gpu);
    same_best(*cpu, *gpu, alone);
  }
  for (int beam : {1, 4}) {
    INFO("beam ", beam);
    std::unique_ptr<Translator> cpu, gpu;
    prepare_pair({model}, beam, 3, &cpu, &gpu);
    same_best(*cpu, *gpu, texts);
    const std::vector<std::vector<int32_t>> sources = encode_all(*model, texts);
    std::vector<Span<const int32_t>> spans;
    for (const auto& s : sources) spans.emplace_back(s.data(), s.size());
    SearchOptions so;
    so.nbest = beam;
    double worst = 0;
    for (std::size_t first = 0; first < spans.size(); first += 3) {
      const std::size_t n = std::min<std::size_t>(3, spans.size() - first);
      NBestView a[3], b[3];
      REQUIRE(cpu->translate_ids_batch(spans.data() + first, n, so, a).ok());
      REQUIRE(gpu->translate_ids_batch(spans.data() + first, n, so, b).ok());
      std::vector<std::vector<int32_t>> ids;
      std::vector<float> log_probs;
      for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(a[i].count == b[i].count);
        for (std::size_t r = 0; r < b[i].count; ++r) {
          const HypothesisView& h = b[i].hypotheses[r];
          ids.emplace_back(h.ids, h.ids + h.length);
          log_probs.push_back(h.log_prob);
          CHECK(ids.back() == std::vector<int32_t>(a[i].hypotheses[r].ids,
                                                    a[i].hypotheses[r].ids + a[i].hypotheses[r].length));
        }
      }
      // Each sentence of the batch as the Vulkan engine translates it alone:
      // the same ids, and log-probabilities equal but for the rounding of a
      // log-sum-exp over more (masked) columns. A row not masked to its own
      // sentence's vocabulary would add the other sentences' columns to it.
      for (std::size_t i = 0, h = 0; i < n; ++i) {
        NBestView alone;
        REQUIRE(gpu->translate_ids(spans[first + i], so, &alone).ok());
        REQUIRE(alone.count == b[i].count);
        for (std::size_t r = 0; r < alone.count; ++r, ++h) {
          const HypothesisView& v = alone.hypotheses[r];
          CHECK(std::vector<int32_t>(v.ids, v.ids + v.length) == ids[h]);
          const double d = std::fabs(static_cast<double>(v.log_prob) - log_probs[h]);
          CHECK_MESSAGE(d <= 1e-5 * static_cast<double>(v.attention_rows), "batch vs alone log-prob ", d);
          worst = std::max(worst, d);
        }
      }
    }
    std::printf("vulkan en-fr beam %d: batch of 3 vs alone, log-prob differences up to %.3g\n", beam, worst);
  }
}

// An ensemble in batches with the shortlist: each member's rows come back
// over the batch's union of ids and keep their own sentence's columns
// (VulkanEngine::log_probs); the CPU ensemble is the oracle.
TEST_CASE("vulkan: an ensemble of the shipped model in batches, with its shortlist") {
  const std::shared_ptr<const Model> model = load_shipped_en_fr();
  const std::vector<std::vector<int32_t>> sources =
      encode_all(*model, {"This package contains the documentation.", "A simple text editor.",
                          "A simple text editor for the GNOME desktop.", "Hello"});
  std::vector<Span<const int32_t>> spans;
  for (const auto& s : sources) spans.emplace_back(s.data(), s.size());
  for (int beam : {1, 3}) {
    INFO("beam ", beam);
    std::unique_ptr<Translator> cpu, gpu;
    prepare_pair({model, model}, beam, 4, &cpu, &gpu);
    SearchOptions so;
    so.nbest = beam;
    NBestView a[4], b[4];
    REQUIRE(cpu->translate_ids_batch(spans.data(), spans.size(), so, a).ok());
    REQUIRE(gpu->translate_ids_batch(spans.data(), spans.size(), so, b).ok());
    double worst = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      INFO("sentence ", i);
      REQUIRE(a[i].count == b[i].count);
      for (std::size_t r = 0; r < a[i].count; ++r) {
        const HypothesisView& x = a[i].hypotheses[r];
        const HypothesisView& y = b[i].hypotheses[r];
        CHECK(std::vector<int32_t>(x.ids, x.ids + x.length) == std::vector<int32_t>(y.ids, y.ids + y.length));
        worst = std::max(worst, std::fabs(static_cast<double>(x.log_prob) - y.log_prob));
      }
    }
    CHECK(worst < 0.05);  // int8: as the single model's bound above
    std::printf("vulkan ensemble en-fr+en-fr batch of 4, beam %d: ids as the CPU's, log-prob differences up to %.3g\n",
                beam, worst);
  }
}

// A translator whose device buffers the device cannot hold (more than its
// largest storage buffer): backend=vulkan is an error that says so, found
// before anything is allocated; backend=auto would take the CPU with that reason.
TEST_CASE("vulkan: a translator too large for the device is refused") {
  softalign::internal::vk::Device* device = nullptr;
  REQUIRE(softalign::internal::vk::Device::probe(&device).ok());
  const uint64_t largest = device->properties.limits.maxStorageBufferRange;
  const auto path = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(path.string(), &model).ok());
  // The logits of every row alone: rows × vocabulary floats.
  const int beam = 16;
  const uint64_t per_sentence = uint64_t{4} * beam * static_cast<uint64_t>(model->config().tgt_vocab);
  const uint64_t batch = largest / per_sentence + 1;
  if (batch > static_cast<uint64_t>(TranslatorOptions::kMaxBatch)) {
    MESSAGE("this device's storage buffers (", largest >> 20, " MiB) hold any translator: nothing to refuse");
    return;
  }
  TranslatorOptions o;
  o.backend = Backend::kVulkan;
  o.max_source_tokens = 8;  // a small host arena: only the device buffers are too large
  o.search.beam_size = beam;
  o.max_batch = static_cast<int>(batch);
  std::unique_ptr<Translator> tr;
  const Status st = Translator::prepare(model, o, &tr);
  CHECK(st.code() == StatusCode::kResourceExhausted);
  CHECK_MESSAGE(st.message().find("backend=vulkan: this translator needs") == 0, st.message());
  CHECK(tr == nullptr);
}

// A discrete GPU's device memory is not host-visible: the weights go up
// through a staging buffer and the device buffers are never mapped. On a
// device whose memory is all host-visible (lavapipe), the same paths run with
// mapping turned off: the results are the CPU's still.
TEST_CASE("vulkan: weights uploaded through a staging buffer") {
  softalign::internal::vk::Device* device = nullptr;
  REQUIRE(softalign::internal::vk::Device::probe(&device).ok());
  device->map_device_local = false;
  for (const char* precision : {"f32", "int8"}) {
    INFO(precision);
    std::shared_ptr<const Model> model;  // a fresh Model: its weights are uploaded now
    REQUIRE(Model::load(golden::model_path("luong_local_p", precision).string(), &model).ok());
    std::unique_ptr<Translator> cpu, gpu;
    REQUIRE(prepare(model, Backend::kCpu, &cpu).ok());
    const Status st = prepare(model, Backend::kVulkan, &gpu);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    const nlohmann::json g = golden::load_json("luong_local_p");
    for (const auto& sent : g["sentences"]) {
      const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
      NBestView a, b;
      REQUIRE(cpu->translate_ids(src, &a).ok());
      REQUIRE(gpu->translate_ids(src, &b).ok());
      REQUIRE(a.count == b.count);
      for (std::size_t r = 0; r < a.count; ++r)
        CHECK(std::vector<int32_t>(a.hypotheses[r].ids, a.hypotheses[r].ids + a.hypotheses[r].length) ==
              std::vector<int32_t>(b.hypotheses[r].ids, b.hypotheses[r].ids + b.hypotheses[r].length));
    }
  }
  device->map_device_local = true;
}

TEST_CASE("vulkan: translators on several threads share the device") {
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("luong_2x2", "int8").string(), &model).ok());
  const nlohmann::json g = golden::load_json("luong_2x2");
  std::vector<std::vector<int32_t>> sources = golden::sources(g);
  std::unique_ptr<Translator> cpu;
  REQUIRE(prepare(model, Backend::kCpu, &cpu).ok());
  std::vector<std::vector<std::vector<int32_t>>> want;  // [sentence][hypothesis]
  for (const auto& src : sources) {
    NBestView nb;
    REQUIRE(cpu->translate_ids(src, &nb).ok());
    want.emplace_back();
    for (std::size_t r = 0; r < nb.count; ++r)
      want.back().emplace_back(nb.hypotheses[r].ids, nb.hypotheses[r].ids + nb.hypotheses[r].length);
  }
  constexpr int kThreads = 3, kRounds = 4;
  std::vector<std::unique_ptr<Translator>> translators(kThreads);
  for (auto& tr : translators) REQUIRE(prepare(model, Backend::kVulkan, &tr).ok());
  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] {
      for (int round = 0; round < kRounds; ++round)
        for (std::size_t i = 0; i < sources.size(); ++i) {
          NBestView nb;
          if (!translators[k]->translate_ids(sources[i], &nb).ok()) {
            ++failures[k];
            continue;
          }
          bool same = nb.count == want[i].size();
          for (std::size_t r = 0; same && r < nb.count; ++r)
            same = std::vector<int32_t>(nb.hypotheses[r].ids, nb.hypotheses[r].ids + nb.hypotheses[r].length) ==
                   want[i][r];
          if (!same) ++mismatches[k];
        }
    });
  for (std::thread& t : threads) t.join();
  for (int k = 0; k < kThreads; ++k) {
    CHECK(failures[k] == 0);
    CHECK(mismatches[k] == 0);
  }
}

// More rows than the device's workgroups per dispatch (the encoder dispatches
// one group per source position of the batch): refused with the reason.
TEST_CASE("vulkan: a batch with more positions than the device's workgroup count is refused") {
  softalign::internal::vk::Device* device = nullptr;
  REQUIRE(softalign::internal::vk::Device::probe(&device).ok());
  const VkPhysicalDeviceLimits& lim = device->properties.limits;
  const uint64_t groups = std::min(lim.maxComputeWorkGroupCount[0], lim.maxComputeWorkGroupCount[1]);
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &model).ok());
  TranslatorOptions o;
  o.backend = Backend::kVulkan;
  o.search.beam_size = 1;
  o.max_source_tokens = 64;
  const uint64_t batch = groups / 64 + 1;
  if (batch > static_cast<uint64_t>(TranslatorOptions::kMaxBatch)) {
    MESSAGE("this device dispatches ", groups, " workgroups: every batch fits");
    return;
  }
  o.max_batch = static_cast<int>(batch);
  o.max_arena_bytes = std::size_t{1} << 30;
  std::unique_ptr<Translator> tr;
  const Status st = Translator::prepare(model, o, &tr);
  CHECK(st.code() == StatusCode::kResourceExhausted);
  CHECK_MESSAGE(st.message().find("workgroups per dispatch") != std::string::npos, st.message());
  o.max_batch = static_cast<int>(groups / 64);  // one batch less fits
  CHECK(Translator::prepare(model, o, &tr).ok());
}
