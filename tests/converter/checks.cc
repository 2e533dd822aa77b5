#include "checks.h"

#include <cmath>
#include <cstring>
#include <regex>

#include <doctest/doctest.h>

#include "half.h"
#include "softalign_names.h"
#include "safetensors.h"

namespace test {

namespace fb = softalign::fb;
using softalign::convert::half_to_float;

namespace {

std::vector<float> input_values(const RawTensor& t) {
  std::vector<float> v;
  if (t.dtype == "F32") return t.values();
  for (size_t i = 0; i + 1 < t.bytes.size(); i += 2) v.push_back(half_to_float(uint16_t(t.bytes[i] | t.bytes[i + 1] << 8)));
  return v;
}

std::vector<uint64_t> shape_of(const fb::Tensor& t) { return std::vector<uint64_t>(t.shape()->begin(), t.shape()->end()); }

float f32_at(const fb::Tensor& t, size_t i) {
  float f;
  std::memcpy(&f, t.data()->data() + 4 * i, 4);
  return f;
}

// Same tensor names in file and input; returns the file's tensor for each.
void check_names(const fb::Model& m, const TensorMap& input) {
  REQUIRE(m.tensors()->size() == input.size());
  for (const auto& [name, t] : input) {
    const fb::Tensor* ft = softalign::format::find_tensor(m, name.c_str());
    REQUIRE_MESSAGE(ft != nullptr, name);
    CHECK_MESSAGE(shape_of(*ft) == t.shape, name);
  }
}

void check_exact_f32(const fb::Tensor& ft, const RawTensor& t, const std::string& name) {
  REQUIRE_MESSAGE(ft.dtype() == fb::DType::F32, name);
  CHECK_MESSAGE(ft.scales() == nullptr, name);
  if (t.dtype == "F32") {
    REQUIRE_MESSAGE(ft.data()->size() == t.bytes.size(), name);
    CHECK_MESSAGE(std::memcmp(ft.data()->data(), t.bytes.data(), t.bytes.size()) == 0, name);  // bit for bit
  } else {
    const auto v = input_values(t);
    REQUIRE(ft.data()->size() == 4 * v.size());
    for (size_t i = 0; i < v.size(); ++i) REQUIRE_MESSAGE(f32_at(ft, i) == v[i], name);  // f16 widened exactly
  }
}

}  // namespace

const fb::Model* verified(const std::vector<uint8_t>& bytes) {
  std::string err;
  const fb::Model* m = softalign::format::verify_model(bytes.data(), bytes.size(), &err);
  REQUIRE_MESSAGE(m != nullptr, err);
  return m;
}

TensorMap read_input_tensors(const std::string& path, json* config) {
  const auto st = softalign::convert::read_safetensors(path);
  TensorMap out;
  for (const auto& [name, t] : st.tensors) {
    RawTensor r;
    r.dtype = t.dtype == softalign::convert::SourceDType::F32 ? "F32" : "F16";
    r.shape = t.shape;
    r.bytes.assign(t.data, t.data + t.size_bytes);
    out[name] = r;
  }
  if (config) *config = json::parse(st.metadata.at("config"));
  return out;
}

void check_f32_exact(const fb::Model& m, const TensorMap& input) {
  check_names(m, input);
  for (const auto& [name, t] : input) check_exact_f32(*softalign::format::find_tensor(m, name.c_str()), t, name);
}

void check_f16(const fb::Model& m, const TensorMap& input) {
  check_names(m, input);
  for (const auto& [name, t] : input) {
    const fb::Tensor& ft = *softalign::format::find_tensor(m, name.c_str());
    if (t.shape.size() != 2) {  // biases and vectors stay f32
      check_exact_f32(ft, t, name);
      continue;
    }
    REQUIRE_MESSAGE(ft.dtype() == fb::DType::F16, name);
    const auto v = input_values(t);
    REQUIRE(ft.data()->size() == 2 * v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const float h = half_to_float(uint16_t(ft.data()->Get(2 * i) | ft.data()->Get(2 * i + 1) << 8));
      // Half an fp16 ulp in x's binade (subnormal spacing 2^-24 below 2^-14):
      // the most round-to-nearest may move x.
      const int e = v[i] == 0 ? -14 : std::max(-14, std::ilogb(v[i]));
      const double half_ulp = std::ldexp(1.0, e - 10) / 2;
      if (std::fabs(double(v[i]) - double(h)) > half_ulp)
        FAIL(name << "[" << i << "]: " << v[i] << " -> fp16 " << h << ", error above half an ulp " << half_ulp);
    }
  }
}

void check_int8(const fb::Model& m, const TensorMap& input) {
  check_names(m, input);
  for (const auto& [name, t] : input) {
    const fb::Tensor& ft = *softalign::format::find_tensor(m, name.c_str());
    if (t.shape.size() != 2) {
      check_exact_f32(ft, t, name);
      continue;
    }
    REQUIRE_MESSAGE(ft.dtype() == fb::DType::I8, name);
    const size_t rows = t.shape[0], cols = t.shape[1];
    REQUIRE(ft.scales()->size() == rows);
    REQUIRE(ft.data()->size() == rows * cols);
    const auto v = input_values(t);
    for (size_t r = 0; r < rows; ++r) {
      float amax = 0;
      for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(v[r * cols + c]));
      const float s = ft.scales()->Get(r);
      if (amax == 0) {
        CHECK_MESSAGE(s == 1.0f, name << " row " << r << ": an all-zero row has scale 1");
      } else {
        CHECK_MESSAGE(s == amax / 127.0f, name << " row " << r);
      }
      for (size_t c = 0; c < cols; ++c) {
        const int8_t q = static_cast<int8_t>(ft.data()->Get(r * cols + c));
        REQUIRE(q >= -127);
        // Round to nearest of x / s: error <= s / 2, plus the float rounding of
        // x / s itself (relative 2^-24 of a value <= 127, i.e. < 1e-5 * s).
        const double err = std::fabs(double(v[r * cols + c]) - double(s) * q);
        if (err > double(s) * (0.5 + 1e-5))
          FAIL(name << "[" << r << ", " << c << "]: error " << err << " above scale/2 = " << s / 2);
      }
    }
  }
}

