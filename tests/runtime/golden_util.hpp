// Shared helpers of the runtime tests: where the golden files are, loading
// golden.json and the converted models.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "softalign/softalign.hpp"

namespace golden {

namespace fs = std::filesystem;

// tests/golden/ in the source tree.
inline fs::path source_dir() { return fs::path(SOFTALIGN_GOLDEN_SRC_DIR); }
// Converted models <name>.{f32,f16,int8}.softalign (the golden_models fixture);
// SOFTALIGN_GOLDEN_MODELS overrides.
inline fs::path models_dir() {
  const char* env = std::getenv("SOFTALIGN_GOLDEN_MODELS");
  return fs::path(env && env[0] ? env : SOFTALIGN_GOLDEN_BIN_DIR);
}

// Every golden model name (a folder with a golden.json), sorted.
inline std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(source_dir()))
    if (entry.is_directory() && fs::exists(entry.path() / "golden.json")) out.push_back(entry.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

inline nlohmann::json load_json(const std::string& name) {
  std::ifstream in(source_dir() / name / "golden.json");
  return nlohmann::json::parse(in);
}

inline fs::path model_path(const std::string& name, const std::string& precision) {
  return models_dir() / (name + "." + precision + ".softalign");
}

inline std::vector<int32_t> ids(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

// The search options of one entry of golden.json's "searches".
inline softalign::SearchOptions search_options(const nlohmann::json& spec) {
  softalign::SearchOptions so;
  so.beam_size = spec["beam"].get<int>();
  so.nbest = spec["nbest"].get<int>();
  so.alpha = spec["alpha"].get<float>();
  so.beta = spec["beta"].get<float>();
  so.max_len_a = spec["max_len_a"].get<float>();
  so.max_len_b = spec["max_len_b"].get<float>();
  return so;
}

}  // namespace golden
