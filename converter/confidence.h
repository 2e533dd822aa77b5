// A confidence calibration for the model file (softalign.fbs `Confidence`),
// read from the JSON that models/fit_confidence.py writes:
//   {"bias": -1.2, "weights": {"mean_log_prob": 0.8, ...}, "fitted_on": "..."}
#pragma once

#include <string>
#include <vector>

namespace softalign::convert {

struct ConfidenceData {
  std::vector<std::string> features;  // names of softalign/confidence.hpp, each once
  std::vector<float> weights;         // one per feature
  float bias = 0.0f;
  std::string fitted_on;
};

// Reads and checks FIT.json: every feature a name the runtime knows, every
// number finite. Throws Error (one line) naming the file and the problem.
ConfidenceData read_confidence_fit(const std::string& path);

}  // namespace softalign::convert
