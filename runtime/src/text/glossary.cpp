// Glossaries: the TSV reader, the rule of what prepare takes, and matching.
#include <algorithm>
#include <map>

#include "core/guard.hpp"
#include "core/utf8.hpp"
#include "text/glossary_index.hpp"

namespace softalign {

namespace {

// The code point at s[i] (valid UTF-8) and its length.
char32_t code_point(std::string_view s, std::size_t i, std::size_t* len) {
  const unsigned char b = static_cast<unsigned char>(s[i]);
  std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  n = std::min(n, s.size() - i);
  char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *len = n;
  return cp;
}

// Whether a code point is a letter or digit for the word-boundary rule: ASCII
// letters, digits and '_', and any non-ASCII one outside the punctuation and space
// blocks (Latin-1 symbols, General Punctuation, CJK punctuation).
bool word_char(char32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
  if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x206F) return false;
  if (cp >= 0x3000 && cp <= 0x303F) return false;
  return true;
}

// Characters that join words into one compound or identifier when a word
// character or another of them is on their other side: file-based,
// Plugin::Auth, index.html, a/b, user@host.
bool joiner(char c) { return c == '-' || c == ':' || c == '.' || c == '/' || c == '@'; }

// Whether byte i (a code point boundary) lies inside a word: the code points
// before and at i are both word characters, or a joiner on one side of i
// continues the word across it.
bool inside_word(std::string_view s, std::size_t i) {
  if (i == 0 || i >= s.size()) return false;
  std::size_t b = i - 1, len = 0;
  while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
  const bool before = word_char(code_point(s, b, &len)), at = word_char(code_point(s, i, &len));
  if (before && at) return true;
  auto continues = [&](std::size_t k) {  // a word character or a joiner at byte k
    return k < s.size() && (joiner(s[k]) || word_char(code_point(s, k, &len)));
  };
  if (before && joiner(s[i]) && continues(i + 1)) return true;       // "file" | "-based"
  if (at && joiner(s[i - 1]) && i >= 2 && continues(i - 2)) return true;  // "crossfire-" | "server"
  return false;
}

bool has_edge_space(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t'; };
  return !s.empty() && (space(s.front()) || space(s.back()));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Status check_term(std::string_view what, std::string_view s) {
  auto bad = [&](const std::string& why) {
    return Status(StatusCode::kInvalidArgument, std::string(what) + " \"" +
                                                    escape_controls(s.substr(0, 64)) + "\" " + why);
  };
  if (s.empty()) return Status(StatusCode::kInvalidArgument, std::string(what) + " is empty");
  if (s.size() > GlossaryLimits::kMaxTermBytes)
    return bad("has " + std::to_string(s.size()) + " bytes; at most " + std::to_string(GlossaryLimits::kMaxTermBytes));
  if (internal::find_invalid_utf8(s) != std::string_view::npos) return bad("is not valid UTF-8");
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 0;
    const char32_t cp = code_point(s, i, &len);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) return bad("holds a control character");
    i += len;
  }
  if (has_edge_space(s)) return bad("starts or ends with a space");
  return Status::Ok();
}

// No source twice (as matched: first letter folded) with different targets.
Status check_conflicts(const std::vector<GlossaryTerm>& terms) {
  std::map<std::string, std::size_t> seen;  // folded source -> first term
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto [it, fresh] = seen.emplace(internal::fold_first_letter(terms[i].source), i);
    if (!fresh && terms[it->second].target != terms[i].target)
      return Status(StatusCode::kInvalidArgument,
                    "glossary term " + std::to_string(i + 1) + ": source \"" + escape_controls(terms[i].source) +
                        "\" is term " + std::to_string(it->second + 1) + "'s too, with another target");
  }
  return Status::Ok();
}

Status too_many(std::size_t n) {
  return Status(StatusCode::kInvalidArgument, "a glossary of " + std::to_string(n) + " terms or more; at most " +
                                                  std::to_string(GlossaryLimits::kMaxTerms));
}

}  // namespace

Status check_glossary(const std::vector<GlossaryTerm>& terms) {
  return internal::guarded([&]() -> Status {
    if (terms.size() > GlossaryLimits::kMaxTerms) return too_many(terms.size());
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const std::string at = "glossary term " + std::to_string(i + 1) + ": ";
      Status st = check_term(at + "source", terms[i].source);
      if (st.ok()) st = check_term(at + "target", terms[i].target);
      if (!st.ok()) return st;
    }
    return check_conflicts(terms);
  });
}

