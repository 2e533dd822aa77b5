// Ensembles and target prefixes against the PyTorch reference
// (tests/golden/ensembles.json: translate_ids with a list of models, and
// with a forced prefix), in every precision and in a mix of precisions; and
// the properties that need no reference: a one-member ensemble and an
// ensemble of a model with itself are that model bit for bit, a prefix that
// is the search's own beginning changes nothing, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "golden_check.hpp"

using namespace softalign;

namespace {

std::shared_ptr<const Model> load(const std::string& name, const std::string& precision) {
  std::shared_ptr<const Model> model;
  const Status st = Model::load(golden::model_path(name, precision).string(), &model);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return model;
}

TranslatorOptions wide_options() {
  TranslatorOptions opt;
  opt.search.beam_size = 5;  // the golden searches' widest
  opt.search.max_len_a = 1.0f;
  opt.search.max_len_b = 64.0f;
  return opt;
}

// The precisions of an ensemble's members: all the same, or mixed (member i
// takes the i-th of f32, int8, f16, in turn).
std::vector<std::string> precisions_of(const std::string& mode, std::size_t members) {
  static const char* mixed[] = {"f32", "int8", "f16"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < members; ++i) out.push_back(mode == "mixed" ? mixed[i % 3] : mode);
  return out;
}

void check_ensemble(const nlohmann::json& e, const std::string& mode) {
  const auto names = e["members"].get<std::vector<std::string>>();
  const std::vector<std::string> precisions = precisions_of(mode, names.size());
  std::string label;
  std::vector<std::shared_ptr<const Model>> models;
  // The ensemble's tolerance: each member's score is off by at most its own
  // bound, so their mean by at most the largest.
  golden::Tolerance tol;
  bool exact = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    models.push_back(load(names[i], precisions[i]));
    const golden::Tolerance t = golden::tolerance(golden::load_json(names[i]), models.back()->config(), precisions[i]);
    tol.logits = std::max(tol.logits, t.logits);
    tol.att = std::max(tol.att, t.att);
    tol.score = std::max(tol.score, t.score);
    exact = exact && precisions[i] == "f32";
    label += (i ? "+" : "") + names[i] + "." + precisions[i];
  }
  INFO("ensemble ", label);
  std::unique_ptr<Translator> tr;
  const Status st = Translator::prepare(models, wide_options(), &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK(tr->model_count() == names.size());
  const nlohmann::json all = golden::load_ensembles();
  int searches = 0, compared = 0, same = 0;
  double score_err = 0, att_err = 0;
  for (const auto& sent : e["sentences"]) {
    const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
    const std::vector<int32_t> prefix = golden::ids(sent["prefix"]);
    INFO("source ", sent["src_ids"].dump(), " prefix ", sent["prefix"].dump());
    for (const auto& search : sent["search"]) {
      INFO("search ", search["name"].get<std::string>());
      const auto& spec = *std::find_if(all["searches"].begin(), all["searches"].end(),
                                       [&](const nlohmann::json& s) { return s["name"] == search["name"]; });
      SearchOptions so = golden::search_options(spec);
      so.target_prefix_ids = prefix;
      NBestView nb;
      const Status ts = tr->translate_ids(src, so, &nb);
      REQUIRE_MESSAGE(ts.ok(), ts.to_string());
      for (std::size_t r = 0; r < nb.count; ++r) {
        const HypothesisView& v = nb.hypotheses[r];
        REQUIRE(v.length >= prefix.size());
        CHECK(std::vector<int32_t>(v.ids, v.ids + prefix.size()) == prefix);
      }
      const golden::SearchCheck sc = golden::check_search(nb, search, exact, tol, src.size());
      ++searches;
      compared += sc.compared ? 1 : 0;
      same += sc.same ? 1 : 0;
      score_err = std::max(score_err, sc.score);
      att_err = std::max(att_err, sc.att);
    }
  }
  if (exact) CHECK(compared == searches);
  std::printf("ensemble %-46s score %.3g  attention %.3g  ids compared %d/%d, identical %d/%d\n", label.c_str(),
              score_err, att_err, compared, searches, same, searches);
}

using golden::Copy;
using golden::copy;

// Every golden sentence × search on `tr`, copied.
std::vector<std::vector<Copy>> run_all(Translator& tr, const nlohmann::json& g) {
  std::vector<std::vector<Copy>> out;
  for (const auto& sent : g["sentences"])
    for (const auto& spec : g["searches"]) {
      NBestView nb;
      const Status st = tr.translate_ids(golden::ids(sent["src_ids"]), golden::search_options(spec), &nb);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      out.push_back(copy(nb));
    }
  return out;
}

}  // namespace

