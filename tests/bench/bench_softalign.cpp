// softalign_bench: times one softalign configuration on a file of sentences
// and prints one JSON object (run_bench.py drives it, one process per
// configuration, so peak RSS is this configuration's own).
//
//   softalign_bench --model FILE --input FILE [--sentences N] [--batch B]
//                   [--beam K] [--threads T] [--kernels NAME] [--device cpu|auto|vulkan] [--output FILE]
//   softalign_bench --model FILE --step-bound      decode-step time vs the
//                   bandwidth bound (weight bytes one step reads)
//   softalign_bench --model FILE --linear          the output layer and the
//                   encoder projections: kernels vs XNNPACK (f32 models)
//
// load_ms is the time from Model::load to the end of the first translation;
// step_ms one row's decoder step on the backend (teacher-forced, after the
// timed translations), the step whose dispatches, barriers and weight bytes
// step_dispatches, step_barriers and step_weight_mib count.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/device_costs.hpp"
#include "backends/cpu/linear.hpp"
#include "model/model_impl.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;
using Clock = std::chrono::steady_clock;

namespace {

// CPU time of this process (all its threads): unlike wall time, it does not
// grow when other programs share the cores, so ratios between runs hold.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Peak resident set of this process image: VmHWM (getrusage's ru_maxrss
// would include the parent's memory at fork, e.g. a Python driver's).
double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

int fail(const Status& st) {
  std::fprintf(stderr, "softalign_bench: %s\n", st.to_string().c_str());
  return 1;
}

std::size_t matrix_bytes(const kernels::Matrix& m, int rows = -1) {
  const std::size_t r = rows < 0 ? static_cast<std::size_t>(m.rows) : static_cast<std::size_t>(rows);
  const std::size_t elem = m.type == WeightType::kF32 ? 4 : m.type == WeightType::kF16 ? 2 : 1;
  return r * m.cols * elem + (m.type == WeightType::kI8 ? r * 4 : 0);
}

// Bytes one decoder step reads for one hypothesis and a source of s tokens:
// every decoder-side matrix, one target embedding row, and the per-sentence
// keys and annotations.
std::size_t step_bytes(const internal::ModelImpl& m, int s) {
  const internal::Weights& w = m.w;
  const ModelConfig& c = m.config;
  std::size_t b = matrix_bytes(w.tgt_emb, 1);
  for (const auto& g : w.dec) b += matrix_bytes(g.w_ih) + matrix_bytes(g.w_hh);
  for (const kernels::Matrix* x : {&w.att_W_a, &w.att_W_q, &w.att_W_p, &w.out_U_o, &w.out_V_o, &w.out_C_o,
                                   &w.dec_W_c, &w.gen_w})
    if (x->data != nullptr && !(x == &w.att_W_a && c.variant == Variant::kLuong)) b += matrix_bytes(*x);
  if (w.att_W_loc.data != nullptr) b += matrix_bytes(w.att_W_loc, s);
  const std::size_t key_dim = static_cast<std::size_t>(m.plan.shapes.key_dim);
  b += static_cast<std::size_t>(s) * (static_cast<std::size_t>(c.enc_directions) * c.enc_hidden + key_dim) * 4;
  b += static_cast<std::size_t>(c.tgt_vocab) * 4;  // the bias
  return b;
}

// Read bandwidth on a buffer of `bytes`, best of several passes (bytes/s).
double read_bandwidth(std::size_t bytes) {
  std::vector<uint64_t> buf(bytes / 8 + 1, 1);
  volatile uint64_t sink = 0;
  double best = 0;
  const int passes = static_cast<int>(std::max<std::size_t>(5, (256u << 20) / std::max<std::size_t>(bytes, 1)));
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = Clock::now();
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (int p = 0; p < passes; ++p)
      for (std::size_t i = 0; i + 4 <= buf.size(); i += 4) {
        a += buf[i];
        b += buf[i + 1];
        c += buf[i + 2];
        d += buf[i + 3];
      }
    sink = sink + a + b + c + d;
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, static_cast<double>(buf.size() * 8) * passes / s);
  }
  return best;
}

// One decoder step of one row on `tr` (its backend), in ms: teacher-forced
// (force_decode of 51 target tokens minus 1, over a 20-token source, best of
// 7 each), so neither the search nor the encoder counts. *source: its length.
double one_row_step_ms(Translator& tr, const ModelConfig& c, int* source) {
  const int s = std::min(20, tr.max_source_tokens());
  std::vector<int32_t> src(s, std::min(5, c.src_vocab - 1));
  src.back() = c.eos_id;
  const int long_t = std::min(51, tr.max_target_tokens());
  std::vector<int32_t> tgt(long_t, std::min(7, c.tgt_vocab - 1));
  tgt[0] = c.bos_id;
  std::vector<float> logits(static_cast<std::size_t>(long_t) * c.tgt_vocab);
  auto time_it = [&](int t) {
    double best = 1e30;
    for (int rep = 0; rep < 7; ++rep) {
      const auto t0 = Clock::now();
      tr.force_decode(Span<const int32_t>(src.data(), src.size()), Span<const int32_t>(tgt.data(), t), logits.data(),
                      nullptr);
      best = std::min(best, ms_since(t0));
    }
    return best;
  };
  *source = s;
  return (time_it(long_t) - time_it(1)) / (long_t - 1);
}

