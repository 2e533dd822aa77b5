// Bad inputs: each one exits 1 with one clear line on stderr and leaves no
// output file (and no temporary) behind. Runs the real binary.
#include <cmath>
#include <limits>

#include <doctest/doctest.h>

#include "test_util.h"

using namespace test;

namespace {

// A folder with a valid model; each case breaks one thing.
struct Fixture {
  TempDir dir;
  TinyModel m;
  explicit Fixture(const json& config = small_config("luong", "general", "global", true))
      : m(make_model(dir.path, config)) {}

  // Writes `bytes` as the weights and converts them.
  Run convert_bytes(const std::vector<uint8_t>& bytes, std::vector<std::string> extra = {}) {
    write_file(dir.file("bad.safetensors"), bytes);
    std::vector<std::string> args = {dir.file("bad.safetensors"), "--src-spm", dir.file("src.spm.model"),
                                     "--tgt-spm", dir.file("tgt.spm.model"), "-o", dir.file("out.softalign")};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_convert(args);
  }
  Run convert_tensors(const json& config, const TensorMap& tensors) {
    return convert_bytes(safetensors_bytes(config, tensors));
  }
};

// Exit status 1, exactly one line on stderr containing `what`, no output.
void expect_error(const Run& r, const std::string& what, const TempDir& dir) {
  CHECK(r.status == 1);
  const auto err = lines(r.err);
  REQUIRE_MESSAGE(err.size() == 1, r.err);
  CHECK_MESSAGE(err[0].rfind("softalign-convert: error: ", 0) == 0, err[0]);
  CHECK_MESSAGE(err[0].find(what) != std::string::npos, err[0]);
  CHECK(r.out.empty());
  for (const std::string& name : list_dir(dir.path)) {
    CHECK_MESSAGE(name.find("out.softalign") == std::string::npos, name);
    CHECK_MESSAGE(name.find(".tmp") == std::string::npos, name);
  }
}

}  // namespace

TEST_CASE("error: missing tensor") {
  Fixture f;
  TensorMap t = f.m.tensors;
  t.erase("attention.W_a.weight");
  expect_error(f.convert_tensors(f.m.config, t), "missing tensor \"attention.W_a.weight\" (expected shape [7, 10])",
               f.dir);
}

TEST_CASE("error: extra tensor") {
  Fixture f;
  TensorMap t = f.m.tensors;
  t["attention.v_a.weight"] = f32_tensor({1, 4}, {1, 2, 3, 4});
  expect_error(f.convert_tensors(f.m.config, t),
               "unexpected tensor \"attention.v_a.weight\" (not used by a luong general global model)", f.dir);
}

TEST_CASE("error: wrong shape names the tensor, expected and got") {
  Fixture f;
  TensorMap t = f.m.tensors;
  t["decoder.W_c.weight"] = f32_tensor({7, 16}, std::vector<float>(7 * 16, 0.5f));
  expect_error(f.convert_tensors(f.m.config, t), "tensor \"decoder.W_c.weight\" has shape [7, 16], expected [7, 17]",
               f.dir);
}

TEST_CASE("error: several problems are counted on the one line") {
  Fixture f;
  TensorMap t = f.m.tensors;
  t.erase("generator.bias");
  t.erase("generator.weight");
  expect_error(f.convert_tensors(f.m.config, t), "(and 1 more tensor problems)", f.dir);
}

TEST_CASE("error: wrong dtype") {
  Fixture f;
  TensorMap t = f.m.tensors;
  t["generator.bias"].dtype = "I32";
  expect_error(f.convert_tensors(f.m.config, t), "tensor \"generator.bias\" has dtype I32; only F32 and F16 are accepted",
               f.dir);
  t["generator.bias"].dtype = "BF16";
  t["generator.bias"].bytes.resize(t["generator.bias"].bytes.size() / 2);
  expect_error(f.convert_tensors(f.m.config, t), "has dtype BF16", f.dir);
}

