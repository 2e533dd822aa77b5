// A translation's confidence (softalign/confidence.hpp): its features, from
// the search's view and the text made of it, and the calibrated map.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/confidence_table.hpp"
#include "softalign/confidence.hpp"
#include "softalign/result.hpp"

namespace softalign::internal {

// What the features are computed from besides the search's view.
struct ConfidenceInputs {
  std::string_view source;              // the text translated
  std::size_t source_pieces = 0;        // its pieces, EOS excluded
  const std::vector<TextRange>* copied = nullptr;  // its protected spans (copied through), if any
  std::string_view text;                // the hypothesis's final text
  std::size_t target_pieces = 0;        // its pieces
  bool repaired = false;                // its placeholders were repaired
};

// The features of hypothesis `v` (its step log-probabilities and attention)
// with `in`.
ConfidenceFeatures confidence_features(const HypothesisView& v, const ConfidenceInputs& in);

// Whitespace-separated words in `text`.
std::size_t count_words(std::string_view text);

// The confidence in [0, 1] (softalign/confidence.hpp says how).
float confidence_of(const ConfidenceCalibration& calibration, const ConfidenceFeatures& features);

// Whether `text` holds a word (two or more letters or digits) twice back to
// back, ignoring ASCII case: "les les", "einfaches einfaches".
bool repeats_a_word(std::string_view text);

}  // namespace softalign::internal
