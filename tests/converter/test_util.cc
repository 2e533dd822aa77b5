#include "test_util.h"

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <sentencepiece_trainer.h>

#include "config.h"
#include "expected_tensors.h"

namespace test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "softalign-convert-test-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  path = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::vector<float> RawTensor::values() const {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

RawTensor f32_tensor(std::vector<uint64_t> shape, const std::vector<float>& values) {
  RawTensor t;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * 4);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<uint8_t> safetensors_bytes(const json& config, const TensorMap& tensors, const json& header_extra) {
  json header = json::object();
  if (!config.is_null()) header["__metadata__"] = {{"config", config.dump()}};
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  for (auto it = header_extra.begin(); it != header_extra.end(); ++it) header[it.key()] = *it;
  const std::string text = header.dump();
  std::vector<uint8_t> out;
  out.reserve(8 + text.size() + offset);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(uint64_t(text.size()) >> (8 * i)));
  for (char ch : text) out.push_back(static_cast<uint8_t>(ch));
  for (const auto& [name, t] : tensors) out.insert(out.end(), t.bytes.begin(), t.bytes.end());
  return out;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

void write_file(const std::string& path, const std::string& text) {
  write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

bool exists(const std::string& path) { return fs::exists(path); }

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

json small_config(const std::string& variant, const std::string& score, const std::string& scope,
                  bool input_feeding, int enc_layers, int dec_layers, bool shared_vocab) {
  const bool luong = variant == "luong";
  const int n = 5;
  const int d = luong && score == "dot" ? 2 * n : 7;
  const bool uses_a = variant == "bahdanau" || score == "concat" || scope == "local-p";
  return json{{"format", "softalign-weights"},
              {"format_version", 1},
              {"variant", variant},
              {"score", score},
              {"scope", scope},
              {"window_d", scope == "global" ? 0 : 2},
              {"input_feeding", input_feeding},
              {"enc_layers", enc_layers},
              {"dec_layers", dec_layers},
              {"emb_size", 6},
              {"enc_hidden", n},
              {"dec_hidden", d},
              {"att_hidden", uses_a ? 4 : 0},
              {"maxout_size", luong ? 0 : 3},
              {"src_vocab", 24},
              {"tgt_vocab", shared_vocab ? 24 : 26},
              {"shared_vocab", shared_vocab},
              {"pad_id", 0},
              {"unk_id", 1},
              {"bos_id", 2},
              {"eos_id", 3},
              {"max_src_len", 12},
              {"decoding", {{"beam", 4}, {"alpha", 0.6}, {"beta", 0.0}, {"max_len_a", 1.5}, {"max_len_b", 10.0}, {"nbest", 2}}},
              {"src_lang", "en"},
              {"tgt_lang", "fr"},
              {"name", "tiny-" + variant},
              {"corpus", "synthetic"},
              {"metrics", {{"dev_bleu", 12.5}}},
              {"dropout", 0.1}};
}

TensorMap random_tensors(const json& config, uint32_t seed) {
  const auto cfg = softalign::convert::parse_config(config.dump());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  TensorMap out;
  for (const auto& [name, shape] : softalign::convert::expected_tensors(cfg)) {
    uint64_t count = 1;
    for (uint64_t s : shape) count *= s;
    std::vector<float> v(count);
    for (float& x : v) x = uni(rng);
    if (shape.size() == 2)
      for (uint64_t c = 0; c < shape[1]; ++c) v[c] = 0.0f;  // an all-zero row
    out[name] = f32_tensor(shape, v);
  }
  return out;
}

void write_spm(const std::string& path, const std::string& text) {
  const std::string corpus = path + ".txt";
  write_file(corpus, text);
  // Character model over the corpus' distinct characters; identity
  // normalisation keeps the file small (no normaliser table).
  std::set<char> chars(text.begin(), text.end());
  chars.erase('\n');
  const std::string prefix = path.substr(0, path.size() - std::string(".model").size());
  const std::string args = "--input=" + corpus + " --model_prefix=" + prefix +
                           " --model_type=char --vocab_size=" + std::to_string(chars.size() + 4) +
                           " --hard_vocab_limit=false --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3"
                           " --normalization_rule_name=identity --minloglevel=2";
  const auto status = sentencepiece::SentencePieceTrainer::Train(args);
  if (!status.ok()) throw std::runtime_error("SentencePiece training failed: " + status.ToString());
  fs::remove(corpus);
  fs::remove(prefix + ".vocab");
}

TinyModel make_model(const std::string& dir, const json& config, uint32_t seed) {
  TinyModel m;
  m.config = config;
  m.tensors = random_tensors(config, seed);
  m.weights = dir + "/model.safetensors";
  write_file(m.weights, safetensors_bytes(config, m.tensors));
  if (config["shared_vocab"].get<bool>()) {
    write_spm(dir + "/spm.model", "the cat sat on a mat\nle chat\n");
  } else {
    write_spm(dir + "/src.spm.model", "the cat sat on a mat\n");
    write_spm(dir + "/tgt.spm.model", "le chat est sur le tapis\n");
  }
  return m;
}

namespace {
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

Run run_convert(const std::vector<std::string>& args) {
  TempDir tmp;
  std::string cmd = quote(SOFTALIGN_CONVERT_BIN);
  for (const std::string& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(tmp.file("out")) + " 2>" + quote(tmp.file("err"));
  const int rc = std::system(cmd.c_str());
  Run r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  const auto out = read_file(tmp.file("out")), err = read_file(tmp.file("err"));
  r.out.assign(out.begin(), out.end());
  r.err.assign(err.begin(), err.end());
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string source_dir() { return SOFTALIGN_SOURCE_DIR; }

}  // namespace test
