// End-to-end conversions of small models of every variant, through the real
// softalign-convert binary.
#include <sstream>

#include <doctest/doctest.h>

#include "checks.h"
#include "half.h"

using namespace test;
namespace fb = softalign::fb;

namespace {

// A format-version-2 config: `base` with every version-2 key set from `keys`
// and a toolkit's beam rules (n-best 1, no coverage penalty).
json version2(json base, const json& keys, const char* beam_rules) {
  base["format_version"] = 2;
  base.update(keys);
  base["decoding"]["beam_rules"] = beam_rules;
  base["decoding"]["nbest"] = 1;
  base["decoding"]["beta"] = 0.0;
  return base;
}

// Luong 2015 as built: LSTM, a one-way encoder over the reversed source,
// decoder layers starting from the encoder's.
json luong_2015() {
  json c = small_config("luong", "general", "local-p", true, 2, 2);
  return version2(c,
                  {{"cell", "lstm"}, {"enc_directions", 1}, {"reverse_source", true}, {"source_eos", true},
                   {"decoder_init", "final"}, {"query_bias", false}, {"combine_bias", false},
                   {"combine_tanh", true}, {"enc_hidden", c["dec_hidden"]}},
                  "joeynmt");
}

// OpenNMT-py's GRU brnn + mlp + bridge, as imported.
json onmt_bridge() {
  json c = small_config("luong", "concat", "global", true, 2, 2);
  return version2(c,
                  {{"cell", "gru"}, {"enc_directions", 2}, {"reverse_source", false}, {"source_eos", false},
                   {"decoder_init", "relu-final"}, {"query_bias", true}, {"combine_bias", true},
                   {"combine_tanh", false}, {"dec_hidden", 2 * c["enc_hidden"].get<int>()}},
                  "opennmt");
}

struct Variant {
  const char* label;
  json config;
};

std::vector<Variant> variants() {
  return {
      {"encdec", small_config("encdec")},
      {"bahdanau", small_config("bahdanau")},
      {"bahdanau-shared", small_config("bahdanau", "none", "global", false, 1, 1, true)},
      {"bahdanau-2x2", small_config("bahdanau", "none", "global", false, 2, 2)},
      {"luong-dot", small_config("luong", "dot", "global", true)},
      {"luong-general", small_config("luong", "general", "global", true)},
      {"luong-concat", small_config("luong", "concat", "global", true)},
      {"luong-location", small_config("luong", "location", "global", true)},
      {"luong-general-local-m", small_config("luong", "general", "local-m", false)},
      {"luong-general-local-p-if", small_config("luong", "general", "local-p", true)},
      {"luong-concat-local-p", small_config("luong", "concat", "local-p", false)},
      {"luong-general-2x2", small_config("luong", "general", "global", true, 2, 2)},
      {"v2-luong-lstm-reversed", luong_2015()},
      {"v2-onmt-bridge", onmt_bridge()},
  };
}

}  // namespace

TEST_CASE("format version 2: its options convert, --inspect shows them, and the file says version 2 only if it needs it") {
  for (const json& config : {luong_2015(), onmt_bridge()}) {
    TempDir dir;
    const TinyModel m = make_model(dir.path, config);
    const Run r = run_convert({m.weights, "-o", dir.file("m.softalign")});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(verified(read_file(dir.file("m.softalign")))->schema_version() == 2);
    const Run info = run_convert({"--inspect", dir.file("m.softalign")});
    REQUIRE(info.status == 0);
    for (const char* key : {"cell", "enc_directions", "reverse_source", "source_eos", "decoder_init", "query_bias",
                            "combine_bias", "combine_tanh"}) {
      const std::string line = std::string("  ") + key + ": " +
                               (config[key].is_boolean() ? (config[key].get<bool>() ? "true" : "false")
                                : config[key].is_string() ? config[key].get<std::string>()
                                                          : std::to_string(config[key].get<int>()));
      CHECK_MESSAGE(info.out.find(line + "\n") != std::string::npos, line);
    }
    CHECK(info.out.find("  decoding.beam_rules: " + config["decoding"]["beam_rules"].get<std::string>()) !=
          std::string::npos);
  }
  // Version 2 keys with version 1's values: a file version-1 readers load.
  json same = small_config("encdec");
  same["format_version"] = 2;
  same["cell"] = "gru";
  same["decoder_init"] = "tanh-final";
  same["decoding"]["beam_rules"] = "softalign";
  TempDir dir;
  const TinyModel m = make_model(dir.path, same);
  REQUIRE(run_convert({m.weights, "-o", dir.file("m.softalign")}).status == 0);
  const auto bytes = read_file(dir.file("m.softalign"));
  CHECK(verified(bytes)->schema_version() == 1);
  CHECK(run_convert({"--inspect", dir.file("m.softalign")}).out.find("  decoder_init: tanh-final\n") !=
        std::string::npos);
}

