// A translation's confidence: the features' definitions on a view worked by
// hand, the search's per-step log-probabilities against teacher-forced
// decoding of the same ids (the oracle), the repeated-word rule, the long
// input path, and the shipped en-fr file's calibration.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "text/confidence.hpp"
#include "golden_util.hpp"
#include "shipped_model.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;
using F = ConfidenceFeature;

TEST_CASE("count_words: runs of non-space bytes") {
  CHECK(internal::count_words("") == 0);
  CHECK(internal::count_words("  ") == 0);
  CHECK(internal::count_words("le chat") == 2);
  CHECK(internal::count_words(" %s\tfichier(s)\n ") == 2);
}

TEST_CASE("repeats_a_word: two equal words (two or more letters or digits) with only white space between") {
  using internal::repeats_a_word;
  CHECK(repeats_a_word("utilisé pour collaborative collaborative"));
  CHECK(repeats_a_word("als einfaches einfaches und"));
  CHECK(repeats_a_word("Les les fichiers"));  // ASCII case ignored
  CHECK(repeats_a_word("un été été chaud"));  // UTF-8 letters are word bytes
  CHECK(repeats_a_word("version 12 12"));
  CHECK_FALSE(repeats_a_word("Non, non"));    // punctuation between
  CHECK_FALSE(repeats_a_word("a a"));         // one letter
  CHECK_FALSE(repeats_a_word("le fichier le fichier"));
  CHECK_FALSE(repeats_a_word("foo-foo"));
  CHECK_FALSE(repeats_a_word(""));
  CHECK_FALSE(repeats_a_word("   "));
}

TEST_CASE("confidence features of a view worked by hand") {
  // Two target ids then EOS (3 rows) over a source of 2 pieces + EOS (3 columns).
  const int32_t ids[] = {5, 6};
  const float att[] = {0.8f, 0.1f, 0.1f,  //
                       0.7f, 0.2f, 0.1f,  //
                       0.0f, 0.0f, 1.0f};
  const float steps[] = {std::log(0.9f), std::log(0.2f), std::log(0.6f)};
  HypothesisView v;
  v.ids = ids;
  v.length = 2;
  v.attention = att;
  v.attention_rows = 3;
  v.source_length = 3;
  v.step_log_probs = steps;
  v.log_prob = steps[0] + steps[1] + steps[2];
  const std::vector<TextRange> copied = {{0, 4}};
  internal::ConfidenceInputs in;
  in.source = "wxyz abcdef";
  in.source_pieces = 5;
  in.copied = &copied;
  in.text = "le le chat";
  in.target_pieces = 2;
  in.repaired = true;
  const ConfidenceFeatures f = internal::confidence_features(v, in);
  CHECK(f[F::kMeanLogProb] == doctest::Approx(v.log_prob / 3));
  CHECK(f[F::kMinLogProb] == doctest::Approx(std::log(0.2f)));
  CHECK(f[F::kLowProbShare] == doctest::Approx(1.0 / 3));
  auto h = [](std::vector<double> row) {
    double s = 0;
    for (double p : row)
      if (p > 0) s -= p * std::log(p);
    return s / std::log(3.0);
  };
  CHECK(f[F::kAttentionEntropy] == doctest::Approx((h({0.8, 0.1, 0.1}) + h({0.7, 0.2, 0.1}) + 0.0) / 3).epsilon(1e-5));
  // Column sums (EOS left out): 1.5 and 0.3: one of two source pieces uncovered.
  CHECK(f[F::kUncoveredSource] == doctest::Approx(0.5));
  CHECK(f[F::kLengthRatio] == doctest::Approx(std::log(3.0 / 3.0)));
  CHECK(f[F::kSourceLength] == doctest::Approx(std::log(3.0)));
  CHECK(f[F::kCopiedShare] == doctest::Approx(4.0 / 11));
  CHECK(f[F::kRepaired] == 1.0f);
  CHECK(f[F::kRepeatedWord] == 1.0f);
  CHECK(f[F::kTruncated] == 0.0f);
  CHECK(f[F::kSourcePiecesPerWord] == doctest::Approx(std::log(5.0 / 2)));
  CHECK(f[F::kTargetPiecesPerWord] == doctest::Approx(std::log(2.0 / 3)));
  CHECK(f[F::kByteLengthRatio] == doctest::Approx(std::log(11.0 / 12)));
  // Cut at the maximum length: no EOS row. Nothing translated: pieces and words count as 1.
  v.length = 3;
  const ConfidenceFeatures cut = internal::confidence_features(v, internal::ConfidenceInputs());
  CHECK(cut[F::kTruncated] == 1.0f);
  CHECK(cut[F::kSourcePiecesPerWord] == 0.0f);
  CHECK(cut[F::kTargetPiecesPerWord] == 0.0f);
  CHECK(cut[F::kByteLengthRatio] == 0.0f);
  // Uncalibrated: the pieces' geometric mean probability; calibrated: the logistic map.
  internal::ConfidenceCalibration cal;
  CHECK(internal::confidence_of(cal, f) == doctest::Approx(std::exp(v.log_prob / 3)));
  cal.present = true;
  cal.bias = -1.0f;
  cal.weights[static_cast<std::size_t>(F::kRepaired)] = 3.0f;
  CHECK(internal::confidence_of(cal, f) == doctest::Approx(1.0 / (1.0 + std::exp(-2.0))));
}