TEST_CASE("error: NaN and Inf weights") {
  Fixture f;
  TensorMap t = f.m.tensors;
  auto v = t["decoder.rnn.weight_hh_l0"].values();
  v[5] = std::numeric_limits<float>::quiet_NaN();
  t["decoder.rnn.weight_hh_l0"] = f32_tensor(t["decoder.rnn.weight_hh_l0"].shape, v);
  expect_error(f.convert_tensors(f.m.config, t),
               "tensor \"decoder.rnn.weight_hh_l0\" has a non-finite value (NaN) at element 5", f.dir);
  v[5] = 0;
  v[7] = -std::numeric_limits<float>::infinity();
  t["decoder.rnn.weight_hh_l0"] = f32_tensor(t["decoder.rnn.weight_hh_l0"].shape, v);
  expect_error(f.convert_tensors(f.m.config, t), "non-finite value (Inf) at element 7", f.dir);
}

TEST_CASE("error: dot score with d != 2n") {
  Fixture f(small_config("luong", "dot", "global", true));
  json c = f.m.config;
  c["dec_hidden"] = 9;
  expect_error(f.convert_tensors(c, f.m.tensors),
               "score dot needs dec_hidden == enc_directions * enc_hidden (got dec_hidden 9, enc_hidden 5, "
               "enc_directions 2)", f.dir);
}

TEST_CASE("error: unknown variant") {
  Fixture f;
  json c = f.m.config;
  c["variant"] = "transformer";
  expect_error(f.convert_tensors(c, f.m.tensors), "unknown variant \"transformer\" (expected encdec, bahdanau or luong)",
               f.dir);
}

TEST_CASE("error: other config problems name the key") {
  Fixture f;
  json c = f.m.config;
  c.erase("max_src_len");
  expect_error(f.convert_tensors(c, f.m.tensors), "key \"max_src_len\" is missing", f.dir);
  c = f.m.config;
  c["enc_layers"] = "two";
  expect_error(f.convert_tensors(c, f.m.tensors), "\"enc_layers\" must be an integer, got \"two\"", f.dir);
  c = f.m.config;
  c["format_version"] = 3;
  expect_error(f.convert_tensors(c, f.m.tensors), "format_version 3 is newer than this converter reads", f.dir);
  c = f.m.config;
  c["cell"] = "lstm";  // a version-2 key in a version-1 config
  expect_error(f.convert_tensors(c, f.m.tensors), "\"cell\" needs format_version 2", f.dir);
  c["format_version"] = 2;
  c["cell"] = "rnn";
  expect_error(f.convert_tensors(c, f.m.tensors), "unknown cell \"rnn\" (expected gru or lstm)", f.dir);
  c["cell"] = "gru";
  c["reverse_source"] = true;
  expect_error(f.convert_tensors(c, f.m.tensors), "reverse_source needs a one-way encoder (enc_directions 1)", f.dir);
  c.erase("reverse_source");
  c["decoder_init"] = "final";
  expect_error(f.convert_tensors(c, f.m.tensors), "decoder_init final needs enc_layers == dec_layers", f.dir);
  c.erase("decoder_init");
  c["decoding"]["beam_rules"] = "opennmt";
  c["decoding"]["nbest"] = 2;
  expect_error(f.convert_tensors(c, f.m.tensors), "decoding.beam_rules opennmt has no n-best", f.dir);
  c = f.m.config;
  c["scope"] = "local-x";
  expect_error(f.convert_tensors(c, f.m.tensors), "unknown luong scope \"local-x\"", f.dir);
  c = f.m.config;
  c["score"] = "none";
  expect_error(f.convert_tensors(c, f.m.tensors),
               "luong needs a score other than none (none, dot, general, concat or location)", f.dir);
}

TEST_CASE("error: bad JSON in the config") {
  Fixture f;
  auto bytes = safetensors_bytes(json(), f.m.tensors, json{{"__metadata__", {{"config", "{\"variant\": "}}}});
  expect_error(f.convert_bytes(bytes), "bad JSON in the config metadata", f.dir);
}

TEST_CASE("error: no config in the metadata") {
  Fixture f;
  expect_error(f.convert_bytes(safetensors_bytes(json(), f.m.tensors)), "no \"config\" in the safetensors metadata",
               f.dir);
}

