// The text API around the core: translate() equals translate_ids() on the
// tokenised source, batches return input order and never change a sentence's
// result, alignments, threads, loading from memory, shared models.
#include <doctest/doctest.h>

#include "kernels/kernels.hpp"

#include <fstream>
#include <thread>

#include "golden_util.hpp"

using namespace softalign;

namespace {

std::shared_ptr<const Model> load_golden(const std::string& name, const char* precision = "f32") {
  std::shared_ptr<const Model> m;
  Status st = Model::load(golden::model_path(name, precision).string(), &m);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return m;
}

std::unique_ptr<Translator> make(std::shared_ptr<const Model> m, TranslatorOptions o = {}) {
  std::unique_ptr<Translator> tr;
  Status st = Translator::prepare(std::move(m), o, &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return tr;
}

std::vector<std::string> golden_texts(const std::string& name) {
  std::vector<std::string> out;
  const nlohmann::json g = golden::load_json(name);
  for (const auto& s : g["sentences"]) out.push_back(s["src_text"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("model accessors") {
  auto m = load_golden("luong_local_p");
  const ModelConfig& c = m->config();
  CHECK(c.variant == Variant::kLuong);
  CHECK(c.scope == Scope::kLocalP);
  CHECK(c.score == Score::kGeneral);
  CHECK(std::string(scope_name(c.scope)) == "local-p");
  CHECK(m->weight_type() == WeightType::kF32);
  CHECK(load_golden("luong_local_p", "int8")->weight_type() == WeightType::kI8);
  CHECK(load_golden("luong_local_p", "f16")->weight_type() == WeightType::kF16);
  CHECK(m->schema_version() == 1);
  CHECK(m->file_bytes() > 0);
  CHECK(c.src_lang == "en");
  CHECK(m->metadata_value("src_lang") == "en");
  CHECK(m->metadata_value("no such key").empty());
}

TEST_CASE("translate(text) is translate_ids on the tokenised source") {
  for (const std::string name : {"bahdanau", "luong_concat", "bahdanau_shared"}) {
    auto m = load_golden(name);
    auto tr = make(m);
    for (const std::string& text : golden_texts(name)) {
      INFO(name, ": ", text);
      TranslationResult r;
      REQUIRE(tr->translate(text, &r).ok());
      std::vector<int32_t> ids;
      std::vector<std::string> pieces;
      REQUIRE(m->encode_source(text, &ids, &pieces).ok());
      CHECK(r.source_ids == ids);
      CHECK(r.source_pieces == pieces);
      CHECK(ids.back() == m->config().eos_id);
      NBestView nb;
      REQUIRE(tr->translate_ids(ids, &nb).ok());
      REQUIRE(r.hypotheses.size() == nb.count);
      for (std::size_t i = 0; i < nb.count; ++i) {
        const Hypothesis& h = r.hypotheses[i];
        CHECK(h.ids == std::vector<int32_t>(nb.hypotheses[i].ids, nb.hypotheses[i].ids + nb.hypotheses[i].length));
        CHECK(h.score == nb.hypotheses[i].score);
        CHECK(h.pieces.size() == h.ids.size());
        std::string text2;
        REQUIRE(m->decode_target(h.ids.data(), h.ids.size(), &text2).ok());
        CHECK(h.text == text2);
        CHECK(h.attention.empty());  // not asked for
      }
      // Scores best first.
      for (std::size_t i = 1; i < r.hypotheses.size(); ++i)
        CHECK(r.hypotheses[i - 1].score >= r.hypotheses[i].score);
    }
  }
}

TEST_CASE("golden sentences through the text API give the golden ids") {
  // The reference tokenised src_text into src_ids; the defaults are golden.json's beam-4 search.
  const auto g = golden::load_json("bahdanau");
  auto tr = make(load_golden("bahdanau"));
  for (const auto& s : g["sentences"]) {
    TranslationResult r;
    REQUIRE(tr->translate(s["src_text"].get<std::string>(), &r).ok());
    CHECK(r.source_ids == golden::ids(s["src_ids"]));
  }
}

TEST_CASE("batches: input order, and a sentence's result never depends on its batch") {
  auto m = load_golden("luong_general");
  auto tr = make(m);
  std::vector<std::string> texts = golden_texts("luong_general");
  texts.push_back("");
  std::reverse(texts.begin(), texts.end());
  const std::string dup = texts[1];
  texts.push_back(dup);  // a duplicate
  std::vector<TranslationResult> batch;
  REQUIRE(tr->translate_batch(texts, &batch).ok());
  REQUIRE(batch.size() == texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    auto fresh = make(m);
    TranslationResult alone;
    REQUIRE(fresh->translate(texts[i], &alone).ok());
    REQUIRE(batch[i].hypotheses.size() == alone.hypotheses.size());
    for (std::size_t h = 0; h < alone.hypotheses.size(); ++h) {
      CHECK(batch[i].hypotheses[h].ids == alone.hypotheses[h].ids);
      CHECK(batch[i].hypotheses[h].text == alone.hypotheses[h].text);
      CHECK(batch[i].hypotheses[h].score == alone.hypotheses[h].score);
    }
  }
  std::vector<TranslationResult> none;
  CHECK(tr->translate_batch({}, &none).ok());
  CHECK(none.empty());
}

TEST_CASE("soft and hard alignments") {
  auto m = load_golden("bahdanau");
  auto tr = make(m);
  SearchOptions so;
  so.return_attention = true;
  so.return_alignment = true;
  so.nbest = 2;
  const std::string text = golden_texts("bahdanau").back();
  TranslationResult r;
  REQUIRE(tr->translate(text, so, &r).ok());
  REQUIRE(r.hypotheses.size() == 2);
  const std::size_t S = r.source_ids.size();
  for (const Hypothesis& h : r.hypotheses) {
    CHECK(h.source_length == S);
    CHECK((h.attention_rows == h.ids.size() + 1 || h.attention_rows == h.ids.size()));
    REQUIRE(h.attention.size() == h.attention_rows * S);
    for (std::size_t i = 0; i < h.attention_rows; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < S; ++j) sum += h.attention[i * S + j];
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));  // bahdanau: global softmax
    }
    REQUIRE(h.alignment_pieces.size() == h.ids.size());
    for (std::size_t i = 0; i < h.ids.size(); ++i) {
      const AlignmentLink& l = h.alignment_pieces[i];
      CHECK(l.target == static_cast<int>(i));
      REQUIRE(l.source >= 0);
      REQUIRE(l.source < static_cast<int>(S) - 1);  // never the source EOS
      for (std::size_t j = 0; j + 1 < S; ++j) CHECK(h.attention[i * S + j] <= h.attention[i * S + l.source]);
    }
    const std::string ph = to_pharaoh(h.alignment_words);
    CHECK((h.ids.empty() || !ph.empty()));
    for (const AlignmentLink& l : h.alignment_words) CHECK(l.source <= static_cast<int>(S));
  }
  CHECK(to_pharaoh({{0, 0}, {2, 1}}) == "0-0 2-1");
  // Attention only, no alignment.
  so.return_alignment = false;
  REQUIRE(tr->translate(text, so, &r).ok());
  CHECK(!r.hypotheses[0].attention.empty());
  CHECK(r.hypotheses[0].alignment_pieces.empty());
}

TEST_CASE("threads, memory loading and a model shared by translators on several threads") {
  const auto path = golden::model_path("bahdanau_shared", "f32");
  auto m = load_golden("bahdanau_shared");
  const auto texts = golden_texts("bahdanau_shared");
  std::vector<TranslationResult> expected;
  REQUIRE(make(m)->translate_batch(texts, &expected).ok());

  TranslatorOptions two;
  two.threads = 2;
  std::vector<TranslationResult> got;
  REQUIRE(make(m, two)->translate_batch(texts, &got).ok());
  for (std::size_t i = 0; i < texts.size(); ++i)
    CHECK(got[i].hypotheses[0].ids == expected[i].hypotheses[0].ids);

  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  std::shared_ptr<const Model> copy;
  REQUIRE(Model::load_from_bytes(bytes.data(), bytes.size(), &copy).ok());
  REQUIRE(make(copy)->translate_batch(texts, &got).ok());
  for (std::size_t i = 0; i < texts.size(); ++i) CHECK(got[i].hypotheses[0].text == expected[i].hypotheses[0].text);

  std::vector<std::vector<TranslationResult>> per_thread(3);
  std::vector<int> ok(3, 0);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        std::unique_ptr<Translator> tr;
        if (!Translator::prepare(m, {}, &tr).ok()) return;
        for (int round = 0; round < 5; ++round)
          if (!tr->translate_batch(texts, &per_thread[t]).ok()) return;
        ok[t] = 1;
      });
    for (auto& th : threads) th.join();
  }
  for (int t = 0; t < 3; ++t) {
    REQUIRE(ok[t] == 1);
    for (std::size_t i = 0; i < texts.size(); ++i)
      CHECK(per_thread[t][i].hypotheses[0].ids == expected[i].hypotheses[0].ids);
  }
}

TEST_CASE("arena size follows the prepared limits") {
  auto m = load_golden("bahdanau");
  TranslatorOptions small;
  small.max_source_tokens = 8;
  small.search.beam_size = 1;
  TranslatorOptions big;
  big.search.beam_size = 8;
  big.search.nbest = 1;
  auto a = make(m, small), b = make(m, big);
  CHECK(a->arena_bytes() > 0);
  CHECK(a->arena_bytes() < b->arena_bytes());
  CHECK(a->max_source_tokens() == 8);
  CHECK(b->max_source_tokens() == m->config().max_src_len);
  // The default is the best set this CPU runs (or $SOFTALIGN_KERNELS).
  CHECK(std::string(a->kernels_name()) == softalign::kernels::select_kernels("")->name);
  CHECK(*b->options().search.beam_size == 8);
}
