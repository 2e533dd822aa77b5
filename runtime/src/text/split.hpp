// Where a source too long for the model is cut.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "softalign/result.hpp"

namespace softalign::internal {

// The splitters of a source too long for the model. None cuts strictly
// inside a range of `keep` (sorted, disjoint byte ranges: the protected spans,
// so that code in backquotes or a URL stays in one part), except split_halves
// when the text has no other place to cut.
//
// Splits after '.', '!', '?' (and their runs, closing quotes/brackets) followed
// by whitespace; the parts keep their text, trimmed.
std::vector<std::string> split_sentences(std::string_view s, const std::vector<TextRange>& keep = {});
// Splits after ';', ':', ',' followed by whitespace; trimmed, as above.
std::vector<std::string> split_clauses(std::string_view s, const std::vector<TextRange>& keep = {});
// Two halves: at the whitespace nearest the middle, or else at the UTF-8
// character boundary nearest it; one part when `s` is one character.
std::vector<std::string> split_halves(std::string_view s, const std::vector<TextRange>& keep = {});

}  // namespace softalign::internal