TEST_CASE("error: bad JSON in the safetensors header") {
  Fixture f;
  auto bytes = safetensors_bytes(f.m.config, f.m.tensors);
  bytes[8] = '[';  // the header's opening brace
  bytes[9] = '}';
  expect_error(f.convert_bytes(bytes), "bad JSON in the safetensors header", f.dir);
}

TEST_CASE("error: truncated file") {
  Fixture f;
  auto bytes = safetensors_bytes(f.m.config, f.m.tensors);
  bytes.resize(bytes.size() - 3);
  expect_error(f.convert_bytes(bytes), "is truncated: tensor \"tgt_emb.weight\" ends at data byte", f.dir);
  bytes.resize(5);
  expect_error(f.convert_bytes(bytes), "is truncated: 5 bytes, less than the 8-byte header length", f.dir);
  expect_error(f.convert_bytes({}), "is truncated: 0 bytes", f.dir);
}

TEST_CASE("error: header length beyond the file") {
  Fixture f;
  auto bytes = safetensors_bytes(f.m.config, f.m.tensors);
  bytes[6] = 0x01;  // header length + 2^48
  expect_error(f.convert_bytes(bytes), "goes beyond the end of the file", f.dir);
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'};
  expect_error(f.convert_bytes(text), "goes beyond the end of the file", f.dir);
}

TEST_CASE("error: data offsets that disagree with the shape") {
  Fixture f;
  auto bytes = safetensors_bytes(f.m.config, f.m.tensors,
                                 json{{"generator.bias", {{"dtype", "F32"}, {"shape", {26}}, {"data_offsets", {0, 100}}}}});
  expect_error(f.convert_bytes(bytes), "tensor \"generator.bias\": 100 data bytes for shape [26] F32 (needs 104)", f.dir);
}

TEST_CASE("error: unreadable input and unwritable output path") {
  Fixture f;
  Run r = run_convert({f.dir.file("nope.safetensors"), "-o", f.dir.file("out.softalign")});
  expect_error(r, "cannot open " + f.dir.file("nope.safetensors"), f.dir);
  r = run_convert({f.m.weights, "-o", f.dir.file("no/such/dir/out.softalign")});
  expect_error(r, "cannot write " + f.dir.file("no/such/dir/out.softalign") + ": No such file or directory", f.dir);
  r = run_convert({f.m.weights, "-o", f.dir.path});  // a directory
  expect_error(r, "cannot write " + f.dir.path, f.dir);
}

TEST_CASE("error: fp16 overflow says which tensor and how to keep it") {
  Fixture f;
  TensorMap t = f.m.tensors;
  auto v = t["generator.weight"].values();
  v[20] = 1e6f;
  t["generator.weight"] = f32_tensor(t["generator.weight"].shape, v);
  write_file(f.dir.file("bad.safetensors"), safetensors_bytes(f.m.config, t));
  const std::vector<std::string> base = {f.dir.file("bad.safetensors"), "--src-spm", f.dir.file("src.spm.model"),
                                         "--tgt-spm", f.dir.file("tgt.spm.model"), "-o", f.dir.file("out.softalign")};
  std::vector<std::string> args = base;
  args.insert(args.begin(), "--fp16");
  expect_error(run_convert(args),
               "tensor \"generator.weight\" has a value beyond the fp16 range at element 20; keep it with --keep-fp32",
               f.dir);
  args.push_back("--keep-fp32");
  args.push_back("generator.weight");
  CHECK(run_convert(args).status == 0);
}

TEST_CASE("error: a file that is not a SentencePiece model") {
  Fixture f;
  write_file(f.dir.file("src.spm.model"), std::string("not a model"));
  expect_error(f.convert_bytes(read_file(f.m.weights)), "is not a SentencePiece model", f.dir);
}

TEST_CASE("error: --inspect on a file that is not a model") {
  Fixture f;
  const Run r = run_convert({"--inspect", f.m.weights});
  expect_error(r, "not a softalign model file (wrong file identifier)", f.dir);
}