TEST_CASE("each step's log-probability is the teacher-forced log-softmax of its id (golden models, beam 3)") {
  for (const char* name : {"bahdanau", "luong_dot", "luong_local_p", "bahdanau_shared"}) {
    CAPTURE(name);
    std::shared_ptr<const Model> m;
    REQUIRE(Model::load(golden::model_path(name, "f32").string(), &m).ok());
    TranslatorOptions o;
    o.search.beam_size = 3;
    o.search.nbest = 3;
    o.search.alpha = 0.6f;
    std::unique_ptr<Translator> tr;
    REQUIRE(Translator::prepare(m, o, &tr).ok());
    const int V = m->config().tgt_vocab;
    for (const std::vector<int32_t>& src : golden::sources(golden::load_json(name))) {
      NBestView nb;
      REQUIRE(tr->translate_ids(Span<const int32_t>(src.data(), src.size()), &nb).ok());
      std::vector<std::vector<int32_t>> hyps;
      std::vector<std::vector<float>> steps;
      std::vector<float> totals;
      for (std::size_t r = 0; r < nb.count; ++r) {
        const HypothesisView& v = nb.hypotheses[r];
        REQUIRE(v.step_log_probs != nullptr);
        hyps.emplace_back(v.ids, v.ids + v.length);
        steps.emplace_back(v.step_log_probs, v.step_log_probs + v.attention_rows);
        totals.push_back(v.log_prob);
      }
      for (std::size_t r = 0; r < hyps.size(); ++r) {
        double sum = 0;
        for (float s : steps[r]) sum += s;
        CHECK(sum == doctest::Approx(totals[r]).epsilon(1e-4));
        // The oracle: BOS + ids in, each row's log-softmax at the next id (EOS last).
        std::vector<int32_t> in = {m->config().bos_id};
        in.insert(in.end(), hyps[r].begin(), hyps[r].end());
        in.resize(steps[r].size());
        std::vector<float> logits(in.size() * V);
        REQUIRE(tr->force_decode(Span<const int32_t>(src.data(), src.size()), Span<const int32_t>(in.data(), in.size()),
                                 logits.data(), nullptr)
                    .ok());
        for (std::size_t t = 0; t < in.size(); ++t) {
          const float* row = logits.data() + t * V;
          double mx = row[0], z = 0;
          for (int k = 0; k < V; ++k) mx = std::max(mx, static_cast<double>(row[k]));
          for (int k = 0; k < V; ++k) z += std::exp(row[k] - mx);
          const int32_t next = t < hyps[r].size() ? hyps[r][t] : m->config().eos_id;
          CHECK(steps[r][t] == doctest::Approx(row[next] - mx - std::log(z)).epsilon(1e-4));
        }
      }
    }
  }
}

TEST_CASE("text calls: a confidence in [0, 1] for every hypothesis, a split long input and a blank one too") {
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("bahdanau", "int8").string(), &m).ok());
  TranslatorOptions o;
  o.search.beam_size = 2;
  o.search.nbest = 2;
  o.max_source_tokens = 12;  // the long line below is split
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(m, o, &tr).ok());
  for (const char* text : {"the cat", "a mat sat on the cat", "x", "the cat. the cat sat on a mat. a mat. the cat sat."}) {
    CAPTURE(text);
    TranslationResult r;
    REQUIRE(tr->translate(text, &r).ok());
    for (const Hypothesis& h : r.hypotheses) {
      CHECK(h.confidence >= 0.0f);
      CHECK(h.confidence <= 1.0f);
      for (float v : h.confidence_features.values) CHECK(std::isfinite(v));
    }
  }
  TranslationResult blank;
  REQUIRE(tr->translate("  ", &blank).ok());
  CHECK(blank.hypotheses.at(0).confidence == 1.0f);
}

TEST_CASE("the shipped en-fr file is calibrated: software text above what it fails at") {
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  REQUIRE(model->confidence_calibrated());
  CHECK(model->confidence_fitted_on().find("chrF") != std::string_view::npos);
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  auto confidence = [&](const char* text) {
    TranslationResult r;
    REQUIRE(tr->translate(text, &r).ok());
    return r.hypotheses.at(0).confidence;
  };
  const float good = confidence("This package contains the documentation.");
  CHECK(good > 0.6f);
  for (const char* bad : {"I love you.", "Where is the train station?", "The weather is nice today."}) {
    CAPTURE(bad);
    CHECK(confidence(bad) < good);
  }
}
