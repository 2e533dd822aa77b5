// The confidence calibration: softalign-convert --confidence embeds it, the
// runtime applies it (the confidence is the logistic map of the features it
// returns), bad fits are refused in one line, and the reader's rules catch a
// damaged table.
#include <cmath>
#include <cstring>

#include <doctest/doctest.h>

#include "checks.h"
#include "softalign/softalign.hpp"

using namespace test;
namespace fb = softalign::fb;

namespace {

struct Fixture {
  TempDir dir;
  TinyModel m = make_model(dir.path, small_config("bahdanau"));
  std::string out() const { return dir.file("m.softalign"); }
  std::string fit(const std::string& text) const {
    write_file(dir.file("fit.json"), text);
    return dir.file("fit.json");
  }
};

const char* const kFit =
    R"({"bias": 0.5, "weights": {"mean_log_prob": 1.25, "attention_entropy": -0.75, "source_length": 0.1},
        "fitted_on": "a test fit"})";

void check_fails(const Run& r, int status, const std::string& text, const std::string& out) {
  CHECK(r.status == status);
  CHECK_MESSAGE(r.err.find(text) != std::string::npos, r.err);
  CHECK(lines(r.err).size() == 1);
  CHECK_FALSE(exists(out));
}

// The best hypothesis of a few texts, translated with the file at `path`.
std::vector<softalign::Hypothesis> translate(const std::string& path, bool* calibrated) {
  std::shared_ptr<const softalign::Model> model;
  REQUIRE(softalign::Model::load(path, &model).ok());
  *calibrated = model->confidence_calibrated();
  std::unique_ptr<softalign::Translator> tr;
  softalign::TranslatorOptions options;
  options.copy_through = false;  // the ids as the search left them
  REQUIRE(softalign::Translator::prepare(model, options, &tr).ok());
  std::vector<softalign::Hypothesis> out;
  for (const char* text : {"the cat", "a mat sat", "cat"}) {
    softalign::TranslationResult r;
    REQUIRE(tr->translate(text, &r).ok());
    out.push_back(r.hypotheses.at(0));
  }
  return out;
}

float feature(const softalign::Hypothesis& h, softalign::ConfidenceFeature f) { return h.confidence_features[f]; }

}  // namespace

TEST_CASE("--confidence embeds the fit; --inspect shows it; the runtime applies it; same bytes twice") {
  Fixture f;
  const Run r = run_convert({"--int8", f.m.weights, "-o", f.out(), "--confidence", f.fit(kFit)});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto bytes = read_file(f.out());
  const fb::Confidence* conf = verified(bytes)->confidence();
  REQUIRE(conf != nullptr);
  CHECK(conf->bias() == 0.5f);
  CHECK(conf->features()->size() == 3);
  CHECK(conf->fitted_on()->str() == "a test fit");

  const Run insp = run_convert({"--inspect", f.out()});
  REQUIRE(insp.status == 0);
  CHECK_MESSAGE(insp.out.find("confidence:\n  fitted_on: a test fit\n  bias: 0.5\n") != std::string::npos, insp.out);
  CHECK(insp.out.find("  weight mean_log_prob: 1.25\n") != std::string::npos);

  REQUIRE(run_convert({"--int8", f.m.weights, "-o", f.dir.file("again.softalign"), "--confidence", f.dir.file("fit.json")})
              .status == 0);
  CHECK(read_file(f.dir.file("again.softalign")) == bytes);

  using F = softalign::ConfidenceFeature;
  bool calibrated = false;
  for (const softalign::Hypothesis& h : translate(f.out(), &calibrated)) {
    CAPTURE(h.text);
    const double z = 0.5 + 1.25 * feature(h, F::kMeanLogProb) - 0.75 * feature(h, F::kAttentionEntropy) +
                     0.1 * feature(h, F::kSourceLength);
    CHECK(h.confidence == doctest::Approx(1.0 / (1.0 + std::exp(-z))).epsilon(1e-5));
    CHECK(h.confidence >= 0.0f);
    CHECK(h.confidence <= 1.0f);
    // The features' definitions (softalign/confidence.hpp) on this hypothesis.
    const bool cut = feature(h, F::kTruncated) == 1.0f;  // no EOS piece
    CHECK(feature(h, F::kMeanLogProb) == doctest::Approx(h.log_prob / static_cast<float>(h.ids.size() + (cut ? 0 : 1))));
    CHECK(feature(h, F::kSourceLength) == doctest::Approx(std::log(static_cast<float>(h.source_length))));
    CHECK(feature(h, F::kMinLogProb) <= feature(h, F::kMeanLogProb) + 1e-5f);
    CHECK(feature(h, F::kAttentionEntropy) >= 0.0f);
    CHECK(feature(h, F::kAttentionEntropy) <= 1.0f + 1e-5f);
  }
  CHECK(calibrated);

  // Without the option: no table, and the confidence is exp(mean_log_prob).
  REQUIRE(run_convert({"--int8", f.m.weights, "-o", f.dir.file("plain.softalign")}).status == 0);
  CHECK(verified(read_file(f.dir.file("plain.softalign")))->confidence() == nullptr);
  CHECK(run_convert({"--inspect", f.dir.file("plain.softalign")}).out.find("confidence: none") != std::string::npos);
  for (const softalign::Hypothesis& h : translate(f.dir.file("plain.softalign"), &calibrated))
    CHECK(h.confidence == doctest::Approx(std::exp(feature(h, F::kMeanLogProb))));
  CHECK_FALSE(calibrated);
}