int step_bound(const std::shared_ptr<const Model>& model, const std::string& kernels) {
  TranslatorOptions o;
  o.search.beam_size = 1;
  o.kernels = kernels;
  std::unique_ptr<Translator> tr;
  Status st = Translator::prepare(model, o, &tr);
  if (!st.ok()) return fail(st);
  int s = 0;
  const double step_ms = one_row_step_ms(*tr, model->config(), &s);
  const std::size_t bytes = step_bytes(internal::ModelAccess::impl(*model), s);
  const double bw = read_bandwidth(bytes);
  const double bound_ms = static_cast<double>(bytes) / bw * 1e3;
  const internal::DeviceCostReport& costs = internal::device_costs(*tr);
  nlohmann::json j = {{"kernels", tr->kernels_name()},
{"step_ms", step_ms}, {"step_bytes", bytes},
                      {"bandwidth_gb_s", bw / 1e9}, {"bound_ms", bound_ms}, {"ratio", step_ms / bound_ms}};
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

// The output layer (1 and 4 rows) and an encoder projection (30 rows): our
// kernels against XNNPACK's f32 fully-connected operator.
int linear_compare(const std::shared_ptr<const Model>& model, const std::string& kernels) {
  const internal::Weights& w = internal::ModelAccess::impl(*model).w;
  const kernels::KernelTable* k = kernels::select_kernels(kernels.c_str());
  if (k == nullptr) return fail(Status(StatusCode::kInvalidArgument, "unknown kernel set"));
  nlohmann::json out = nlohmann::json::array();
  struct Case {
    const char* name;
    const kernels::Matrix* m;
    const float* bias;
    int rows;
  } cases[] = {{"output layer", &w.gen_w, w.gen_b, 1}, {"output layer", &w.gen_w, w.gen_b, 4},
               {"encoder W_ih", &w.enc_fwd[0].w_ih, w.enc_fwd[0].b_ih, 30}};
  for (const Case& cs : cases) {
    std::vector<float> x(static_cast<std::size_t>(cs.rows) * cs.m->cols + 64, 0.5f);
    std::vector<float> y(static_cast<std::size_t>(cs.rows) * cs.m->rows), xs(cs.rows);
    std::vector<int8_t> xq(x.size());
    nlohmann::json row = {{"layer", cs.name}, {"rows", cs.rows}, {"out", cs.m->rows}, {"in", cs.m->cols}};
    for (bool xnn : {false, true}) {
      if (xnn && cs.m->type == WeightType::kI8) continue;
      const auto t0 = Clock::now();
      internal::Linear lin;
      Status st = lin.init(*cs.m, cs.bias, xnn);
      if (!st.ok()) return fail(st);
      const double init_ms = ms_since(t0);
      double best = 1e30;
      for (int rep = 0; rep < 50; ++rep) {
        const auto t1 = Clock::now();
        lin.run(*k, x.data(), cs.rows, y.data(), xq.data(), xs.data(), nullptr);
        best = std::min(best, ms_since(t1));
      }
      row[xnn ? "xnnpack_ms" : "kernels_ms"] = best;
      row[xnn ? "xnnpack_init_ms" : "kernels_init_ms"] = init_ms;
    }
    out.push_back(row);
  }
  std::printf("%s\n", nlohmann::json{{"kernels", k->name}, {"linear", out}}.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"softalign_bench: time one softalign configuration, print JSON"};
  std::string model_path, input, output, kernels, device = "cpu";
  int sentences = 500, batch = 1, beam = 1, threads = 1;
  bool bound = false, linear = false;
  app.add_option("--model", model_path, "model file (.softalign)")->required();
  app.add_option("--input", input, "source sentences, one per line");
  app.add_option("--output", output, "write the translations here");
  app.add_option("--sentences", sentences, "first N sentences")->check(CLI::Range(1, 1000000));
  app.add_option("--batch", batch, "1: translate() per sentence; B > 1: one translate_batch over all, max_batch B")->check(CLI::Range(1, 4096));
  app.add_option("--beam", beam, "beam size")->check(CLI::Range(1, 64));
  app.add_option("--threads", threads, "TranslatorOptions::threads")->check(CLI::Range(1, 256));
  app.add_option("--kernels", kernels, "kernel set (default: the best for this CPU)");
  bool no_copy_through = false;
  app.add_flag("--no-copy-through", no_copy_through, "the text as the model writes it (TranslatorOptions::copy_through off)");
  app.add_option("--device", device,
                 "TranslatorOptions::backend; with vulkan a batch decodes together (max_batch = --batch)")
      ->check(CLI::IsMember({"auto", "cpu", "vulkan"}));
  app.add_flag("--step-bound", bound, "decode-step time against the bandwidth bound");
  app.add_flag("--linear", linear, "linear layers: kernels vs XNNPACK");
  CLI11_PARSE(app, argc, argv);

  const auto t0 = Clock::now();
  std::shared_ptr<const Model> model;
  Status st = Model::load(model_path, &model);
  if (!st.ok()) return fail(st);
  const double loaded_ms = ms_since(t0);
  if (bound) return step_bound(model, kernels);
  if (linear) return linear_compare(model, kernels);

  std::vector<std::string> lines;
  {
    std::ifstream in(input);
    if (!in) return fail(Status(StatusCode::kInvalidArgument, "cannot read " + input));
    for (std::string l; static_cast<int>(lines.size()) < sentences && std::getline(in, l);) lines.push_back(l);
  }
  TranslatorOptions o;
  o.search.beam_size = beam;
  o.search.nbest = 1;
  o.threads = threads;
  o.max_batch = batch;  // translate_batch decodes the whole batch together
  o.kernels = kernels;
  o.long_input = LongInputPolicy::kSplit;
  o.invalid_utf8 = InvalidUtf8Policy::kReplace;
  backend_from_name(device, &o.backend);
  o.copy_through = !no_copy_through;
  if (o.backend == Backend::kVulkan) o.max_batch = batch;
  std::unique_ptr<Translator> tr;
  st = Translator::prepare(model, o, &tr);
  if (!st.ok()) return fail(st);
  const double prepared_ms = ms_since(t0);
  TranslationResult first;
  st = tr->translate(lines.empty() ? std::string("hello") : lines[0], &first);
  if (!st.ok()) return fail(st);
  const double load_ms = ms_since(t0);

  std::vector<std::string> hyps(lines.size());
  std::vector<double> latency;
  std::size_t tokens = 0;
  const auto t1 = Clock::now();
  const double cpu0 = cpu_seconds();
  if (batch == 1) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto tb = Clock::now();
      TranslationResult r;
      st = tr->translate(lines[i], &r);
      if (!st.ok()) return fail(st);
      hyps[i] = r.hypotheses.at(0).text;
      tokens += r.hypotheses.at(0).ids.size();
      latency.push_back(ms_since(tb));
    }
  } else {
    // All sentences in one call, as an application with a document would:
    // translate_batch orders them by length and decodes max_batch at a time.
    std::vector<TranslationResult> rs;
    st = tr->translate_batch(lines, &rs);
    if (!st.ok()) return fail(st);
    for (std::size_t j = 0; j < rs.size(); ++j) {
      hyps[j] = rs[j].hypotheses.at(0).text;
      tokens += rs[j].hypotheses.at(0).ids.size();
    }
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t1).count();
  const double cpu_secs = cpu_seconds() - cpu0;
  int step_source = 0;
  const double step_ms = one_row_step_ms(*tr, model->config(), &step_source);
  if (!output.empty()) {
    std::ofstream out(output);
    for (const std::string& h : hyps) out << h << '\n';
  }
  const internal::DeviceCostReport& costs = internal::device_costs(*tr);
  nlohmann::json j = {{"kernels", tr->kernels_name()},
                      {"backend", tr->backend_info().name},
                      {"device", tr->backend_info().device},
                      {"step_dispatches", costs.step_dispatches},
                      {"step_barriers", costs.step_barriers},
                      {"greedy_step_dispatches", costs.greedy_step_dispatches},
                      {"greedy_step_barriers", costs.greedy_step_barriers},
                      {"greedy_steps_per_submit", costs.greedy_steps_per_submit},
                      {"encoder_dispatches", costs.encoder_dispatches},
                      {"encoder_barriers", costs.encoder_barriers},
                      {"step_weight_mib", static_cast<double>(costs.step_weight_bytes) / (1 << 20)},
                      {"step_ms", step_ms},
                      {"sentences", lines.size()},
                      {"tokens", tokens},
                      {"seconds", secs},
                      {"sentences_per_s", lines.size() / secs},
                      {"cpu_seconds", cpu_secs},
                      {"sentences_per_cpu_s", lines.size() / cpu_secs},
                      {"tokens_per_s", tokens / secs},
                      {"load_ms", load_ms},
                      {"model_load_ms", loaded_ms},
                      {"prepare_ms", prepared_ms - loaded_ms},
                      {"first_translation_ms", load_ms - prepared_ms},
                      {"peak_rss_mb", peak_rss_mb()},
                      {"model_mb", static_cast<double>(model->file_bytes()) / (1 << 20)}};
  if (batch == 1) {
    j["p50_ms"] = percentile(latency, 0.5);
    j["p90_ms"] = percentile(latency, 0.9);
    j["p99_ms"] = percentile(latency, 0.99);
  }
  std::printf("%s\n", j.dump().c_str());
  return 0;
}
