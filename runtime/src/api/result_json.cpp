// The one result writer (softalign/result.hpp's result_json): the CLI's
// --json lines, the C API's softalign_result_json (the web module's results).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "softalign/result.hpp"

namespace softalign {
namespace {

// JSON whose numbers are float32, so each prints as the shortest text that
// reads back as the same float (e.g. 0.40816763, not 0.40816763043403625);
// keys in order (std::map).
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

bool low_confidence(const ResultJsonOptions& o, const Hypothesis& h) {
  return o.min_confidence >= 0.0f && h.confidence < o.min_confidence;
}

Json ranges(const std::vector<TextRange>& rs) {
  Json j = Json::array();
  for (const TextRange& r : rs) j.push_back({r.begin, r.end});
  return j;
}

Json hypothesis_json(const ResultJsonOptions& o, const Hypothesis& h) {
  Json j;
  j["text"] = h.text;
  j["confidence"] = h.confidence;
  if (o.min_confidence >= 0.0f) j["low_confidence"] = low_confidence(o, h);
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

}  // namespace

std::string result_json(const TranslationResult& result, const ResultJsonOptions& options) {
  Json j;
  if (options.index >= 0) j["index"] = options.index;
  j["source_pieces"] = result.source_pieces;
  // Protected spans (copy-through) and the glossary terms' occurrences: [begin, end) bytes of the input.
  j["protected_spans"] = ranges(result.protected_spans);
  j["glossary_matches"] = ranges(result.glossary_matches);
  j["hypotheses"] = Json::array();
  for (const Hypothesis& h : result.hypotheses)
    if (!(options.drop_low_confidence && low_confidence(options, h)))
      j["hypotheses"].push_back(hypothesis_json(options, h));
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string failure_json(const std::string& message, const ResultJsonOptions& options) {
  Json j;
  if (options.index >= 0) j["index"] = options.index;
  j["error"] = message;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace softalign
