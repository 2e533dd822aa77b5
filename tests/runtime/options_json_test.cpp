// The options described once (runtime/src/api/option_table.cpp): JSON in,
// JSON out, the defaults TranslatorOptions' own; and the one result writer.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "api/option_table.hpp"
#include "golden_util.hpp"

using namespace softalign;

TEST_CASE("options json: the defaults are TranslatorOptions', every option named once") {
  const nlohmann::json d = nlohmann::json::parse(options_json(TranslatorOptions()));
  CHECK(d.size() == internal::option_table().size());
  CHECK(d["beam"].is_null());
  CHECK(d["alpha"].is_null());
  CHECK(d["threads"] == TranslatorOptions().threads);
  CHECK(d["max_batch"] == TranslatorOptions().max_batch);
  CHECK(d["device"] == "cpu");
  CHECK(d["copy_through"] == true);
  CHECK(d["max_line_bytes"] == TranslatorOptions().max_line_bytes);
  for (const internal::OptionSpec& spec : internal::option_table()) {
    INFO(spec.name);
    CHECK(internal::find_option(spec.name) == &spec);
    CHECK(d.contains(spec.name));
  }
  // Reading the defaults back changes nothing.
  TranslatorOptions o;
  REQUIRE(parse_options_json(d.dump(), &o).ok());
  CHECK(options_json(o) == options_json(TranslatorOptions()));
}

TEST_CASE("options json: each option sets its field, and writes back the same") {
  const std::string json =
      R"({"beam": 4, "nbest": 2, "alpha": 0.5, "beta": 0.25, "max_len_a": 1.5, "max_len_b": 10,
          "block_repeats": 2, "alignment": true, "max_source_tokens": 40, "split_long_input": false,
          "replace_invalid_utf8": true, "copy_through": false, "repair_placeholders": false,
          "glossary": [["file", "fichier"]], "max_batch": 8, "threads": 2, "device": "auto",
          "use_shortlist": false, "kernels": "ref", "max_arena_bytes": 1048576, "max_line_bytes": 4096,
          "timeout_ms": 250, "beam_rules": "joeynmt"})";
  TranslatorOptions o;
  const Status st = parse_options_json(json, &o);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK(o.search.beam_size == 4);
  CHECK(o.search.nbest == 2);
  CHECK(o.search.alpha == 0.5f);
  CHECK(o.search.beta == 0.25f);
  CHECK(o.search.max_len_a == 1.5f);
  CHECK(o.search.max_len_b == 10.0f);
  CHECK(o.search.block_repeats == 2);
  CHECK(o.search.return_attention);
  CHECK(o.search.return_alignment);
  CHECK(o.max_source_tokens == 40);
  CHECK(o.long_input == LongInputPolicy::kError);
  CHECK(o.invalid_utf8 == InvalidUtf8Policy::kReplace);
  CHECK(!o.copy_through);
  CHECK(!o.repair_placeholders);
  REQUIRE(o.glossary.size() == 1);
  CHECK(o.glossary[0].target == "fichier");
  CHECK(o.max_batch == 8);
  CHECK(o.threads == 2);
  CHECK(o.backend == Backend::kAuto);
  CHECK(!o.use_shortlist);
  CHECK(o.kernels == "ref");
  CHECK(o.max_arena_bytes == 1048576);
  CHECK(o.max_line_bytes == 4096);
  CHECK(o.search.timeout_ms == 250);
  CHECK(o.search.beam_rules == BeamRules::kJoeyNmt);
  CHECK(nlohmann::json::parse(options_json(o)) == nlohmann::json::parse(json));
  CHECK_FALSE(parse_options_json(R"({"beam_rules": "marian"})", &o).ok());
  // null gives a search option back to the model; TSV text is a glossary too.
  REQUIRE(parse_options_json(R"({"beam": null, "glossary": "a\tb\n"})", &o).ok());
  CHECK(!o.search.beam_size);
  REQUIRE(o.glossary.size() == 1);
  CHECK(o.glossary[0].source == "a");
}

TEST_CASE("options json: what is refused names the option, and changes nothing") {
  const char* bad[] = {
      "", "{", "[]", "3", R"({"bogus": 1})", R"({"beam": "4"})", R"({"beam": 1.5})", R"({"beam": 4294967296})",
      R"({"alpha": "NaN"})", R"({"alpha": 1e999})", R"({"copy_through": 1})", R"({"device": "gpu"})",
      R"({"kernels": 3})", R"({"max_line_bytes": 0})", R"({"max_arena_bytes": -1})", R"({"glossary": [["a"]]})",
      R"({"glossary": "no tab"})", R"({"threads": true})"};
  for (const char* json : bad) {
    INFO(std::string(json));
    TranslatorOptions o;
    o.threads = 3;
    const Status st = parse_options_json(json, &o);
    CHECK(st.code() == StatusCode::kInvalidArgument);
    CHECK(o.threads == 3);
  }
  TranslatorOptions o;
  CHECK(parse_options_json(R"({"bogus": 1})", &o).message().find("bogus") != std::string::npos);
  CHECK(parse_options_json(R"({"beam": "4"})", &o).message().find("beam") != std::string::npos);
  CHECK(parse_options_json("{}", nullptr).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("result json: the one writer, with index and confidence marks") {
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &m).ok());
  TranslatorOptions o;
  REQUIRE(parse_options_json(R"({"beam": 2, "nbest": 2, "alignment": true})", &o).ok());
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(m, o, &tr).ok());
  TranslationResult r;
  REQUIRE(tr->translate("hello world", &r).ok());
  const nlohmann::json j = nlohmann::json::parse(result_json(r));
  CHECK(!j.contains("index"));
  CHECK(j["source_pieces"].size() == r.source_pieces.size());
  REQUIRE(j["hypotheses"].size() == r.hypotheses.size());
  for (std::size_t k = 0; k < r.hypotheses.size(); ++k) {
    const Hypothesis& h = r.hypotheses[k];
    const nlohmann::json& jh = j["hypotheses"][k];
    CHECK(jh["text"] == h.text);
    CHECK(jh["ids"] == h.ids);
    CHECK(jh["score"].get<float>() == h.score);
    CHECK(jh["attention"].size() == h.attention_rows);
    CHECK(jh["alignment"] == to_pharaoh(h.alignment_pieces));
    CHECK(!jh.contains("low_confidence"));
  }
  ResultJsonOptions w;
  w.index = 7;
  w.min_confidence = 2.0f;  // above every confidence: all low
  const nlohmann::json marked = nlohmann::json::parse(result_json(r, w));
  CHECK(marked["index"] == 7);
  CHECK(marked["hypotheses"][0]["low_confidence"] == true);
  w.drop_low_confidence = true;
  CHECK(nlohmann::json::parse(result_json(r, w))["hypotheses"].empty());
  CHECK(nlohmann::json::parse(failure_json("x: y", w)) == nlohmann::json({{"index", 7}, {"error", "x: y"}}));
}