TEST_CASE("error: conflicting or missing arguments") {
  Fixture f;
  Run r = run_convert({"--int8", "--fp16", f.m.weights, "-o", f.dir.file("out.softalign")});
  CHECK(r.status == 2);  // usage error
  REQUIRE(lines(r.err).size() == 1);
  CHECK(r.err.rfind("softalign-convert: error: ", 0) == 0);
  CHECK(r.err.find("excludes") != std::string::npos);
  CHECK(!exists(f.dir.file("out.softalign")));
  r = run_convert({"--bogus", f.m.weights});
  CHECK(r.status == 2);
  CHECK(lines(r.err).size() == 1);
  r = run_convert({"--help"});
  CHECK(r.status == 0);
  CHECK(r.out.find("--inspect") != std::string::npos);
  r = run_convert({f.m.weights});
  CHECK(r.status == 1);
  CHECK(r.err == "softalign-convert: error: no output file: give -o OUTPUT.softalign\n");
}

// ---- Hostile inputs (issue: the converter crashed, ran away or wrote files
// the runtime refuses). Each case failed before its fix.

namespace {

// A safetensors file whose header is exactly `header` (no data section).
std::vector<uint8_t> raw_safetensors(const std::string& header) {
  std::vector<uint8_t> b(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(n >> (8 * i));
  b.insert(b.end(), header.begin(), header.end());
  return b;
}

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("hostile: deeply nested JSON in the header is refused, not a stack overflow") {
  Fixture f;
  // A shape nested 10^5 deep (it used to overflow the stack in dump()).
  const std::string shape = "{\"t\": {\"dtype\": \"F32\", \"shape\": " + nested(100000) + ", \"data_offsets\": [0, 0]}}";
  expect_error(f.convert_bytes(raw_safetensors(shape)), "nested more than 32 levels deep", f.dir);
  // A config value, and an unused extra config key, nested as deep.
  std::string config = f.m.config.dump();
  config.pop_back();
  for (const std::string& extra : {",\"corpus\": " + nested(50000) + "}", ",\"unused\": " + nested(50000) + "}"}) {
    auto bytes = safetensors_bytes(json(), f.m.tensors, json{{"__metadata__", {{"config", config + extra}}}});
    expect_error(f.convert_bytes(bytes), "the config metadata is nested more than 32 levels deep", f.dir);
  }
  // Nesting within the limit is fine (an extra key is kept as metadata text).
  auto ok = safetensors_bytes(json(), f.m.tensors, json{{"__metadata__", {{"config", config + ",\"x\": " + nested(20) + "}"}}}});
  CHECK(f.convert_bytes(ok).status == 0);
}

TEST_CASE("hostile: sizes beyond the runtime's limits are refused at once") {
  Fixture f;
  json c = f.m.config;
  c["enc_layers"] = 1000000;  // used to run for minutes and gigabytes
  expect_error(f.convert_tensors(c, f.m.tensors), "enc_layers must be in [1, 16], got 1000000", f.dir);
  c = f.m.config;
  c["max_src_len"] = 65536;  // used to write a file the runtime could not prepare
  expect_error(f.convert_tensors(c, f.m.tensors), "max_src_len must be in [1, 1024], got 65536", f.dir);
  c = f.m.config;
  c["tgt_vocab"] = 1 << 21;
  expect_error(f.convert_tensors(c, f.m.tensors), "tgt_vocab must be in [4, 1048576]", f.dir);
}

TEST_CASE("hostile: a file the runtime could not prepare is not written") {
  Fixture f;
  // Within every config limit, but the default search (beam 1024, max_len_a
  // 100) needs far more working memory than the runtime's default cap.
  json c = f.m.config;
  c["decoding"]["beam"] = 1024;
  c["decoding"]["max_len_a"] = 100.0;
  c["decoding"]["max_len_b"] = 10000.0;
  expect_error(f.convert_tensors(c, f.m.tensors), "the runtime would refuse this model: resource_exhausted", f.dir);
}

TEST_CASE("hostile: a tensor name with control characters gives one error line") {
  Fixture f;
  TensorMap t = f.m.tensors;
  t["evil\nname\x1b[2J"] = f32_tensor({2}, {1, 2});
  expect_error(f.convert_tensors(f.m.config, t), "unexpected tensor \"evil\\nname\\x1b[2J\"", f.dir);
}