TEST_CASE("ensembles and target prefixes match the reference") {
  const nlohmann::json all = golden::load_ensembles();
  REQUIRE(all["ensembles"].size() >= 3);
  for (const auto& e : all["ensembles"])
    for (const char* mode : {"f32", "f16", "int8", "mixed"}) check_ensemble(e, mode);
}

TEST_CASE("a one-member ensemble, and a model with itself, are the model bit for bit") {
  for (const std::string& name : golden::names()) {
    const nlohmann::json g = golden::load_json(name);
    for (const char* precision : {"f32", "int8"}) {
      INFO("model ", name, " (", precision, ")");
      const auto model = load(name, precision);
      std::unique_ptr<Translator> single, one, twice;
      REQUIRE(Translator::prepare(model, wide_options(), &single).ok());
      REQUIRE(Translator::prepare(std::vector<std::shared_ptr<const Model>>{model}, wide_options(), &one).ok());
      // Another Model object of the same file: the ensemble engine over two members.
      REQUIRE(Translator::prepare({model, load(name, precision)}, wide_options(), &twice).ok());
      CHECK(twice->model_count() == 2);
      const auto want = run_all(*single, g);
      CHECK(run_all(*one, g) == want);
      CHECK(run_all(*twice, g) == want);  // (x + x) / 2 == x: the mean of equal rows is exact
    }
  }
}

TEST_CASE("an ensemble decodes batches as sentence by sentence") {
  const auto a = load("bahdanau", "f32"), b = load("luong_general", "int8");
  TranslatorOptions opt = wide_options();
  opt.kernels = "ref";
  std::unique_ptr<Translator> one, batched;
  REQUIRE(Translator::prepare({a, b}, opt, &one).ok());
  opt.max_batch = 4;
  REQUIRE(Translator::prepare({a, b}, opt, &batched).ok());
  const nlohmann::json g = golden::load_json("bahdanau");
  std::vector<std::vector<int32_t>> sources = golden::sources(g);
  std::vector<Span<const int32_t>> spans(sources.begin(), sources.end());
  for (const auto& spec : g["searches"]) {
    const SearchOptions so = golden::search_options(spec);
    std::vector<NBestView> views(spans.size());
    REQUIRE(batched->translate_ids_batch(spans.data(), spans.size(), so, views.data()).ok());
    std::vector<std::vector<Copy>> got;
    for (const NBestView& v : views) got.push_back(copy(v));
    for (std::size_t i = 0; i < sources.size(); ++i) {
      NBestView nb;
      REQUIRE(one->translate_ids(sources[i], so, &nb).ok());
      CHECK(copy(nb) == got[i]);
    }
  }
}

