#include "confidence.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "bounded_json.h"
#include "error.h"
#include "softalign/confidence.hpp"

namespace softalign::convert {

namespace {

constexpr std::size_t kMaxFitBytes = std::size_t{1} << 20;  // a fit is a few hundred bytes

float finite_number(const nlohmann::json& v, const std::string& what, const std::string& path) {
  if (!v.is_number()) throw Error(path + ": " + what + " is not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::fabs(d) > 1e6) throw Error(path + ": " + what + " is not a finite number of at most 1e6");
  return static_cast<float>(d);
}

}  // namespace

ConfidenceData read_confidence_fit(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read the confidence fit " + path);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (s.size() > kMaxFitBytes) throw Error(path + ": more than 1 MiB, not a confidence fit");
  const nlohmann::json j = parse_bounded_json(s.data(), s.data() + s.size(), path);
  if (!j.is_object() || !j.contains("bias") || !j.contains("weights") || !j["weights"].is_object())
    throw Error(path + ": a confidence fit is {\"bias\": number, \"weights\": {feature: number, ...}}");
  ConfidenceData d;
  d.bias = finite_number(j["bias"], "bias", path);
  for (const auto& [name, weight] : j["weights"].items()) {
    if (softalign::confidence_feature_index(name) < 0) {
      std::string names;
      for (const char* n : kConfidenceFeatureNames) names += std::string(names.empty() ? "" : ", ") + n;
      throw Error(path + ": unknown confidence feature \"" + name + "\" (known: " + names + ")");
    }
    d.features.push_back(name);
    d.weights.push_back(finite_number(weight, "the weight of " + name, path));
  }
  if (d.features.empty()) throw Error(path + ": the fit weighs no feature");
  if (j.contains("fitted_on")) {
    if (!j["fitted_on"].is_string()) throw Error(path + ": fitted_on is not a string");
    d.fitted_on = j["fitted_on"].get<std::string>();
  }
  return d;
}

}  // namespace softalign::convert
