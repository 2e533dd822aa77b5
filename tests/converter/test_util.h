// Helpers for the converter tests: temporary folders, small safetensors
// models written from C++ (random weights, fixed seeds), tiny SentencePiece
// models, and running the real softalign-convert binary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace test {

using json = nlohmann::json;

// A fresh folder, removed with everything in it at scope exit.
struct TempDir {
  std::string path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
};

// One safetensors entry as it will be written.
struct RawTensor {
  std::string dtype = "F32";
  std::vector<uint64_t> shape;
  std::vector<uint8_t> bytes;
  std::vector<float> values() const;  // F32 only
};
using TensorMap = std::map<std::string, RawTensor>;

RawTensor f32_tensor(std::vector<uint64_t> shape, const std::vector<float>& values);

// Serialises a safetensors file; `header_extra` entries are merged into the header.
std::vector<uint8_t> safetensors_bytes(const json& config, const TensorMap& tensors,
                                       const json& header_extra = json::object());
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
void write_file(const std::string& path, const std::string& text);
std::vector<uint8_t> read_file(const std::string& path);
bool exists(const std::string& path);
std::vector<std::string> list_dir(const std::string& path);

// A small valid config (WEIGHTS_FORMAT.md keys) for a variant.
json small_config(const std::string& variant, const std::string& score = "none",
                  const std::string& scope = "global", bool input_feeding = false, int enc_layers = 1,
                  int dec_layers = 1, bool shared_vocab = false);

// Every tensor the config needs, with seeded random values in [-1, 1]
// (the first row of every matrix is all zeros, to exercise that case).
TensorMap random_tensors(const json& config, uint32_t seed);

// Trains a tiny character SentencePiece model (ids pad 0, unk 1, bos 2, eos 3).
void write_spm(const std::string& path, const std::string& text);

// A model folder as the trainer leaves it: model.safetensors beside its
// SentencePiece model(s).
struct TinyModel {
  std::string weights;
  json config;
  TensorMap tensors;
};
TinyModel make_model(const std::string& dir, const json& config, uint32_t seed = 1);

// The result of running softalign-convert.
struct Run {
  int status = -1;  // exit status
  std::string out, err;
};
Run run_convert(const std::vector<std::string>& args);

// Lines of a text (no trailing empty line).
std::vector<std::string> lines(const std::string& text);

// The directory the project's sources are in.
std::string source_dir();

}  // namespace test
