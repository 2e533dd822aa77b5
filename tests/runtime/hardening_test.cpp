// Regressions of the crashes found by attacking the runtime with damaged
// model files and hostile options: each case crashed, aborted, or reserved
// gigabytes before its fix, and must now end in a clear Status. The damaged
// files are made here from the golden and shipped files.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>

#include "core/arena.hpp"
#include "damaged_file.hpp"
#include "golden_util.hpp"
#include "core/guard.hpp"
#include "softalign/softalign.h"
#include "softalign_format.h"

using namespace softalign;

namespace {

golden::fs::path shipped_model() { return golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign"; }

using damaged::locate;
using damaged::put_float;
using damaged::read_file;
using damaged::TensorBytes;

Status load(const std::vector<uint8_t>& b, std::shared_ptr<const Model>* m) {
  return Model::load_from_bytes(b.data(), b.size(), m);
}

// Loads, prepares and translates golden sentence 0; the first error.
Status translate_first(const std::vector<uint8_t>& file, const std::string& name) {
  std::shared_ptr<const Model> m;
  Status st = load(file, &m);
  if (!st.ok()) return st;
  std::unique_ptr<Translator> tr;
  st = Translator::prepare(m, {}, &tr);
  if (!st.ok()) return st;
  const auto src = golden::ids(golden::load_json(name)["sentences"][0]["src_ids"]);
  NBestView nb;
  return tr->translate_ids(Span<const int32_t>(src.data(), src.size()), &nb);
}

// Offsets and lengths of the piece strings of a serialized SentencePiece
// ModelProto (field 1: pieces { field 1: piece }).
std::vector<std::pair<std::size_t, std::size_t>> piece_strings(const uint8_t* p, std::size_t n) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  auto varint = [&](std::size_t& i) {
    uint64_t v = 0;
    for (int shift = 0; i < n && shift < 64; shift += 7) {
      const uint8_t byte = p[i++];
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    return v;
  };
  for (std::size_t i = 0; i < n;) {
    const uint64_t tag = varint(i);
    if ((tag & 7) != 2) break;  // ModelProto's pieces come first, all length-delimited
    const std::size_t len = varint(i);
    if (tag >> 3 == 1) {
      std::size_t j = i;
      const uint64_t inner = varint(j);
      if (inner == 0x0a) {
        const std::size_t plen = varint(j);
        out.emplace_back(j, plen);
      }
    }
    i += len;
  }
  return out;
}

}  // namespace

TEST_CASE("a NaN in attention.W_p of a local-p model is an error, not a wild window") {
  const std::string name = "luong_local_p";
  SUBCASE("f32 weight") {
    auto file = read_file(golden::model_path(name, "f32"));
    REQUIRE(translate_first(file, name).ok());
    put_float(file, locate(file, "attention.W_p.weight").data + 4 * 3, std::nanf(""));
    const Status st = translate_first(file, name);
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("non-finite") != std::string::npos);
  }
  SUBCASE("f16 weight") {
    auto file = read_file(golden::model_path(name, "f16"));
    const uint16_t nan16 = 0x7e00;
    std::memcpy(&file[locate(file, "attention.W_p.weight").data + 2], &nan16, 2);
    CHECK(translate_first(file, name).code() == StatusCode::kInvalidModel);
  }
  SUBCASE("int8 scale") {
    auto file = read_file(golden::model_path(name, "int8"));
    const TensorBytes t = locate(file, "attention.W_p.weight");
    REQUIRE(t.scale_count > 0);
    put_float(file, t.scales, std::nanf(""));
    const Status st = translate_first(file, name);
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("attention.W_p.weight has a bad scale at row 0") != std::string::npos);
  }
  SUBCASE("an Inf in v_p") {
    auto file = read_file(golden::model_path(name, "f32"));
    put_float(file, locate(file, "attention.v_p.weight").data, INFINITY);
    CHECK(translate_first(file, name).code() == StatusCode::kInvalidModel);
  }
}

TEST_CASE("a NaN scale in the shipped model's generator.weight is refused at load, not empty output") {
  auto file = read_file(shipped_model());
  const TensorBytes t = locate(file, "generator.weight");
  for (const float bad : {std::nanf(""), INFINITY, -1.0f}) {
    auto damaged = file;
    put_float(damaged, t.scales + 4 * (t.scale_count / 2), bad);
    std::shared_ptr<const Model> m;
    const Status st = load(damaged, &m);
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("generator.weight has a bad scale") != std::string::npos);
  }
}