// The ensemble's teacher forcing gives the scores its search adds up: the
// log-probability of every hypothesis is the float32 sum of its forced rows.
TEST_CASE("an ensemble's search agrees with its teacher forcing") {
  const auto a = load("bahdanau", "f32"), b = load("luong_2x2", "f16"), c = load("encdec", "int8");
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare({a, b, c}, wide_options(), &tr).ok());
  const int V = a->config().tgt_vocab;
  const nlohmann::json g = golden::load_json("bahdanau");
  for (const auto& sent : g["sentences"]) {
    const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
    for (const auto& spec : g["searches"]) {
      NBestView nb;
      REQUIRE(tr->translate_ids(src, golden::search_options(spec), &nb).ok());
      for (const Copy& h : copy(nb)) {
        const bool eos = h.attention.size() == (h.ids.size() + 1) * src.size();
        std::vector<int32_t> tgt_in = {a->config().bos_id}, tgt_out = h.ids;
        tgt_in.insert(tgt_in.end(), h.ids.begin(), h.ids.end());
        if (eos) tgt_out.push_back(a->config().eos_id);
        tgt_in.resize(tgt_out.size());
        std::vector<float> scores(tgt_in.size() * V), att(tgt_in.size() * src.size());
        REQUIRE(tr->force_decode(src, tgt_in, scores.data(), att.data()).ok());
        float sum = 0.0f;
        for (std::size_t t = 0; t < tgt_in.size(); ++t) sum += scores[t * V + tgt_out[t]];
        CHECK(h.log_prob == doctest::Approx(sum).epsilon(1e-5).scale(1.0));
        for (std::size_t i = 0; i < att.size(); ++i) CHECK(std::fabs(att[i] - h.attention[i]) <= 1e-6f);
      }
    }
  }
}

TEST_CASE("a prefix that is the search's own beginning changes nothing; an empty one is none") {
  for (const std::string& name : golden::names()) {
    const nlohmann::json g = golden::load_json(name);
    INFO("model ", name);
    std::unique_ptr<Translator> tr;
    REQUIRE(Translator::prepare(load(name, "f32"), wide_options(), &tr).ok());
    for (const auto& sent : g["sentences"]) {
      const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
      SearchOptions greedy;
      greedy.beam_size = 1;
      greedy.nbest = 1;
      greedy.beam_rules = BeamRules::kSoftalign;  // prefixes are softalign's
      NBestView nb;
      REQUIRE(tr->translate_ids(src, greedy, &nb).ok());
      const std::vector<Copy> want = copy(nb);
      const std::vector<int32_t>& ids = want[0].ids;
      greedy.target_prefix_ids = Span<const int32_t>(ids.data(), 0);
      REQUIRE(tr->translate_ids(src, greedy, &nb).ok());
      CHECK(copy(nb) == want);
      // Greedy forced along its own choices: the same ids, scores and rows.
      for (std::size_t k = 1; k <= std::min<std::size_t>(ids.size(), 3); ++k) {
        greedy.target_prefix_ids = Span<const int32_t>(ids.data(), k);
        REQUIRE(tr->translate_ids(src, greedy, &nb).ok());
        CHECK(copy(nb) == want);
      }
    }
  }
}

TEST_CASE("a text prefix is tokenised with the target model and begins every hypothesis") {
  const auto model = load("bahdanau", "f32");
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, wide_options(), &tr).ok());
  const nlohmann::json g = golden::load_json("bahdanau");
  const std::string src = g["sentences"][2]["src_text"], tgt = g["sentences"][2]["tgt_text"];
  const std::string prefix = tgt.substr(0, tgt.find(' ', tgt.find(' ') + 1));  // its first two words
  std::vector<int32_t> prefix_ids;
  REQUIRE(model->encode_target(prefix, &prefix_ids).ok());
  REQUIRE(!prefix_ids.empty());
  SearchOptions so;
  so.beam_size = 4;
  so.nbest = 4;
  so.target_prefix = prefix;
  TranslationResult r;
  const Status st = tr->translate(src, so, &r);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  REQUIRE(r.hypotheses.size() == 4);
  for (const Hypothesis& h : r.hypotheses) {
    REQUIRE(h.ids.size() >= prefix_ids.size());
    CHECK(std::vector<int32_t>(h.ids.begin(), h.ids.begin() + prefix_ids.size()) == prefix_ids);
    CHECK(h.text.rfind(prefix, 0) == 0);
  }
  // The same as the ids call with those ids.
  std::vector<int32_t> src_ids;
  REQUIRE(model->encode_source(src, &src_ids).ok());
  SearchOptions by_ids = so;
  by_ids.target_prefix.clear();
  by_ids.target_prefix_ids = prefix_ids;
  NBestView nb;
  REQUIRE(tr->translate_ids(src_ids, by_ids, &nb).ok());
  REQUIRE(nb.count == r.hypotheses.size());
  for (std::size_t i = 0; i < nb.count; ++i)
    CHECK(std::vector<int32_t>(nb.hypotheses[i].ids, nb.hypotheses[i].ids + nb.hypotheses[i].length) ==
          r.hypotheses[i].ids);
  // translate_batch: every sentence gets the prefix.
  std::vector<TranslationResult> batch;
  REQUIRE(tr->translate_batch({src, g["sentences"][1]["src_text"].get<std::string>()}, so, &batch).ok());
  for (const TranslationResult& b : batch)
    for (const Hypothesis& h : b.hypotheses)
      CHECK(std::vector<int32_t>(h.ids.begin(), h.ids.begin() + prefix_ids.size()) == prefix_ids);
}

