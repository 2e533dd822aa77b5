// A glossary prepared for matching (softalign/glossary.hpp gives the rules):
// its source terms, first letter folded, sorted for a walk from each position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "softalign/glossary.hpp"
#include "softalign/result.hpp"

namespace softalign::internal {

struct TermMatch {
  TextRange bytes;  // of the text searched
  int term = 0;     // index into the glossary's terms
};

class GlossaryIndex {
 public:
  GlossaryIndex() = default;
  // `terms` passed check_glossary.
  explicit GlossaryIndex(const std::vector<GlossaryTerm>& terms);

  bool empty() const { return keys_.empty(); }
  const std::string& target(int term) const { return targets_[static_cast<std::size_t>(term)]; }
  // The terms' occurrences in `text` (valid UTF-8), in order, disjoint:
  // at each position the longest term that matches there. O(text x the
  // longest common prefix of text and terms x log terms).
  std::vector<TermMatch> find(std::string_view text) const;

 private:
  std::vector<std::string> targets_;  // by term
  std::vector<std::string> keys_;  // sources with the first letter folded, sorted, unique
  std::vector<int> key_term_;      // keys_[i]'s term
};

// `s` with its first letter in lower case (ASCII and Latin-1 letters; others
// as they are): the form glossary sources are matched in.
std::string fold_first_letter(std::string_view s);
// `s` with its first letter in upper case (ASCII and Latin-1 letters).
std::string capitalise_first_letter(std::string_view s);
// Whether `s` starts with a lower-case (upper-case) ASCII or Latin-1 letter.
bool starts_lower(std::string_view s);
bool starts_upper(std::string_view s);

}  // namespace softalign::internal
