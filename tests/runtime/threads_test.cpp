// Threads: translate_batch split over `threads` translators and the output
// layer split over the pool give exactly the one-thread results, in input
// order, for every golden model and precision; translate_ids stays
// allocation-free with a pool (alloc_test.cpp checks the counts).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "golden_util.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

std::unique_ptr<Translator> make(const std::string& name, const char* precision, int threads, int beam) {
  std::shared_ptr<const Model> m;
  Status st = Model::load(golden::model_path(name, precision).string(), &m);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  TranslatorOptions o;
  o.threads = threads;
  o.search.beam_size = beam;
  o.search.nbest = beam;
  std::unique_ptr<Translator> tr;
  st = Translator::prepare(m, o, &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return tr;
}

}  // namespace

TEST_CASE("translate_batch with 2 and 3 threads equals one thread") {
  for (const std::string& name : golden::names()) {
    const nlohmann::json g = golden::load_json(name);
    std::vector<std::string> texts;
    for (const auto& s : g["sentences"]) texts.push_back(s["src_text"].get<std::string>());
    // More sentences than translators, some repeated, a blank one in the middle.
    std::vector<std::string> batch;
    for (int r = 0; r < 3; ++r) batch.insert(batch.end(), texts.begin(), texts.end());
    batch.insert(batch.begin() + 2, "   ");
    for (const char* precision : {"f32", "int8"}) {
      INFO(name, " ", precision);
      std::vector<TranslationResult> one, many;
      REQUIRE(make(name, precision, 1, 4)->translate_batch(batch, &one).ok());
      for (int threads : {2, 3}) {
        REQUIRE(make(name, precision, threads, 4)->translate_batch(batch, &many).ok());
        REQUIRE(many.size() == one.size());
        for (std::size_t i = 0; i < one.size(); ++i) {
          REQUIRE(many[i].hypotheses.size() == one[i].hypotheses.size());
          for (std::size_t h = 0; h < one[i].hypotheses.size(); ++h) {
            CHECK(many[i].hypotheses[h].ids == one[i].hypotheses[h].ids);
            CHECK(many[i].hypotheses[h].score == one[i].hypotheses[h].score);
          }
        }
      }
    }
  }
}

TEST_CASE("translate_batch with threads reports the first failing sentence") {
  auto tr = make("bahdanau", "f32", 2, 1);
  std::vector<TranslationResult> out;
  const Status st = tr->translate_batch({"ok", "bad \xff byte", "fine", "\xfe"}, &out);
  CHECK(st.code() == StatusCode::kInvalidUtf8);
  CHECK(st.message().rfind("sentence 1:", 0) == 0);
}