TEST_CASE("every variant converts to f32 (bit exact), f16 and int8, deterministically") {
  for (const Variant& v : variants()) {
    CAPTURE(v.label);
    TempDir dir;
    const TinyModel m = make_model(dir.path, v.config);
    convert_and_check_all(m.weights, dir.path, v.label);
    // Nothing else left in the folder: no temporary files.
    for (const std::string& name : list_dir(dir.path))
      CHECK_MESSAGE(name.find(".tmp") == std::string::npos, name);
  }
}

TEST_CASE("tensor data starts 32-byte aligned in the file") {
  TempDir dir;
  const TinyModel m = make_model(dir.path, small_config("luong", "concat", "local-p", true));
  for (const char* flag : {"--int8", "--fp16"}) {
    REQUIRE(run_convert({flag, m.weights, "-o", dir.file("m.softalign")}).status == 0);
    const auto bytes = read_file(dir.file("m.softalign"));
    const fb::Model* model = verified(bytes);
    for (const fb::Tensor* t : *model->tensors())
      CHECK_MESSAGE((t->data()->data() - bytes.data()) % 32 == 0, t->name()->str());
  }
}

TEST_CASE("the SentencePiece models are embedded as they are, once when shared") {
  TempDir dir;
  TinyModel m = make_model(dir.path, small_config("bahdanau"));
  REQUIRE(run_convert({m.weights, "-o", dir.file("m.softalign")}).status == 0);
  auto bytes = read_file(dir.file("m.softalign"));
  const fb::Model* model = verified(bytes);
  const auto src = read_file(dir.file("src.spm.model")), tgt = read_file(dir.file("tgt.spm.model"));
  CHECK(std::vector<uint8_t>(model->src_spm()->begin(), model->src_spm()->end()) == src);
  REQUIRE(model->tgt_spm() != nullptr);
  CHECK(std::vector<uint8_t>(model->tgt_spm()->begin(), model->tgt_spm()->end()) == tgt);

  TempDir shared;
  m = make_model(shared.path, small_config("bahdanau", "none", "global", false, 1, 1, true));
  REQUIRE(run_convert({m.weights, "-o", shared.file("m.softalign")}).status == 0);
  bytes = read_file(shared.file("m.softalign"));
  model = verified(bytes);
  CHECK(std::vector<uint8_t>(model->src_spm()->begin(), model->src_spm()->end()) == read_file(shared.file("spm.model")));
  CHECK(model->tgt_spm() == nullptr);
  CHECK(softalign::format::tgt_spm(*model) == model->src_spm());
}

TEST_CASE("--src-spm and --tgt-spm take SentencePiece models from elsewhere") {
  TempDir dir, other;
  const TinyModel m = make_model(dir.path, small_config("encdec"));
  write_spm(other.file("a.model"), "abc def\n");
  write_spm(other.file("b.model"), "xyz uvw\n");
  std::remove(dir.file("src.spm.model").c_str());
  std::remove(dir.file("tgt.spm.model").c_str());
  const Run missing = run_convert({m.weights, "-o", dir.file("m.softalign")});
  CHECK(missing.status == 1);
  CHECK(missing.err.find("cannot open the source SentencePiece model") != std::string::npos);
  REQUIRE(run_convert({"--src-spm", other.file("a.model"), "--tgt-spm", other.file("b.model"), m.weights, "-o",
                       dir.file("m.softalign")})
              .status == 0);
  const auto bytes = read_file(dir.file("m.softalign"));
  const fb::Model* model = verified(bytes);
  CHECK(std::vector<uint8_t>(model->tgt_spm()->begin(), model->tgt_spm()->end()) == read_file(other.file("b.model")));
}

TEST_CASE("--keep-fp32 exempts matching tensors from quantisation") {
  TempDir dir;
  const TinyModel m = make_model(dir.path, small_config("bahdanau"));
  const Run r = run_convert({"--int8", "--keep-fp32", "*_emb.weight", "--keep-fp32", "generator.weight", m.weights,
                             "-o", dir.file("m.softalign")});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto bytes = read_file(dir.file("m.softalign"));
  const fb::Model* model = verified(bytes);
  for (const auto& [name, t] : m.tensors) {
    const fb::Tensor* ft = softalign::format::find_tensor(*model, name.c_str());
    REQUIRE(ft);
    const bool kept = name == "src_emb.weight" || name == "tgt_emb.weight" || name == "generator.weight" ||
                      t.shape.size() == 1;
    CHECK_MESSAGE((ft->dtype() == fb::DType::F32) == kept, name);
    if (kept) CHECK(std::vector<uint8_t>(ft->data()->begin(), ft->data()->end()) == t.bytes);
  }
  const Run none = run_convert({"--int8", "--keep-fp32", "nothing.*", m.weights, "-o", dir.file("n.softalign")});
  CHECK(none.status == 1);
  CHECK(none.err == "softalign-convert: error: --keep-fp32 pattern \"nothing.*\" matches no tensor\n");
}