void check_config(const fb::Model& m, const json& j) {
  const fb::Config& c = *m.config();
  CHECK(std::string(softalign::names::name(c.variant())) == j["variant"].get<std::string>());
  CHECK(std::string(softalign::names::name(c.score())) == j["score"].get<std::string>());
  CHECK(std::string(softalign::names::name(c.scope())) == j["scope"].get<std::string>());
  CHECK(c.window_d() == j["window_d"].get<int>());
  CHECK(c.input_feeding() == j["input_feeding"].get<bool>());
  CHECK(c.enc_layers() == j["enc_layers"].get<int>());
  CHECK(c.dec_layers() == j["dec_layers"].get<int>());
  CHECK(c.emb_size() == j["emb_size"].get<int>());
  CHECK(c.enc_hidden() == j["enc_hidden"].get<int>());
  CHECK(c.dec_hidden() == j["dec_hidden"].get<int>());
  CHECK(c.att_hidden() == j["att_hidden"].get<int>());
  CHECK(c.maxout_size() == j["maxout_size"].get<int>());
  CHECK(c.src_vocab() == j["src_vocab"].get<int>());
  CHECK(c.tgt_vocab() == j["tgt_vocab"].get<int>());
  CHECK(c.shared_vocab() == j["shared_vocab"].get<bool>());
  CHECK(c.pad_id() == j["pad_id"].get<int>());
  CHECK(c.unk_id() == j["unk_id"].get<int>());
  CHECK(c.bos_id() == j["bos_id"].get<int>());
  CHECK(c.eos_id() == j["eos_id"].get<int>());
  CHECK(c.max_src_len() == j["max_src_len"].get<int>());
  const json& d = j["decoding"];
  CHECK(c.decoding()->beam() == d["beam"].get<int>());
  CHECK(c.decoding()->alpha() == d["alpha"].get<float>());
  CHECK(c.decoding()->beta() == d["beta"].get<float>());
  CHECK(c.decoding()->max_len_a() == d["max_len_a"].get<float>());
  CHECK(c.decoding()->max_len_b() == d["max_len_b"].get<float>());
  CHECK(c.decoding()->nbest() == d["nbest"].get<int>());
  REQUIRE(m.metadata() != nullptr);
  CHECK(m.metadata()->name()->str() == j["name"].get<std::string>());
  CHECK(m.metadata()->src_lang()->str() == j["src_lang"].get<std::string>());
  CHECK(m.metadata()->tgt_lang()->str() == j["tgt_lang"].get<std::string>());
  CHECK(m.metadata()->converter_version()->str().rfind("softalign-convert ", 0) == 0);
  CHECK((m.tgt_spm() == nullptr) == j["shared_vocab"].get<bool>());
}

