#include "text/split.hpp"

#include <algorithm>

namespace softalign::internal {

namespace {

// Appends `part` trimmed, unless it is blank.
void push_trimmed(std::vector<std::string>& parts, std::string_view part) {
  const std::size_t b = part.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return;
  const std::size_t e = part.find_last_not_of(" \t\r\n");
  parts.emplace_back(part.substr(b, e - b + 1));
}

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

// Whether a cut before byte `p` falls strictly inside one of `keep`'s ranges
// (sorted and disjoint: a binary search, so hostile text with many spans and
// many cut points stays fast).
bool inside(const std::vector<TextRange>& keep, std::size_t p) {
  const auto r = std::upper_bound(keep.begin(), keep.end(), p,
                                  [](std::size_t pos, const TextRange& range) { return pos < range.end; });
  return r != keep.end() && r->begin < p;
}

}  // namespace

std::vector<std::string> split_clauses(std::string_view s, const std::vector<TextRange>& keep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if ((s[i] == ';' || s[i] == ':' || s[i] == ',') && is_space(s[i + 1]) && !inside(keep, i + 1)) {
      push_trimmed(parts, s.substr(start, i + 1 - start));
      start = i + 1;
    }
  push_trimmed(parts, s.substr(start));
  return parts;
}

std::vector<std::string> split_halves(std::string_view s, const std::vector<TextRange>& keep) {
  std::vector<std::string> parts;
  const std::size_t mid = s.size() / 2;
  std::size_t cut = std::string_view::npos;
  // The whitespace nearest the middle outside `keep`, else any.
  for (const bool any : {false, true})
    for (std::size_t d = 0; d <= mid && cut == std::string_view::npos; ++d) {
      if (mid + d < s.size() && is_space(s[mid + d]) && (any || !inside(keep, mid + d))) cut = mid + d;
      else if (is_space(s[mid - d]) && (any || !inside(keep, mid - d))) cut = mid - d;
    }
  if (cut == std::string_view::npos || cut == 0) {
    // No space inside: the character boundary nearest the middle (not a
    // UTF-8 continuation byte 10xxxxxx).
    cut = mid;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    if (cut == 0) {
      cut = mid;
      while (cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) ++cut;
    }
  }
  if (cut == 0 || cut >= s.size()) {
    push_trimmed(parts, s);
    return parts;
  }
  push_trimmed(parts, s.substr(0, cut));
  push_trimmed(parts, s.substr(cut));
  return parts;
}

std::vector<std::string> split_sentences(std::string_view s, const std::vector<TextRange>& keep) {
  std::vector<std::string> parts;
  auto push = [&](std::string_view part) { push_trimmed(parts, part); };
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '.' && s[i] != '!' && s[i] != '?') continue;
    std::size_t j = i + 1;
    while (j < s.size() && (s[j] == '.' || s[j] == '!' || s[j] == '?' || s[j] == '"' || s[j] == '\'' ||
                            s[j] == ')' || s[j] == ']'))
      ++j;
    if (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n') && !inside(keep, j)) {
      push(s.substr(start, j - start));
      start = j;
    }
    i = j - 1;
  }
  push(s.substr(start));
  return parts;
}

}  // namespace softalign::internal
