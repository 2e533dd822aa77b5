// Batched decoding (Translator::translate_ids_batch, and translate_batch over
// it): every sentence of a batch gets exactly the n-best list it gets alone,
// for every golden model, precision, search and kernel set (the batch only
// changes how many rows a product covers: the kernels compute each row the
// same way); and for the shipped model with its vocabulary shortlist, where
// each sentence keeps its own vocabulary inside the batch's union.
#include <doctest/doctest.h>

#include <cstring>

#include "golden_util.hpp"
#include "shipped_model.hpp"
#include "kernels/kernels.hpp"

using namespace softalign;

namespace {

using golden::Copy;
using golden::copy;

// Alone, then in batches of up to `batch` (a partial last one included):
// identical ids, scores and attention. Returns how many sentences compared.
int compare(const std::shared_ptr<const Model>& model, const std::vector<std::vector<int32_t>>& sources,
            const SearchOptions& search, const char* kernels, int batch) {
  TranslatorOptions o;
  o.search = search;
  o.kernels = kernels;
  o.max_batch = batch;
  std::unique_ptr<Translator> alone, batched;
  REQUIRE(Translator::prepare(model, o, &batched).ok());
  o.max_batch = 1;
  REQUIRE(Translator::prepare(model, o, &alone).ok());
  std::vector<std::vector<Copy>> want;
  for (const auto& src : sources) {
    NBestView nb;
    REQUIRE(alone->translate_ids(src, &nb).ok());
    want.push_back(copy(nb));
  }
  int compared = 0;
  for (std::size_t first = 0; first < sources.size(); first += batch) {
    const std::size_t n = std::min<std::size_t>(batch, sources.size() - first);
    std::vector<Span<const int32_t>> spans;
    for (std::size_t i = 0; i < n; ++i) spans.emplace_back(sources[first + i].data(), sources[first + i].size());
    std::vector<NBestView> views(n);
    REQUIRE(batched->translate_ids_batch(spans.data(), n, {}, views.data()).ok());
    for (std::size_t i = 0; i < n; ++i) {
      INFO("sentence ", first + i);
      const std::vector<Copy> got = copy(views[i]);
      const std::vector<Copy>& w = want[first + i];
      REQUIRE(got.size() == w.size());
      for (std::size_t r = 0; r < got.size(); ++r) {
        CHECK(got[r].ids == w[r].ids);
        CHECK(got[r].score == w[r].score);
        CHECK(got[r].log_prob == w[r].log_prob);
        CHECK(got[r].attention == w[r].attention);
      }
      ++compared;
    }
  }
  return compared;
}

std::vector<const char*> kernel_sets() {
  const kernels::KernelTable* sets[16];
  const int n = kernels::available_kernels(sets, 16);
  std::vector<const char*> names;
  for (int i = 0; i < n && i < 16; ++i) names.push_back(sets[i]->name);
  return names;
}

}  // namespace

TEST_CASE("batched decoding: every golden sentence as alone, every model, precision, search and kernel set") {
  for (const std::string& name : golden::names()) {
    const nlohmann::json g = golden::load_json(name);
    std::vector<std::vector<int32_t>> sources = golden::sources(g);
    for (const char* precision : {"f32", "int8"}) {
      std::shared_ptr<const Model> model;
      REQUIRE(Model::load(golden::model_path(name, precision).string(), &model).ok());
      for (const char* set : kernel_sets())
        for (const auto& spec : g["searches"]) {
          INFO(name, " ", precision, " ", set, " ", spec.dump());
          CHECK(compare(model, sources, golden::search_options(spec), set, 3) == static_cast<int>(sources.size()));
        }
    }
  }
}

TEST_CASE("batched decoding with the shortlist: each sentence keeps its own vocabulary") {
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  const std::vector<std::vector<int32_t>> sources = golden::package_sentences(*model, 6);
  SearchOptions greedy, beam;
  greedy.beam_size = 1;
  beam.beam_size = 4;
  beam.nbest = 2;
  // The reference kernels: exactly as alone. (The vector sets sum a row's
  // log-softmax in lanes: masked columns shift which lane a value falls in,
  // so a score may differ in its last bits; not compared bit for bit here.)
  CHECK(compare(model, sources, greedy, "ref", 4) == 6);
  CHECK(compare(model, sources, beam, "ref", 6) == 6);
}

TEST_CASE("translate_batch decodes max_batch sentences together, results as alone") {
  const auto path = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(path.string(), &model).ok());
  std::vector<std::string> texts = {"Open file", "", "A simple text editor.", "caf\xff",
                                    "This package contains the documentation for the library."};
  TranslatorOptions o;
  o.kernels = "ref";
  o.max_batch = 8;
  std::unique_ptr<Translator> batched, alone;
  REQUIRE(Translator::prepare(model, o, &batched).ok());
  o.max_batch = 1;
  REQUIRE(Translator::prepare(model, o, &alone).ok());
  texts.erase(texts.begin() + 3);  // invalid UTF-8 fails the whole call: checked in errors_test
  std::vector<TranslationResult> got;
  REQUIRE(batched->translate_batch(texts, &got).ok());
  REQUIRE(got.size() == texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    TranslationResult want;
    REQUIRE(alone->translate(texts[i], &want).ok());
    CHECK(got[i].hypotheses.at(0).text == want.hypotheses.at(0).text);
    CHECK(got[i].hypotheses.at(0).score == want.hypotheses.at(0).score);
  }
  NBestView nb[2];
  const std::vector<int32_t> src = {5, model->config().eos_id};
  const Span<const int32_t> spans[2] = {src, src};
  CHECK(alone->translate_ids_batch(spans, 2, {}, nb).code() == StatusCode::kInvalidArgument);  // max_batch 1
}

// Greedy batches of 8 or more sentences on a kernel set that puts many int8
// inputs in vector lanes (AVX-512) run the output layer once over the union
// of the sentences' shortlists and keep each row's own columns: the results
// stay exactly those of each sentence alone (int8 sums are exact in every
// kernel, and each row's log-softmax sees its own columns in order). Beam
// batches keep one product per sentence, over the packed union's rows.
TEST_CASE("batched decoding with the shortlist: the union's product gives each sentence its own results") {
  const kernels::KernelTable* lanes = nullptr;
  for (const char* name : kernel_sets()) {
    const kernels::KernelTable* k = kernels::select_kernels(name);
    if (k && k->i8_lanes_min_inputs > 0) lanes = k;
  }
  if (!lanes) {
    MESSAGE("skipped: no kernel set of this CPU puts int8 inputs in lanes (AVX-512 VNNI)");
    return;
  }
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  const std::vector<std::vector<int32_t>> sources = golden::package_sentences(*model);
  SearchOptions greedy, beam;
  greedy.beam_size = 1;
  beam.beam_size = 3;
  INFO(lanes->name);
  CHECK(compare(model, sources, greedy, lanes->name, 12) == 12);
  CHECK(compare(model, sources, greedy, lanes->name, 9) == 12);  // 9, then 3 (under the lanes' minimum)
  CHECK(compare(model, sources, beam, lanes->name, 12) == 12);
}