TEST_CASE("bad prefixes and incompatible ensembles are clear errors") {
  const auto model = load("bahdanau", "f32");
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, wide_options(), &tr).ok());
  const std::vector<int32_t> src = golden::ids(golden::load_json("bahdanau")["sentences"][0]["src_ids"]);  // S = 2
  SearchOptions so;
  so.max_len_a = 1.0f;
  so.max_len_b = 3.0f;  // T = 5
  const std::vector<int32_t> five = {4, 5, 6, 7, 8}, four = {4, 5, 6, 7}, with_eos = {4, model->config().eos_id};
  const std::vector<int32_t> outside = {4, model->config().tgt_vocab};
  NBestView nb;
  so.target_prefix_ids = five;
  Status st = tr->translate_ids(src, so, &nb);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("target prefix has 5 pieces") != std::string::npos);
  so.target_prefix_ids = four;  // T - 1: room for one more token
  st = tr->translate_ids(src, so, &nb);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK(nb.hypotheses[0].length >= 4);
  so.target_prefix_ids = with_eos;
  CHECK(tr->translate_ids(src, so, &nb).code() == StatusCode::kInvalidArgument);
  so.target_prefix_ids = outside;
  CHECK(tr->translate_ids(src, so, &nb).code() == StatusCode::kInvalidArgument);
  so.target_prefix_ids = four;
  so.target_prefix = "texte";
  CHECK(tr->translate_ids(src, so, &nb).code() == StatusCode::kInvalidArgument);  // text is for translate()
  TranslationResult r;
  CHECK(tr->translate("hello", so, &r).code() == StatusCode::kInvalidArgument);  // both set
  // A source too long for the translator is not split when there is a prefix.
  TranslatorOptions short_source = wide_options();
  short_source.max_source_tokens = 4;
  std::unique_ptr<Translator> small;
  REQUIRE(Translator::prepare(model, short_source, &small).ok());
  SearchOptions text_prefix;
  text_prefix.target_prefix = "le";
  const std::string long_text = golden::load_json("bahdanau")["sentences"][3]["src_text"];
  CHECK(small->translate(long_text, &r).ok());  // split, without a prefix
  CHECK(small->translate(long_text, text_prefix, &r).code() == StatusCode::kInputTooLong);
  TranslatorOptions with_prefix = wide_options();
  with_prefix.search.target_prefix = "texte";
  std::unique_ptr<Translator> none;
  CHECK(Translator::prepare(model, with_prefix, &none).code() == StatusCode::kInvalidArgument);

  // Ensembles.
  std::unique_ptr<Translator> e;
  st = Translator::prepare({model, load("bahdanau_shared", "f32")}, wide_options(), &e);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("target vocabulary size") != std::string::npos);
  CHECK(e == nullptr);
  CHECK(Translator::prepare(std::vector<std::shared_ptr<const Model>>{}, wide_options(), &e).code() ==
        StatusCode::kInvalidArgument);
  CHECK(Translator::prepare(std::vector<std::shared_ptr<const Model>>{model, nullptr}, wide_options(), &e).code() ==
        StatusCode::kInvalidArgument);
  std::vector<std::shared_ptr<const Model>> many(TranslatorOptions::kMaxEnsemble + 1, model);
  CHECK(Translator::prepare(many, wide_options(), &e).code() == StatusCode::kInvalidArgument);
  CHECK(Translator::prepare({model, model}, wide_options(), nullptr).code() == StatusCode::kInvalidArgument);
}
