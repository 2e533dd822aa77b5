// softalign — translation results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "softalign/confidence.hpp"
#include "softalign/export.h"

namespace softalign {

// A link of a hard alignment: source index, target index (Pharaoh "i-j").
struct AlignmentLink {
  int source = 0;
  int target = 0;
};

// Bytes [begin, end) of a text.
struct TextRange {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// One hypothesis of an n-best list, as owned values (text API).
struct Hypothesis {
  std::string text;                 // detokenised target text
  std::vector<std::string> pieces;  // target pieces (no BOS/EOS)
  std::vector<int32_t> ids;         // target ids (no BOS/EOS)
  float score = 0.0f;               // logp / lp + cp (the ranking score)
  float log_prob = 0.0f;            // summed log-probability, EOS included
  // Soft alignment, on request: attention_rows rows (one per target piece,
  // then the EOS row; no EOS row when the hypothesis was cut at the maximum
  // length) × source_length columns (the source pieces, then the source EOS),
  // row-major.
  std::vector<float> attention;
  std::size_t attention_rows = 0;
  std::size_t source_length = 0;
  // Hard alignments, on request: for each target piece, the argmax of its row
  // over the source pieces (the EOS row and column are left out).
  std::vector<AlignmentLink> alignment_pieces;
  // The same, over whitespace-separated words (unique links, sorted).
  std::vector<AlignmentLink> alignment_words;
  // The model's own text lacked a placeholder of the source (a format, a
  // brace, a tag, an entity), held one twice or another one, or nested the
  // source's tags otherwise (TranslatorOptions::repair_placeholders: then
  // `text` is the repaired text). Text calls only.
  bool placeholders_repaired = false;
  // How far to trust this text, in [0, 1], and what it is made of
  // (softalign/confidence.hpp). Text calls only.
  float confidence = 0.0f;
  ConfidenceFeatures confidence_features;
};

struct TranslationResult {
  std::vector<Hypothesis> hypotheses;     // best first; an empty (all-whitespace) input gives one, with empty text and score 0
  std::vector<std::string> source_pieces; // without the EOS
  std::vector<int32_t> source_ids;        // with the EOS
  // With TranslatorOptions::copy_through: the source's protected spans, as
  // bytes of the text translated (after any invalid UTF-8 was replaced).
  std::vector<TextRange> protected_spans;
  // With TranslatorOptions::glossary: the glossary terms' occurrences in the
  // text translated (bytes, as protected_spans).
  std::vector<TextRange> glossary_matches;
};

// "0-0 1-2 ..." (Pharaoh format: source-target).
SOFTALIGN_API std::string to_pharaoh(const std::vector<AlignmentLink>& links);

// How result_json writes a result.
struct ResultJsonOptions {
  long long index = -1;  // >= 0: written as "index" (the input's line)
  // >= 0: each hypothesis gets "low_confidence": confidence < min_confidence,
  // and with drop_low_confidence those below it are left out. Negative: off.
  float min_confidence = -1.0f;
  bool drop_low_confidence = false;
};

// The one JSON form of a result (the CLI's --json lines, the C API's
// softalign_result_json, the web module's results): one line, keys in
// alphabetical order, floats as the shortest text that reads back as the
// same float: {"glossary_matches": [[begin, end], ...], "hypotheses": [{"text",
// "confidence", "pieces", "ids", "score", "log_prob", "placeholders_repaired",
// and with attention "attention" (rows of source_length + 1 weights),
// "alignment" and "word_alignment" (Pharaoh)}], "protected_spans": [[begin,
// end], ...], "source_pieces": [...]}.
SOFTALIGN_API std::string result_json(const TranslationResult& result, const ResultJsonOptions& options = {});
// What stands for a result that failed: {"error": message} (and "index").
SOFTALIGN_API std::string failure_json(const std::string& message, const ResultJsonOptions& options = {});

// One hypothesis as views into a Translator's arena (the allocation-free API).
// Valid until the Translator's next call.
struct HypothesisView {
  const int32_t* ids = nullptr;  // target ids, no BOS/EOS
  std::size_t length = 0;
  float score = 0.0f;
  float log_prob = 0.0f;
  // attention_rows × source_length attention weights, row-major: one row per
  // target id, then the EOS row (attention_rows = length + 1; a hypothesis cut
  // at the maximum length has no EOS and attention_rows = length).
  const float* attention = nullptr;
  std::size_t attention_rows = 0;
  std::size_t source_length = 0;
  // attention_rows log-probabilities: each target id's, then the EOS's (their
  // sum is log_prob).
  const float* step_log_probs = nullptr;
};

struct NBestView {
  const HypothesisView* hypotheses = nullptr;  // best first
  std::size_t count = 0;
};

}  // namespace softalign
