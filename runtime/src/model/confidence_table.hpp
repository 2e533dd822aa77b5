// A model file's confidence calibration (softalign.fbs `Confidence`), read
// at load; text/confidence.hpp computes the features it weighs.
#pragma once

#include <array>
#include <string>

#include "softalign/confidence.hpp"

namespace softalign::fb {
struct Model;
}

namespace softalign::internal {

// The model file's calibration (softalign.fbs `Confidence`), one weight per
// feature this runtime knows (0 for those the file does not name).
struct ConfidenceCalibration {
  bool present = false;
  float bias = 0.0f;
  std::array<float, kConfidenceFeatureCount> weights{};
  std::string fitted_on;
};

// The file's calibration; absent (present = false) when the file has none or
// names a feature this runtime does not know. The table's own rules were
// checked with the file (format::confidence_ok).
ConfidenceCalibration read_confidence(const fb::Model& model);

}  // namespace softalign::internal