TEST_CASE("--meta and the config's extra keys become metadata") {
  TempDir dir;
  const TinyModel m = make_model(dir.path, small_config("encdec"));
  const Run r = run_convert({m.weights, "-o", dir.file("m.softalign"), "--meta", "corpus=ddtp v1", "--meta",
                             "metrics.test_bleu=31.2", "--meta", "license=MIT", "--meta", "name=renamed"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto bytes = read_file(dir.file("m.softalign"));
  const fb::Metadata* md = verified(bytes)->metadata();
  CHECK(md->name()->str() == "renamed");
  CHECK(md->corpus()->str() == "ddtp v1");
  REQUIRE(md->metrics());
  CHECK(md->metrics()->LookupByKey("test_bleu")->value()->str() == "31.2");
  CHECK(md->metrics()->LookupByKey("dev_bleu")->value()->str() == "12.5");
  REQUIRE(md->extra());
  CHECK(md->extra()->LookupByKey("license")->value()->str() == "MIT");
  CHECK(md->extra()->LookupByKey("dropout")->value()->str() == "0.1");
  const Run bad = run_convert({m.weights, "-o", dir.file("n.softalign"), "--meta", "novalue"});
  CHECK(bad.status == 1);
  CHECK(bad.err.find("--meta needs key=value") != std::string::npos);
}

TEST_CASE("--report prints each tensor's max and RMS quantisation error") {
  TempDir dir;
  const TinyModel m = make_model(dir.path, small_config("luong", "general", "global", true));
  const Run r = run_convert({"--int8", "--report", m.weights, "-o", dir.file("m.softalign")});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto out = lines(r.out);
  REQUIRE(out.size() == m.tensors.size() + 1);  // header + one row per tensor
  const auto bytes = read_file(dir.file("m.softalign"));
  const fb::Model* model = verified(bytes);
  size_t i = 1;
  for (const auto& [name, t] : m.tensors) {
    std::istringstream row(out[i++]);
    std::string rname, dtype;
    double max_err = -1, rms = -1;
    row >> rname >> dtype >> max_err >> rms;
    CHECK(rname == name);
    const fb::Tensor* ft = softalign::format::find_tensor(*model, name.c_str());
    CHECK(dtype == softalign::format::dtype_name(ft->dtype()));
    if (ft->dtype() == fb::DType::F32) {
      CHECK(max_err == 0);
    } else {
      float smax = 0;
      for (float s : *ft->scales()) smax = std::max(smax, s);
      CHECK(max_err > 0);
      CHECK(max_err <= smax * 0.51);
      CHECK(rms <= max_err);
    }
  }
}

TEST_CASE("F16 weights are accepted and widen exactly") {
  TempDir dir;
  TinyModel m = make_model(dir.path, small_config("encdec"));
  // Rewrite every tensor as F16 (values rounded to fp16 first).
  for (auto& [name, t] : m.tensors) {
    std::vector<uint8_t> h;
    for (float v : t.values()) {
      const uint16_t b = softalign::convert::float_to_half(v);
      h.push_back(uint8_t(b));
      h.push_back(uint8_t(b >> 8));
    }
    t.dtype = "F16";
    t.bytes = h;
  }
  write_file(m.weights, safetensors_bytes(m.config, m.tensors));
  convert_and_check_all(m.weights, dir.path, "f16in");
}

TEST_CASE("an existing output file is replaced only by a complete conversion") {
  TempDir dir;
  const TinyModel m = make_model(dir.path, small_config("encdec"));
  write_file(dir.file("m.softalign"), std::string("old"));
  TensorMap broken = m.tensors;
  broken.erase("bridge.bias");
  write_file(dir.file("bad.safetensors"), safetensors_bytes(m.config, broken));
  CHECK(run_convert({dir.file("bad.safetensors"), "--src-spm", dir.file("src.spm.model"), "--tgt-spm",
                     dir.file("tgt.spm.model"), "-o", dir.file("m.softalign")})
            .status == 1);
  CHECK(read_file(dir.file("m.softalign")) == std::vector<uint8_t>{'o', 'l', 'd'});
  REQUIRE(run_convert({m.weights, "-o", dir.file("m.softalign")}).status == 0);
  verified(read_file(dir.file("m.softalign")));
}