void check_inspect(const std::string& path, const fb::Model& m, const json& j) {
  const Run r = run_convert({"--inspect", path});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.empty());
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> rows;  // name -> "shape dtype bytes"
  std::string section;
  const std::regex kv("^  ([A-Za-z_.]+): (.*)$");
  const std::regex row(R"(^  (\S+)\s+(\[[0-9, ]*\])\s+(f32|f16|i8)\s+([0-9]+)$)");
  std::smatch mt;
  for (const std::string& line : lines(r.out)) {
    if (!line.empty() && line[0] != ' ') {
      section = line.substr(0, line.find(':'));
      continue;
    }
    if (section == "config" && std::regex_match(line, mt, kv)) config[mt[1]] = mt[2];
    if (section == "tensors" && std::regex_match(line, mt, row))
      rows[mt[1]] = mt[2].str() + " " + mt[3].str() + " " + mt[4].str();
  }
  // Config: every WEIGHTS_FORMAT.md key reads back as written.
  for (const char* k : {"variant", "score", "scope"}) CHECK(config[k] == j[k].get<std::string>());
  for (const char* k : {"window_d", "enc_layers", "dec_layers", "emb_size", "enc_hidden", "dec_hidden", "att_hidden",
                        "maxout_size", "src_vocab", "tgt_vocab", "pad_id", "unk_id", "bos_id", "eos_id", "max_src_len"})
    CHECK_MESSAGE(config[k] == std::to_string(j[k].get<int>()), k);
  for (const char* k : {"input_feeding", "shared_vocab"}) CHECK(config[k] == (j[k].get<bool>() ? "true" : "false"));
  for (const char* k : {"beam", "nbest"}) CHECK(config[std::string("decoding.") + k] == std::to_string(j["decoding"][k].get<int>()));
  for (const char* k : {"alpha", "beta", "max_len_a", "max_len_b"})
    CHECK_MESSAGE(std::stof(config[std::string("decoding.") + k]) == j["decoding"][k].get<float>(), k);
  // Tensor table: one row per tensor with its shape, dtype and bytes.
  REQUIRE(rows.size() == m.tensors()->size());
  for (const fb::Tensor* t : *m.tensors()) {
    std::string shape = "[";
    for (uint32_t i = 0; i < t->shape()->size(); ++i) shape += (i ? ", " : "") + std::to_string(t->shape()->Get(i));
    const size_t bytes = t->data()->size() + (t->scales() ? 4 * t->scales()->size() : 0);
    CHECK(rows[t->name()->str()] ==
          shape + "] " + softalign::format::dtype_name(t->dtype()) + " " + std::to_string(bytes));
  }
}

void convert_and_check_all(const std::string& weights, const std::string& outdir, const std::string& stem) {
  json config;
  const TensorMap input = read_input_tensors(weights, &config);
  const std::vector<std::pair<std::string, std::string>> modes = {{"f32", ""}, {"f16", "--fp16"}, {"int8", "--int8"}};
  for (const auto& [suffix, flag] : modes) {
    CAPTURE(stem);
    CAPTURE(suffix);
    const std::string out = outdir + "/" + stem + "." + suffix + ".softalign";
    std::vector<std::string> args = {weights, "-o", out};
    if (!flag.empty()) args.insert(args.begin(), flag);
    const Run r = run_convert(args);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const auto bytes = read_file(out);
    const fb::Model* m = verified(bytes);
    check_config(*m, config);
    if (suffix == "f32") check_f32_exact(*m, input);
    if (suffix == "f16") check_f16(*m, input);
    if (suffix == "int8") check_int8(*m, input);
    check_inspect(out, *m, config);
    // Deterministic: a second conversion gives the same bytes.
    const std::string again = outdir + "/" + stem + "." + suffix + ".again.softalign";
    args[args.size() - 1] = again;
    REQUIRE(run_convert(args).status == 0);
    CHECK(read_file(again) == bytes);
  }
}

}  // namespace test
