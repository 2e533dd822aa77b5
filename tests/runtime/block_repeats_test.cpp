// Repetition blocking (SearchOptions::block_repeats) on the shipped en→fr
// file: a sentence the model stutters on ("génériques génériques ...") comes
// out without a word repeated back to back, the option's range is checked,
// and the default is the model file's (0 in files without it).
#include <doctest/doctest.h>

#include <sstream>

#include "shipped_model.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

// Whether some word of `text` equals the next one (compared as written).
bool repeats_a_word(const std::string& text) {
  std::istringstream in(text);
  std::string prev, word;
  while (in >> word) {
    if (word == prev) return true;
    prev = word;
  }
  return false;
}

}  // namespace

TEST_CASE("block_repeats keeps a stuttering output from repeating a word") {
  const auto model = golden::shipped_en_fr();
  CHECK(model->config().decoding.block_repeats == 0);  // the shipped files predate the field
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  const std::string source = "* Generic editors for generic diagrams, generic tables and generic trees.";
  TranslationResult plain, blocked;
  REQUIRE(tr->translate(source, &plain).ok());
  CHECK_MESSAGE(repeats_a_word(plain.hypotheses.at(0).text), plain.hypotheses.at(0).text);
  for (const int beam : {1, 5}) {
    SearchOptions s;
    s.beam_size = beam;
    s.block_repeats = 8;
    REQUIRE(tr->translate(source, s, &blocked).ok());
    CHECK_MESSAGE(!repeats_a_word(blocked.hypotheses.at(0).text), blocked.hypotheses.at(0).text);
  }
  // Prepared with it, every call blocks unless it says otherwise.
  TranslatorOptions o;
  o.search.block_repeats = 8;
  std::unique_ptr<Translator> blocking;
  REQUIRE(Translator::prepare(model, o, &blocking).ok());
  TranslationResult again;
  REQUIRE(blocking->translate(source, &again).ok());
  CHECK(again.hypotheses.at(0).text == blocked.hypotheses.at(0).text);
  SearchOptions off;
  off.block_repeats = 0;
  REQUIRE(blocking->translate(source, off, &again).ok());
  CHECK(again.hypotheses.at(0).text == plain.hypotheses.at(0).text);
}

TEST_CASE("block_repeats out of [0, 8] is refused") {
  const auto model = golden::shipped_en_fr();
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  for (const int bad : {-1, 9, 1000}) {
    SearchOptions s;
    s.block_repeats = bad;
    TranslationResult r;
    const Status st = tr->translate("Open file", s, &r);
    CHECK(st.code() == StatusCode::kInvalidArgument);
    CHECK(st.message().find("block_repeats") != std::string::npos);
    TranslatorOptions o;
    o.search.block_repeats = bad;
    std::unique_ptr<Translator> t2;
    CHECK(Translator::prepare(model, o, &t2).code() == StatusCode::kInvalidArgument);
  }
}
