// softalign — a confidence per translation.
//
// Every hypothesis of a text call carries features of what the model computed
// anyway (its pieces' log-probabilities, its attention, the spans copied or
// repaired) and a confidence in [0, 1] made from them:
//   - with a calibrated model file (softalign-convert --confidence FIT.json;
//     the shipped files are), sigmoid(bias + sum of weight * feature), the
//     logistic map fitted on dev against sentence-level chrF: an estimate of
//     the translation's chrF / 100 (models/fit_confidence.py fits it and
//     states its correlation on the test sets in the model card);
//   - without, exp(mean_log_prob): the geometric mean of the pieces'
//     probabilities (Model::confidence_calibrated() says which).
// It ranks translations (which to show, flag or send to a person); it is not
// a probability that the translation is right.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace softalign {

// The features, in the order of ConfidenceFeatures::values. The names (below)
// are the model file's keys: a calibration names the features it weighs.
enum class ConfidenceFeature : int {
  kMeanLogProb = 0,   // log_prob / pieces (EOS included): the mean piece log-probability
  kMinLogProb,        // the least likely piece's log-probability (EOS included), at least -20
  kLowProbShare,      // share of the pieces (EOS included) with probability below 0.5
  kAttentionEntropy,  // mean over target pieces of the attention row's entropy / log(source length)
  kUncoveredSource,   // share of the source pieces (EOS excluded) whose summed attention is below 0.5
  kLengthRatio,       // log(target pieces with EOS / source pieces with EOS)
  kSourceLength,      // log(source pieces with EOS)
  kCopiedShare,       // share of the source's bytes in protected spans (copied through)
  kRepaired,          // 1 when the model's text had to be repaired (placeholders), else 0
  kRepeatedWord,      // 1 when the text repeats a word back to back, else 0
  kTruncated,         // 1 when the hypothesis was cut at the maximum length (no EOS), else 0
  kSourcePiecesPerWord,  // log(source pieces, EOS excluded / source words): rare words split into many pieces
  kTargetPiecesPerWord,  // log(target pieces / target words), each at least 1: garbled words do too
  kByteLengthRatio,      // log((target bytes + 1) / (source bytes + 1))
  kCount
};

inline constexpr std::size_t kConfidenceFeatureCount = static_cast<std::size_t>(ConfidenceFeature::kCount);

// The features' names, in enum order: the keys of a calibration.
inline constexpr std::array<const char*, kConfidenceFeatureCount> kConfidenceFeatureNames = {
    "mean_log_prob", "min_log_prob",  "low_prob_share", "attention_entropy", "uncovered_source", "length_ratio",
    "source_length", "copied_share", "repaired",       "repeated_word",     "truncated",
    "source_pieces_per_word", "target_pieces_per_word", "byte_length_ratio"};

// The index of the feature called `name` (kConfidenceFeatureNames), or -1.
inline int confidence_feature_index(std::string_view name) {
  for (std::size_t i = 0; i < kConfidenceFeatureCount; ++i)
    if (name == kConfidenceFeatureNames[i]) return static_cast<int>(i);
  return -1;
}

struct ConfidenceFeatures {
  std::array<float, kConfidenceFeatureCount> values{};
  float& operator[](ConfidenceFeature f) { return values[static_cast<std::size_t>(f)]; }
  float operator[](ConfidenceFeature f) const { return values[static_cast<std::size_t>(f)]; }
};

}  // namespace softalign