TEST_CASE("NaN weights where the loader does not look end the search with an error") {
  // An f32 output matrix is not scanned at load (it can be tens of MB): the
  // NaN surfaces in the scores, and the search says so.
  auto file = read_file(golden::model_path("bahdanau", "f32"));
  const TensorBytes t = locate(file, "generator.weight");
  for (std::size_t at = t.data; at < t.data + t.data_size; at += 4) put_float(file, at, std::nanf(""));
  const Status st = translate_first(file, "bahdanau");
  CHECK(st.code() == StatusCode::kInvalidModel);
  CHECK(st.message().find("non-finite scores") != std::string::npos);
}

TEST_CASE("corrupted piece strings in an embedded SentencePiece model: an error, never std::terminate") {
  // SentencePiece's trie builder throws for some piece strings (a NUL byte);
  // that exception used to unwind past the joinable tokenizer thread.
  for (const std::string name : {"bahdanau", "bahdanau_shared"}) {
    const auto good = read_file(golden::model_path(name, "f32"));
    std::string err;
    const fb::Model* m = format::verify_model(good.data(), good.size(), &err);
    REQUIRE(m != nullptr);
    for (const bool source : {true, false}) {
      const flatbuffers::Vector<uint8_t>* spm = source ? m->src_spm() : m->tgt_spm();
      if (spm == nullptr || spm->size() == 0) continue;
      const std::size_t base = static_cast<std::size_t>(spm->data() - good.data());
      const auto pieces = piece_strings(spm->data(), spm->size());
      REQUIRE(pieces.size() > 8);
      int refused = 0;
      for (std::size_t k = 4; k < pieces.size(); k += 3) {
        auto file = good;
        file[base + pieces[k].first] = 0;  // a NUL inside a piece
        std::shared_ptr<const Model> model;
        const Status st = load(file, &model);
        if (!st.ok()) {
          CHECK(st.code() == StatusCode::kInvalidModel);
          CHECK(st.message().find("SentencePiece") != std::string::npos);
          ++refused;
        }
        // The C API gives the same code, through its own boundary.
        softalign_model* cm = nullptr;
        const softalign_status cs = softalign_model_load_bytes(file.data(), file.size(), &cm);
        CHECK(static_cast<int>(cs) == static_cast<int>(st.code()));
        softalign_model_free(cm);
      }
      if (source) CHECK_MESSAGE(refused > 0, name, ": no corrupted source piece was refused");
      MESSAGE(name, source ? " source" : " target", ": ", refused, " of ", (pieces.size() - 2) / 3,
              " corrupted piece strings refused, the rest loaded");
    }
  }
}

TEST_CASE("prepare has a memory cap: a huge search plan is kResourceExhausted, not gigabytes") {
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("bahdanau", "int8").string(), &m).ok());
  std::unique_ptr<Translator> tr;
  TranslatorOptions o;
  o.search.beam_size = 1024;
  o.search.max_len_a = 100.0f;
  o.search.max_len_b = 10000.0f;
  Status st = Translator::prepare(m, o, &tr);
  CHECK(st.code() == StatusCode::kResourceExhausted);
  CHECK(st.message().find("max_arena_bytes (256 MiB)") != std::string::npos);
  CHECK(tr == nullptr);
  // The cap is the caller's: a small one refuses the defaults, and the
  // threads' arenas count together.
  TranslatorOptions small;
  small.max_arena_bytes = 4096;
  CHECK(Translator::prepare(m, small, &tr).code() == StatusCode::kResourceExhausted);
  REQUIRE(Translator::prepare(m, {}, &tr).ok());
  const std::size_t one = tr->arena_bytes();
  TranslatorOptions threads;
  threads.threads = 4;
  threads.max_arena_bytes = 3 * one;
  CHECK(Translator::prepare(m, threads, &tr).code() == StatusCode::kResourceExhausted);
  threads.max_arena_bytes = 4 * one;
  CHECK(Translator::prepare(m, threads, &tr).ok());
  // The C API passes it through.
  softalign_model* cm = nullptr;
  REQUIRE(softalign_model_load(golden::model_path("bahdanau", "int8").string().c_str(), &cm) == SOFTALIGN_OK);
  softalign_translator_options co;
  softalign_translator_options_default(&co);
  co.max_arena_bytes = 4096;
  softalign_translator* ct = nullptr;
  CHECK(softalign_translator_create(cm, &co, &ct) == SOFTALIGN_RESOURCE_EXHAUSTED);
  CHECK(std::string(softalign_last_error()).find("max_arena_bytes") != std::string::npos);
  co.beam = 2000;
  co.max_arena_bytes = 0;
  CHECK(softalign_translator_create(cm, &co, &ct) == SOFTALIGN_INVALID_ARGUMENT);
  softalign_model_free(cm);
}