TEST_CASE("--confidence errors: one line, no output file") {
  Fixture f;
  const std::string w = f.m.weights, o = f.out();
  check_fails(run_convert({w, "-o", o, "--confidence", f.dir.file("missing.json")}), 1,
              "cannot read the confidence fit", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit("{\"bias\": 1,")}), 1, "fit.json", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit("[1, 2]")}), 1, "a confidence fit is", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit(R"({"weights": {"mean_log_prob": 1}})")}), 1,
              "a confidence fit is", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit(R"({"bias": 0, "weights": {"sentiment": 1}})")}), 1,
              "unknown confidence feature \"sentiment\" (known: mean_log_prob,", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit(R"({"bias": 0, "weights": {"repaired": "high"}})")}), 1,
              "the weight of repaired is not a number", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit(R"({"bias": 1e300, "weights": {"repaired": 1}})")}), 1,
              "bias is not a finite number", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit(R"({"bias": 0, "weights": {}})")}), 1,
              "weighs no feature", o);
  check_fails(run_convert({w, "-o", o, "--confidence", f.fit(R"({"bias": 0, "weights": {"repaired": 1},
                                                                  "fitted_on": 7})")}),
              1, "fitted_on is not a string", o);
  // A command-line usage error (exit status 2).
  check_fails(run_convert({w, "-o", o, "--confidence"}), 2, "--confidence", o);
}

TEST_CASE("the reader rejects a damaged confidence table; a feature it does not know leaves it uncalibrated") {
  Fixture f;
  REQUIRE(run_convert({f.m.weights, "-o", f.out(), "--confidence", f.fit(kFit)}).status == 0);
  const std::vector<uint8_t> good = read_file(f.out());
  const fb::Confidence& gc = *verified(good)->confidence();
  const std::size_t weight0 = reinterpret_cast<const uint8_t*>(gc.weights()->data()) - good.data();
  const std::size_t bias_in = [&] {  // the bias: the table's inline 0.5f (its other fields are offsets)
    const float half = 0.5f;
    const std::size_t table = reinterpret_cast<const uint8_t*>(&gc) - good.data();
    for (std::size_t at = table; at < table + 32; at += 4)
      if (std::memcmp(good.data() + at, &half, 4) == 0) return at;
    return std::size_t{0};
  }();
  REQUIRE(bias_in != 0);
  // The features are written sorted: attention_entropy, mean_log_prob, source_length.
  REQUIRE(gc.features()->Get(0)->str() == "attention_entropy");
  const std::size_t name0 = reinterpret_cast<const uint8_t*>(gc.features()->Get(0)->data()) - good.data();
  const std::size_t name1 = reinterpret_cast<const uint8_t*>(gc.features()->Get(1)->data()) - good.data();

  auto refused = [&](std::vector<uint8_t> bad, const char* message) {
    CAPTURE(message);
    std::string err;
    CHECK(softalign::format::verify_model(bad.data(), bad.size(), &err) == nullptr);
    CHECK_MESSAGE(err.find("confidence") != std::string::npos, err);
    CHECK_MESSAGE(err.find(message) != std::string::npos, err);
    std::shared_ptr<const softalign::Model> model;
    const softalign::Status st = softalign::Model::load_from_bytes(bad.data(), bad.size(), &model);
    CHECK(st.code() == softalign::StatusCode::kInvalidModel);
  };
  const float nan = std::nanf("");
  std::vector<uint8_t> b = good;
  std::memcpy(b.data() + weight0, &nan, 4);
  refused(b, "the weight of feature 0 is not finite");
  b = good;
  const float inf = INFINITY;
  std::memcpy(b.data() + bias_in, &inf, 4);
  refused(b, "the bias is not finite");
  b = good;
  const uint32_t two = 2;  // weights' length 3 -> 2
  std::memcpy(b.data() + weight0 - 4, &two, 4);
  refused(b, "3 features but 2 weights");

  // The first name rewritten in place as the second (shorter) one: a name twice.
  b = good;
  const std::string first = gc.features()->Get(0)->str(), second = gc.features()->Get(1)->str();
  REQUIRE(first.size() > second.size());
  const uint32_t len = static_cast<uint32_t>(second.size());
  std::memcpy(b.data() + name0 - 4, &len, 4);
  std::memcpy(b.data() + name0, second.data(), second.size());
  b[name0 + second.size()] = 0;
  refused(b, "feature \"mean_log_prob\" named twice");

  // A name this runtime does not know (a newer converter's feature): the file loads, uncalibrated.
  b = good;
  b[name1] = 'X';  // "Xean_log_prob"
  std::shared_ptr<const softalign::Model> model;
  REQUIRE(softalign::Model::load_from_bytes(b.data(), b.size(), &model).ok());
  CHECK_FALSE(model->confidence_calibrated());
  REQUIRE(softalign::Model::load_from_bytes(good.data(), good.size(), &model).ok());
  CHECK(model->confidence_calibrated());
  CHECK(model->confidence_fitted_on() == "a test fit");
}
