// Shared helpers of the runtime tests: where the golden files are, loading
// golden.json and the converted models.
#pragma once

#include <algorithm>
#include <cmath>
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

// ensembles.json: the reference search of ensembles of golden models (and
// target prefixes), see make_golden.py.
inline nlohmann::json load_ensembles() {
  std::ifstream in(source_dir() / "ensembles.json");
  return nlohmann::json::parse(in);
}

inline fs::path model_path(const std::string& name, const std::string& precision) {
  return models_dir() / (name + "." + precision + ".softalign");
}

inline std::vector<int32_t> ids(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }
// The source ids of every sentence of a golden file.
inline std::vector<std::vector<int32_t>> sources(const nlohmann::json& g) {
  std::vector<std::vector<int32_t>> out;
  for (const auto& s : g["sentences"]) out.push_back(ids(s["src_ids"]));
  return out;
}

// The widest beam of golden.json's "searches" (4 at least).
inline int widest_beam(const nlohmann::json& g) {
  int beam = 4;
  for (const auto& spec : g["searches"]) beam = std::max(beam, spec["beam"].get<int>());
  return beam;
}

// The search options of one entry of golden.json's "searches".
inline softalign::SearchOptions search_options(const nlohmann::json& spec) {
  softalign::SearchOptions so;
  so.beam_size = spec["beam"].get<int>();
  so.nbest = spec["nbest"].get<int>();
  so.alpha = spec["alpha"].get<float>();
  so.beta = spec["beta"].get<float>();
  so.max_len_a = spec["max_len_a"].get<float>();
  so.max_len_b = spec["max_len_b"].get<float>();
  // The rules the reference searched with (the toolkits' variants name
  // theirs); softalign's otherwise, whatever the model's default.
  softalign::BeamRules rules = softalign::BeamRules::kSoftalign;
  if (spec.contains("beam_rules")) softalign::beam_rules_from_name(spec["beam_rules"].get<std::string>(), &rules);
  so.beam_rules = rules;
  return so;
}

// An n-best list copied out of a translator's views (which the next call reuses).
struct Copy {
  std::vector<int32_t> ids;
  float score = 0, log_prob = 0;
  std::vector<float> attention;
  bool operator==(const Copy& o) const {
    return ids == o.ids && score == o.score && log_prob == o.log_prob && attention == o.attention;
  }
};

inline std::vector<Copy> copy(const softalign::NBestView& nb) {
  std::vector<Copy> out;
  for (std::size_t r = 0; r < nb.count; ++r) {
    const softalign::HypothesisView& v = nb.hypotheses[r];
    out.push_back({std::vector<int32_t>(v.ids, v.ids + v.length), v.score, v.log_prob,
                   std::vector<float>(v.attention, v.attention + v.attention_rows * v.source_length)});
  }
  return out;
}

// The golden test's tolerances (golden_test.cpp explains them): for f32 the
// contract's, for f16 and int8 the quantization step times the depth of the
// chain of products that feeds a logit, scaled by the largest logit of the
// model's teacher-forced reference.
inline int chain_depth(const softalign::ModelConfig& c) {
  const bool attn = c.variant != softalign::Variant::kEncDec;
  return 1 /* embedding */ + 2 * c.enc_layers + 1 /* bridge */ + (attn ? 2 : 0) + 2 * c.dec_layers +
         (c.variant == softalign::Variant::kLuong ? 1 : 3) + 1 /* generator */;
}

inline double epsilon(const std::string& precision) {
  if (precision == "f16") return std::ldexp(1.0, -11);
  if (precision == "int8") return 2.0 / 254.0;
  return 0.0;
}

struct Tolerance {
  double logits = 0;  // max abs error of a logit
  double att = 0;     // of an attention weight
  double score = 0;   // of a summed log-probability, per step
};

inline Tolerance tolerance(const nlohmann::json& g, const softalign::ModelConfig& c, const std::string& precision) {
  double max_logit = 1.0;
  for (const auto& sent : g["sentences"])
    for (const auto& row : sent["teacher_forced"]["logits"])
      for (double v : row) max_logit = std::max(max_logit, std::fabs(v));
  const bool exact = precision == "f32";
  Tolerance t;
  t.logits = exact ? 1e-4 : epsilon(precision) * chain_depth(c) * max_logit;
  t.att = exact ? 1e-5 : epsilon(precision) * chain_depth(c);
  t.score = exact ? 1e-4 : 2 * t.logits;  // per step; times the length where used
  return t;
}

}  // namespace golden