TEST_CASE("Arena::take checks its bound") {
  internal::Arena measuring;
  CHECK(measuring.take<float>(SIZE_MAX / 2) == nullptr);
  CHECK(measuring.overflowed());
  internal::Arena a;
  REQUIRE(a.reserve(4096));
  CHECK(a.take<float>(100) != nullptr);
  CHECK(!a.overflowed());
  CHECK(a.take<float>(4096) == nullptr);  // past the reserved bytes
  CHECK(a.overflowed());
}

TEST_CASE("guarded turns every exception into a Status") {
  using internal::guarded;
  CHECK(guarded([]() -> Status { throw std::bad_alloc(); }).code() == StatusCode::kResourceExhausted);
  const Status st = guarded([]() -> Status { throw std::runtime_error("boom"); });
  CHECK(st.code() == StatusCode::kInternal);
  CHECK(st.message().find("boom") != std::string::npos);
  CHECK(guarded([]() -> Status { throw 42; }).code() == StatusCode::kInternal);
  CHECK(guarded([] { return Status(StatusCode::kNotFound, "x"); }).code() == StatusCode::kNotFound);
}

TEST_CASE("validate_config: the limits the runtime and the converter share") {
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("luong_local_p", "f32").string(), &m).ok());
  const ModelConfig good = m->config();
  CHECK(validate_config(good).ok());
  auto with = [&](auto change) {
    ModelConfig c = good;
    change(c);
    return validate_config(c);
  };
  CHECK(with([](ModelConfig& c) { c.enc_layers = 17; }).message() == "enc_layers must be in [1, 16], got 17");
  CHECK(with([](ModelConfig& c) { c.max_src_len = 65536; }).message() == "max_src_len must be in [1, 1024], got 65536");
  CHECK(with([](ModelConfig& c) { c.tgt_vocab = (1 << 20) + 1; }).code() == StatusCode::kInvalidModel);
  CHECK(with([](ModelConfig& c) { c.window_d = 0; }).message() == "local-p scope needs window_d >= 1");
  CHECK(with([](ModelConfig& c) { c.decoding.beam = 1025; }).message().find("decoding.beam") != std::string::npos);
  CHECK(with([](ModelConfig& c) { c.eos_id = c.bos_id; }).message() == "special ids must be distinct");
}

TEST_CASE("a model loaded with LoadMode::kCopy survives its file being truncated in place") {
  // With the default kMap the same truncation raises SIGBUS on the next read
  // of the mapped weights (the README's Guarantees: replace files by rename).
  const auto shipped = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  const auto copy = golden::fs::temp_directory_path() / "softalign_load_copy_test.softalign";
  golden::fs::copy_file(shipped, copy, golden::fs::copy_options::overwrite_existing);
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(copy.string(), LoadMode::kCopy, &model).ok());
  golden::fs::resize_file(copy, 100);  // rewritten in place, as an app updating it carelessly would
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  TranslationResult r;
  REQUIRE(tr->translate("This package contains the documentation.", &r).ok());
  CHECK(!r.hypotheses.at(0).text.empty());
  std::shared_ptr<const Model> again;
  CHECK(Model::load(copy.string(), LoadMode::kCopy, &again).code() == StatusCode::kInvalidModel);
  golden::fs::remove(copy);
}

TEST_CASE("a model path holding a NUL byte is refused, not cut at the NUL") {
  // "/dir/file\0junk" opened "/dir/file" before.
  std::shared_ptr<const Model> m;
  const std::string path = shipped_model().string() + std::string(1, '\0') + "junk";
  for (const LoadMode mode : {LoadMode::kMap, LoadMode::kCopy})
    CHECK(Model::load(path, mode, &m).code() == StatusCode::kInvalidArgument);
}
