// The model's target SentencePiece processor is built as a character model
// (no piece trie: model.cpp, load_decoder_spm). Its decoding must be
// SentencePiece's own, piece for piece and sentence for sentence; and a
// target model that a character model cannot load (a self-test sample) still
// loads, the usual way.
#include <doctest/doctest.h>
#include <sentencepiece_processor.h>
#include <stdlib.h>

#include <random>
#include <sstream>

#include "convert.h"
#include "golden_util.hpp"

using namespace softalign;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every id alone, then random id sequences: decode_target's text and pieces
// against a processor loaded from the .model file as SentencePiece does.
void check_decoding(const Model& model, const sentencepiece::SentencePieceProcessor& ref) {
  const int size = ref.GetPieceSize();
  REQUIRE(size > 4);
  auto check = [&](const std::vector<int32_t>& ids) {
    std::string text;
    std::vector<std::string> pieces;
    REQUIRE(model.decode_target(ids.data(), ids.size(), &text, &pieces).ok());
    std::string want;
    REQUIRE(ref.Decode(std::vector<int>(ids.begin(), ids.end()), &want).ok());
    CHECK(text == want);
    for (std::size_t i = 0; i < ids.size() && i < pieces.size(); ++i) CHECK(pieces[i] == ref.IdToPiece(ids[i]));
  };
  for (int32_t id = 0; id < size; ++id) check({id});
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> any_id(0, size - 1);
  std::uniform_int_distribution<int> length(2, 16);
  for (int n = 0; n < 300; ++n) {
    std::vector<int32_t> ids(length(rng));
    for (int32_t& id : ids) id = any_id(rng);
    check(ids);
  }
}

// Protobuf wire format, for the self-test sample below.
std::string varint(std::size_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out += static_cast<char>(0x80 | (v & 0x7f));
  return out + static_cast<char>(v);
}
std::string field(int number, const std::string& bytes) {  // a length-delimited field
  return static_cast<char>(number << 3 | 2) + varint(bytes.size()) + bytes;
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/softalign-spm-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("the target processor decodes as SentencePiece does") {
  int checked = 0;
  for (const std::string& name : golden::names()) {
    const fs::path spm = golden::source_dir() / name / "tgt.spm.model";
    if (!fs::exists(spm)) continue;  // shared vocabulary: the source processor decodes
    CAPTURE(name);
    std::shared_ptr<const Model> m;
    const Status st = Model::load(golden::model_path(name, "f32").string(), &m);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    sentencepiece::SentencePieceProcessor ref;
    REQUIRE(ref.Load(spm.string()).ok());
    check_decoding(*m, ref);
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("a target model with a self-test sample loads the usual way") {
  const fs::path dir = golden::source_dir() / "bahdanau";
  sentencepiece::SentencePieceProcessor ref;
  REQUIRE(ref.Load((dir / "tgt.spm.model").string()).ok());
  // A sample the unigram model passes (its own segmentation of a sentence)
  // and a character model fails: ModelProto.self_test_data (4) { samples (1)
  // { input (1), expected (2) } }.
  const std::string input = golden::load_json("bahdanau")["sentences"][0]["tgt_text"].get<std::string>();
  std::vector<std::string> pieces;
  REQUIRE(ref.Encode(input, &pieces).ok());
  std::string expected;
  for (const std::string& p : pieces) expected += (expected.empty() ? "" : " ") + p;
  const std::string proto = read_text(dir / "tgt.spm.model") + field(4, field(1, field(1, input) + field(2, expected)));

  sentencepiece::SentencePieceProcessor with_test, as_chars;
  REQUIRE(with_test.LoadFromSerializedProto(proto).ok());
  // What load_decoder_spm tries first fails on it.
  CHECK_FALSE(as_chars.LoadFromSerializedProto(proto + std::string("\x12\x02\x18\x04", 4)).ok());

  TempDir tmp;
  std::ofstream(tmp.path / "tgt.spm.model", std::ios::binary) << proto;
  convert::Options o;
  o.input = (dir / "model.safetensors").string();
  o.src_spm = (dir / "src.spm.model").string();
  o.tgt_spm = (tmp.path / "tgt.spm.model").string();
  o.output = (tmp.path / "m.softalign").string();
  std::ostringstream report;
  convert::convert(o, report);
  std::shared_ptr<const Model> m;
  const Status st = Model::load(o.output, &m);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  check_decoding(*m, with_test);
}