Status parse_glossary_tsv(std::string_view tsv, std::vector<GlossaryTerm>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::vector<GlossaryTerm> terms;
    std::size_t line_no = 0;
    for (std::size_t b = 0; b < tsv.size();) {
      std::size_t e = tsv.find('\n', b);
      if (e == std::string_view::npos) e = tsv.size();
      std::string_view line = tsv.substr(b, e - b);
      b = e + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      // Blank: spaces only. A tab makes it a term line ("\t" has two empty fields).
      if ((trim(line).empty() && line.find('\t') == std::string_view::npos) || line.front() == '#') continue;
      const std::string at = "glossary line " + std::to_string(line_no) + ": ";
      const std::size_t tab = line.find('\t');
      if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos)
        return Status(StatusCode::kInvalidArgument, at + "not \"source<TAB>target\" (one tab)");
      GlossaryTerm t{std::string(trim(line.substr(0, tab))), std::string(trim(line.substr(tab + 1)))};
      Status st = check_term("source", t.source);
      if (st.ok()) st = check_term("target", t.target);
      if (!st.ok()) return Status(st.code(), at + st.message());
      terms.push_back(std::move(t));
      if (out->size() + terms.size() > GlossaryLimits::kMaxTerms)
        return Status(StatusCode::kInvalidArgument, at + too_many(out->size() + terms.size()).message());
    }
    std::vector<GlossaryTerm> all = *out;  // each line was checked above: only the conflicts are left
    all.insert(all.end(), terms.begin(), terms.end());
    Status st = check_conflicts(all);
    if (!st.ok()) return st;
    *out = std::move(all);
    return Status::Ok();
  });
}

namespace internal {

namespace {
// Latin-1 capitals U+00C0..U+00DE (but U+00D7) are C3 80..C3 9E; their small
// letters, U+00E0..U+00FE (but U+00F7), C3 A0..C3 BE.
bool latin1_upper(std::string_view s) {
  return s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0xC3 && static_cast<unsigned char>(s[1]) >= 0x80 &&
         static_cast<unsigned char>(s[1]) <= 0x9E && static_cast<unsigned char>(s[1]) != 0x97;
}
bool latin1_lower(std::string_view s) {
  return s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0xC3 && static_cast<unsigned char>(s[1]) >= 0xA0 &&
         static_cast<unsigned char>(s[1]) <= 0xBE && static_cast<unsigned char>(s[1]) != 0xB7;
}
}  // namespace

bool starts_upper(std::string_view s) { return (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') || latin1_upper(s); }
bool starts_lower(std::string_view s) { return (!s.empty() && s[0] >= 'a' && s[0] <= 'z') || latin1_lower(s); }

std::string fold_first_letter(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'A' && out[0] <= 'Z') out[0] = static_cast<char>(out[0] - 'A' + 'a');
  else if (latin1_upper(out)) out[1] = static_cast<char>(out[1] + 0x20);
  return out;
}

std::string capitalise_first_letter(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  else if (latin1_lower(out)) out[1] = static_cast<char>(out[1] - 0x20);
  return out;
}

GlossaryIndex::GlossaryIndex(const std::vector<GlossaryTerm>& terms) {
  std::vector<std::pair<std::string, int>> keyed;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    keyed.emplace_back(fold_first_letter(terms[i].source), static_cast<int>(i));
    targets_.push_back(terms[i].target);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [key, term] : keyed) {
    if (!keys_.empty() && keys_.back() == key) continue;  // the same term again (check_glossary: same target)
    keys_.push_back(std::move(key));
    key_term_.push_back(term);
  }
}

std::vector<TermMatch> GlossaryIndex::find(std::string_view text) const {
  std::vector<TermMatch> out;
  if (keys_.empty()) return out;
  for (std::size_t p = 0; p < text.size();) {
    std::size_t cp_len = 0;
    code_point(text, p, &cp_len);
    if (inside_word(text, p)) {  // no term starts inside a word
      p += cp_len;
      continue;
    }
    const std::string first = fold_first_letter(text.substr(p, cp_len));
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(k < first.size() ? first[k] : text[p + k]); };
    // keys_[lo, hi) share their first k bytes with the text at p.
    std::size_t lo = 0, hi = keys_.size(), best = keys_.size();
    for (std::size_t k = 0; p + k < text.size() && lo < hi; ++k) {
      if (keys_[lo].size() == k) ++lo;  // the one key of length k sorts first
      const unsigned char c = byte(k);
      auto at = [k](const std::string& s) { return static_cast<unsigned char>(s[k]); };
      lo = static_cast<std::size_t>(
          std::partition_point(keys_.begin() + lo, keys_.begin() + hi, [&](const std::string& s) { return at(s) < c; }) -
          keys_.begin());
      hi = static_cast<std::size_t>(
          std::partition_point(keys_.begin() + lo, keys_.begin() + hi, [&](const std::string& s) { return at(s) == c; }) -
          keys_.begin());
      if (lo < hi && keys_[lo].size() == k + 1 && !inside_word(text, p + k + 1)) best = lo;
    }
    if (best == keys_.size()) {
      p += cp_len;
      continue;
    }
    out.push_back({{p, p + keys_[best].size()}, key_term_[best]});
    p += keys_[best].size();
  }
  return out;
}

}  // namespace internal

}  // namespace softalign
