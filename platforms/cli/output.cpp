#include "output.hpp"

#include <algorithm>
#include <cstdio>
#include <string>


namespace softalign::cli {
namespace {

std::string format_score(float score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(score));
  return buf;
}

const std::vector<AlignmentLink>& links(const OutputFormat& format, const Hypothesis& h) {
  return format.word_alignment ? h.alignment_words : h.alignment_pieces;
}

bool low_confidence(const OutputFormat& format, const Hypothesis& h) {
  return format.min_confidence >= 0.0f && h.confidence < format.min_confidence;
}

// The text as written in plain and n-best modes: marked when below --min-confidence.
std::string shown_text(const OutputFormat& format, const Hypothesis& h) {
  return low_confidence(format, h) ? kLowConfidenceMark + h.text : h.text;
}

// The library's one JSON writer, with the input's index and --min-confidence.
ResultJsonOptions json_options(const OutputFormat& format, std::size_t index) {
  ResultJsonOptions o;
  o.index = static_cast<long long>(index);
  o.min_confidence = format.min_confidence;
  o.drop_low_confidence = format.drop_low_confidence;
  return o;
}

// n-best lines for hypotheses that do not exist, so every input has N lines.
void write_missing(std::ostream& os, const OutputFormat& format, std::size_t index, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) os << index << " |||  ||| -inf" << (format.alignment ? " ||| " : "") << '\n';
}

}  // namespace

void write_result(std::ostream& os, const OutputFormat& format, std::size_t index,
                  const TranslationResult& result) {
  static const Hypothesis kEmpty;
  if (format.json) {
    os << result_json(result, json_options(format, index)) << '\n';
    return;
  }
  if (format.nbest == 0) {
    const Hypothesis& h = result.hypotheses.empty() ? kEmpty : result.hypotheses.front();
    if (format.drop_low_confidence && low_confidence(format, h)) {
      os << '\n';  // as for a line that failed
      return;
    }
    os << shown_text(format, h);
    if (format.alignment) os << " ||| " << to_pharaoh(links(format, h));
    os << '\n';
    return;
  }
  const std::size_t n = static_cast<std::size_t>(format.nbest);
  std::size_t written = 0;
  for (std::size_t i = 0; i < std::min(n, result.hypotheses.size()); ++i) {
    const Hypothesis& h = result.hypotheses[i];
    if (format.drop_low_confidence && low_confidence(format, h)) continue;
    os << index << " ||| " << shown_text(format, h) << " ||| " << format_score(h.score);
    if (format.alignment) os << " ||| " << to_pharaoh(links(format, h));
    os << '\n';
    ++written;
  }
  write_missing(os, format, index, n - written);
}

void write_failure(std::ostream& os, const OutputFormat& format, std::size_t index, const std::string& message) {
  if (format.json) {
    os << failure_json(message, json_options(format, index)) << '\n';
  } else if (format.nbest == 0) {
    os << '\n';
  } else {
    write_missing(os, format, index, static_cast<std::size_t>(format.nbest));
  }
}

}  // namespace softalign::cli
