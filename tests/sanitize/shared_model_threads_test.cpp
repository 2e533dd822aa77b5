// Eight threads share one Model, each with its own Translator (odd ones with
// a 2-thread intra-sentence pool), and translate the golden sentences (text
// in, text out, beam 1 and beam 4 with attention) several times over, the
// odd ones also all at once through translate_batch (its worker translator
// on its own thread); every result must equal the single-threaded one, id
// for id and bit for bit in the scores. Built in every build (ctest
// sanitize_shared_model_threads); its purpose is the TSan build
// (tests/sanitize/run_tsan.sh), where any data race on the shared Model is a
// failure. Usage: shared_model_threads_test [THREADS] [ROUNDS] [NAME...]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "golden_util.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

struct Outcome {
  std::vector<std::vector<int32_t>> ids;
  std::vector<float> scores;
  std::vector<float> attention;
  std::string text;
  bool operator==(const Outcome& o) const {
    return ids == o.ids && text == o.text && same_bits(scores, o.scores) && same_bits(attention, o.attention);
  }
  static bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  }
};

SearchOptions search_for(int beam) {
  SearchOptions so;
  so.beam_size = beam;
  so.nbest = beam;
  so.return_attention = true;
  return so;
}

Outcome outcome_of(const TranslationResult& r) {
  Outcome out;
  for (const Hypothesis& h : r.hypotheses) {
    out.ids.push_back(h.ids);
    out.scores.push_back(h.score);
    out.attention.insert(out.attention.end(), h.attention.begin(), h.attention.end());
    out.text += h.text + "\n";
  }
  return out;
}

bool run_one(Translator& tr, const std::string& text, int beam, Outcome* out, std::string* err) {
  TranslationResult r;
  const Status st = tr.translate(text, search_for(beam), &r);
  if (!st.ok()) {
    *err = st.to_string();
    return false;
  }
  *out = outcome_of(r);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<std::string> names;
  for (int i = 3; i < argc; ++i) names.push_back(argv[i]);
  if (names.empty()) names = golden::names();
  const int beams[] = {1, 4};
  int failures = 0;
  long translations = 0;
  for (const std::string& name : names) {
    const nlohmann::json g = golden::load_json(name);
    std::vector<std::string> texts;
    for (const auto& s : g["sentences"]) texts.push_back(s["src_text"].get<std::string>());
    texts.push_back("");  // the empty input too
    for (const char* precision : {"f32", "f16", "int8"}) {
      std::shared_ptr<const Model> model;
      Status st = Model::load(golden::model_path(name, precision).string(), &model);
      if (!st.ok()) {
        std::fprintf(stderr, "FAIL %s %s: load: %s\n", name.c_str(), precision, st.to_string().c_str());
        ++failures;
        continue;
      }
      TranslatorOptions opt;
      opt.search.beam_size = 4;
      opt.search.nbest = 4;
      // The reference: one translator, this thread.
      std::unique_ptr<Translator> ref_tr;
      st = Translator::prepare(model, opt, &ref_tr);
      if (!st.ok()) {
        std::fprintf(stderr, "FAIL %s %s: prepare: %s\n", name.c_str(), precision, st.to_string().c_str());
        ++failures;
        continue;
      }
      std::vector<Outcome> expected;
      bool ok = true;
      for (const std::string& t : texts)
        for (int beam : beams) {
          Outcome o;
          std::string err;
          ok = ok && run_one(*ref_tr, t, beam, &o, &err);
          if (!ok) std::fprintf(stderr, "FAIL %s %s: %s\n", name.c_str(), precision, err.c_str());
          expected.push_back(o);
        }
      if (!ok) {
        ++failures;
        continue;
      }
      ref_tr.reset();
      // Every thread prepares its own translator from the shared model (prepare
      // runs concurrently too) and walks the sentences in its own order.
      std::atomic<int> mismatches{0};
      std::atomic<long> done{0};
      std::vector<std::thread> pool;
      for (int w = 0; w < threads; ++w)
        pool.emplace_back([&, w] {
          // Odd threads also split the output layer over a 2-thread pool
          // (XNNPACK's pthreadpool): the results must not change.
          TranslatorOptions wopt = opt;
          wopt.threads = (w % 2) ? 2 : 1;
          std::unique_ptr<Translator> tr;
          const Status pst = Translator::prepare(model, wopt, &tr);
          if (!pst.ok()) {
            std::fprintf(stderr, "FAIL %s %s thread %d: prepare: %s\n", name.c_str(), precision, w,
                         pst.to_string().c_str());
            ++mismatches;
            return;
          }
          const std::size_t n = expected.size();
          for (int r = 0; r < rounds; ++r)
            for (std::size_t k = 0; k < n; ++k) {
              const std::size_t i = (k + static_cast<std::size_t>(w) * 3) % n;
              Outcome o;
              std::string err;
              if (!run_one(*tr, texts[i / 2], beams[i % 2], &o, &err) || !(o == expected[i])) {
                std::fprintf(stderr, "FAIL %s %s thread %d: sentence %zu beam %d differs from one thread %s\n",
                             name.c_str(), precision, w, i / 2, beams[i % 2], err.c_str());
                ++mismatches;
              }
              ++done;
            }
          if (wopt.threads == 1) return;
          for (int b = 0; b < 2; ++b) {  // expected[t * 2 + b]: text t, beams[b]
            std::vector<TranslationResult> results;
            const Status bst = tr->translate_batch(texts, search_for(beams[b]), &results);
            for (std::size_t t = 0; t < texts.size(); ++t) {
              if (bst.ok() && outcome_of(results[t]) == expected[t * 2 + b]) continue;
              std::fprintf(stderr, "FAIL %s %s thread %d: translate_batch sentence %zu beam %d differs %s\n",
                           name.c_str(), precision, w, t, beams[b], bst.to_string().c_str());
              ++mismatches;
            }
            done += static_cast<long>(texts.size());
          }
        });
      for (auto& t : pool) t.join();
      translations += done.load();
      if (mismatches.load() != 0) ++failures;
    }
  }
  std::printf("%zu models x 3 precisions, %d threads, %ld translations, %d failures\n", names.size(), threads,
              translations, failures);
  return failures == 0 ? 0 : 1;
}
