// How `softalign translate` writes one input line's result.
#pragma once

#include <cstddef>
#include <ostream>

#include "softalign/result.hpp"

namespace softalign::cli {

struct OutputFormat {
  int nbest = 0;                // N > 0: exactly N "i ||| text ||| score" lines per input
  bool alignment = false;       // append " ||| " and the Pharaoh hard alignment
  bool word_alignment = false;  // the alignment over whitespace words instead of pieces
  bool json = false;            // one JSON object per input line, with everything
  // --min-confidence: hypotheses below it are marked ("[?] " before the text;
  // "low_confidence": true in JSON) or, with drop_low_confidence, dropped (an
  // empty line, a missing n-best line, left out of JSON's list). Negative: off.
  float min_confidence = -1.0f;
  bool drop_low_confidence = false;
};

// The marker --min-confidence puts before a low-confidence text.
inline constexpr const char* kLowConfidenceMark = "[?] ";

// Writes the result of input line `index` (0-based). Plain: one line, the best
// text. n-best: N lines, the missing ones "i |||  ||| -inf". JSON: one line.
void write_result(std::ostream& os, const OutputFormat& format, std::size_t index,
                  const TranslationResult& result);

// Writes what stands for a line that could not be translated: an empty line in
// plain mode, N "i |||  ||| -inf" lines in n-best mode, {"index": i, "error":
// message} in JSON.
void write_failure(std::ostream& os, const OutputFormat& format, std::size_t index, const std::string& message);

}  // namespace softalign::cli
