#include "output.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <map>

#include <nlohmann/json.hpp>

namespace softalign::cli {
namespace {

// JSON whose numbers are float32, so each prints as the shortest text that
// reads back as the same float (e.g. 0.40816763, not 0.40816763043403625).
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

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

Json to_json(const OutputFormat& format, const Hypothesis& h) {
  Json j;
  j["text"] = h.text;
  j["confidence"] = h.confidence;
  if (format.min_confidence >= 0.0f) j["low_confidence"] = low_confidence(format, h);
  j["pieces"] = h.pieces;
  j["ids"] = h.ids;
  j["score"] = h.score;
  j["log_prob"] = h.log_prob;
  j["placeholders_repaired"] = h.placeholders_repaired;
  if (!h.attention.empty()) {
    // Rows: target pieces then EOS; columns: source pieces then EOS.
    Json rows = Json::array();
    for (std::size_t r = 0; r < h.attention_rows; ++r) {
      const float* row = h.attention.data() + r * h.source_length;
      rows.push_back(std::vector<float>(row, row + h.source_length));
    }
    j["attention"] = std::move(rows);
    j["alignment"] = to_pharaoh(h.alignment_pieces);
    j["word_alignment"] = to_pharaoh(h.alignment_words);
  }
  return j;
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
    Json j;
    j["index"] = index;
    j["source_pieces"] = result.source_pieces;
    // Protected spans (copy-through): [begin, end) bytes of the input line.
    j["protected_spans"] = Json::array();
    for (const TextRange& r : result.protected_spans) j["protected_spans"].push_back({r.begin, r.end});
    // Glossary terms' occurrences (--glossary), the same way.
    j["glossary_matches"] = Json::array();
    for (const TextRange& r : result.glossary_matches) j["glossary_matches"].push_back({r.begin, r.end});
    j["hypotheses"] = Json::array();
    for (const Hypothesis& h : result.hypotheses)
      if (!(format.drop_low_confidence && low_confidence(format, h))) j["hypotheses"].push_back(to_json(format, h));
    os << j.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
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
    Json j;
    j["index"] = index;
    j["error"] = message;
    os << j.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
  } else if (format.nbest == 0) {
    os << '\n';
  } else {
    write_missing(os, format, index, static_cast<std::size_t>(format.nbest));
  }
}

}  // namespace softalign::cli
