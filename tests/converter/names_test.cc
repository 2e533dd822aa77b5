// The one table of the variant, score and scope names (softalign_names.h):
// every conversion goes through it, both ways, and a value outside it is
// refused rather than guessed.
#include <string>

#include <doctest/doctest.h>

#include "model_writer.h"
#include "softalign/config.hpp"
#include "softalign_format.h"
#include "softalign_names.h"

namespace names = softalign::names;
namespace fb = softalign::fb;

namespace {

// Each row converts to and from its name, its public value and its file value;
// public_name is the public API's name function (softalign/config.hpp).
template <class Table, class PublicName>
void check_rows(const Table& table, PublicName public_name) {
  for (const auto& row : table) {
    CAPTURE(row.name);
    auto value = table[0].value;
    REQUIRE(names::parse(row.name, &value));
    CHECK(value == row.value);
    CHECK(std::string(names::name(row.value)) == row.name);
    CHECK(std::string(names::name(row.file)) == row.name);
    CHECK(std::string(public_name(row.value)) == row.name);
    CHECK(names::to_file(row.value) == row.file);
    auto from = table[0].value;
    REQUIRE(names::from_file(row.file, &from));
    CHECK(from == row.value);
  }
}

}  // namespace

TEST_CASE("names: each row converts both ways, and the public names are the table's") {
  check_rows(names::kVariants, softalign::variant_name);
  check_rows(names::kScores, softalign::score_name);
  check_rows(names::kScopes, softalign::scope_name);
  CHECK(names::choices<softalign::Variant>() == "encdec, bahdanau or luong");
  CHECK(names::choices<softalign::Scope>() == "global, local-m or local-p");
}

TEST_CASE("names: a name or a file value outside the table is refused") {
  softalign::Score s = softalign::Score::kDot;
  CHECK(!names::parse("Dot", &s));
  CHECK(!names::parse("", &s));
  CHECK(s == softalign::Score::kDot);  // unchanged
  const auto outside = static_cast<fb::Score>(std::size(names::kScores));
  CHECK(names::find(outside) == nullptr);
  CHECK(std::string(names::name(outside)) == "?");
  CHECK(!names::from_file(outside, &s));
  CHECK(s == softalign::Score::kDot);
  CHECK(std::string(softalign::score_name(static_cast<softalign::Score>(99))) == "?");
}

TEST_CASE("names: a config value outside the table is written outside the schema, and the verifier refuses it") {
  softalign::convert::ModelConfig c;
  c.score = static_cast<softalign::Score>(99);  // no parse gives this
  CHECK(names::find(names::to_file(c.score)) == nullptr);
  const flatbuffers::DetachedBuffer file = softalign::convert::build_model_file(c, {}, "spm", "spm", {});
  std::string err;
  CHECK(softalign::format::verify_model(file.data(), file.size(), &err) == nullptr);
  CHECK(err == "corrupt softalign model file (unknown variant, score, scope, cell, decoder init or beam rules value)");
  c.score = softalign::Score::kNone;  // the same file with a value of the table passes that check
  const flatbuffers::DetachedBuffer good = softalign::convert::build_model_file(c, {}, "spm", "spm", {});
  CHECK(softalign::format::verify_model(good.data(), good.size(), &err) != nullptr);
}
