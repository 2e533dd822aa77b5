// A translation's confidence: features and the calibrated map (confidence.hpp).
#include "text/confidence.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>

#include "core/utf8.hpp"

namespace softalign::internal {

namespace {

// Floor of a piece's log-probability in min_log_prob (a piece the shortlist
// or blocking made impossible would be -inf).
constexpr float kLogProbFloor = -20.0f;
// A source piece attended less than this in all is "uncovered".
constexpr double kCovered = 0.5;
// A piece below this probability counts in low_prob_share.
const float kLowLogProb = std::log(0.5f);

bool word_byte(unsigned char c) { return c >= 0x80 || std::isalnum(c); }

}  // namespace

bool repeats_a_word(std::string_view text) {
  std::string_view previous;  // the last word, while only white space has followed it
  std::size_t i = 0;
  while (i < text.size()) {
    if (word_byte(static_cast<unsigned char>(text[i]))) {
      const std::size_t start = i;
      while (i < text.size() && word_byte(static_cast<unsigned char>(text[i]))) ++i;
      const std::string_view word = text.substr(start, i - start);
      if (word.size() >= 2 && equal_ignoring_ascii_case(word, previous)) return true;
      previous = word;
    } else {
      if (!std::isspace(static_cast<unsigned char>(text[i]))) previous = std::string_view();
      ++i;
    }
  }
  return false;
}

std::size_t count_words(std::string_view text) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    words += !space && !in_word ? 1 : 0;
    in_word = !space;
  }
  return words;
}

ConfidenceFeatures confidence_features(const HypothesisView& v, const ConfidenceInputs& in) {
  using F = ConfidenceFeature;
  ConfidenceFeatures f;
  const std::size_t rows = v.attention_rows, s = v.source_length;
  if (rows == 0 || s == 0) return f;
  float min_lp = 0.0f;
  std::size_t low = 0;
  double entropy = 0.0;
  for (std::size_t t = 0; t < rows; ++t) {
    const float lp = v.step_log_probs ? v.step_log_probs[t] : v.log_prob / static_cast<float>(rows);
    min_lp = std::min(min_lp, lp);
    low += lp < kLowLogProb ? 1 : 0;
    if (s > 1 && v.attention != nullptr) {
      const float* row = v.attention + t * s;
      double h = 0.0;
      for (std::size_t j = 0; j < s; ++j)
        if (row[j] > 0.0f) h -= static_cast<double>(row[j]) * std::log(static_cast<double>(row[j]));
      entropy += h / std::log(static_cast<double>(s));
    }
  }
  std::size_t uncovered = 0;
  for (std::size_t j = 0; v.attention != nullptr && j + 1 < s; ++j) {  // the source EOS left out
    double sum = 0.0;
    for (std::size_t t = 0; t < rows; ++t) sum += v.attention[t * s + j];
    uncovered += sum < kCovered ? 1 : 0;
  }
  std::size_t copied_bytes = 0;
  if (in.copied)
    for (const TextRange& r : *in.copied) copied_bytes += r.end - r.begin;
  auto log_ratio = [](std::size_t a, std::size_t b) {
    return static_cast<float>(std::log(static_cast<double>(a) / static_cast<double>(b)));
  };
  f[F::kMeanLogProb] = v.log_prob / static_cast<float>(rows);
  f[F::kMinLogProb] = std::max(min_lp, kLogProbFloor);
  f[F::kLowProbShare] = static_cast<float>(low) / static_cast<float>(rows);
  f[F::kAttentionEntropy] = static_cast<float>(entropy / static_cast<double>(rows));
  f[F::kUncoveredSource] = s > 1 ? static_cast<float>(uncovered) / static_cast<float>(s - 1) : 0.0f;
  f[F::kLengthRatio] = static_cast<float>(std::log(static_cast<double>(v.length + 1) / static_cast<double>(s)));
  f[F::kSourceLength] = static_cast<float>(std::log(static_cast<double>(s)));
  f[F::kCopiedShare] =
      in.source.empty() ? 0.0f : static_cast<float>(copied_bytes) / static_cast<float>(in.source.size());
  f[F::kRepaired] = in.repaired ? 1.0f : 0.0f;
  f[F::kRepeatedWord] = repeats_a_word(in.text) ? 1.0f : 0.0f;
  f[F::kTruncated] = v.length == rows ? 1.0f : 0.0f;
  f[F::kSourcePiecesPerWord] = log_ratio(std::max<std::size_t>(in.source_pieces, 1), std::max<std::size_t>(count_words(in.source), 1));
  f[F::kTargetPiecesPerWord] = log_ratio(std::max<std::size_t>(in.target_pieces, 1), std::max<std::size_t>(count_words(in.text), 1));
  f[F::kByteLengthRatio] = log_ratio(in.text.size() + 1, in.source.size() + 1);
  return f;
}

float confidence_of(const ConfidenceCalibration& cal, const ConfidenceFeatures& f) {
  if (!cal.present) return std::exp(f[ConfidenceFeature::kMeanLogProb]);
  double z = cal.bias;
  for (std::size_t i = 0; i < kConfidenceFeatureCount; ++i) z += static_cast<double>(cal.weights[i]) * f.values[i];
  return static_cast<float>(1.0 / (1.0 + std::exp(-z)));
}

}  // namespace softalign::internal
