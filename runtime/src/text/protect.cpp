#include "text/protect.hpp"

#include <algorithm>
#include <string_view>

#include "text/links.hpp"
#include "text/placeholders.hpp"

namespace softalign::internal {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_alpha(char c) { return is_lower(c) || is_upper(c); }

// Length of the run of backquotes at `i`.
std::size_t backquote_run(std::string_view s, std::size_t i) {
  std::size_t n = 0;
  while (i + n < s.size() && s[i + n] == '`') ++n;
  return n;
}

// End (past the closing run) of the code span opened by the run of n
// backquotes at `i`, or npos: the next run of exactly n backquotes within
// kMaxCodeBytes, with something between. Text quoted `like this' (the first
// apostrophe inside ends a word) is not code.
std::size_t code_end(std::string_view s, std::size_t i, std::size_t n) {
  const std::size_t start = i + n;
  const std::size_t limit = start + kMaxCodeBytes < s.size() ? start + kMaxCodeBytes : s.size();
  bool apostrophe = false;
  for (std::size_t k = start; k < limit;) {
    if (s[k] == '\'' && !apostrophe) {
      apostrophe = true;
      const bool ends_word = k + 1 == s.size() || is_ws(s[k + 1]) ||
                             std::string_view(".,;:!?)").find(s[k + 1]) != std::string_view::npos;
      if (k > start && ends_word) return std::string_view::npos;
    }
    if (s[k] != '`') {
      ++k;
      continue;
    }
    const std::size_t run = backquote_run(s, k);
    if (run == n) return k > start ? k + n : std::string_view::npos;
    k += run;
  }
  return std::string_view::npos;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// "2nd", "64-bit", "10MB", "3-D": a number with an ordinal ending or a unit, translated as words are.
bool number_with_unit(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (is_digit(s[i]) || s[i] == '.')) ++i;
  if (i == 0 || i == s.size()) return false;
  if (s[i] == '-') ++i;
  const std::string_view rest = s.substr(i);
  for (char c : rest)
    if (!is_alpha(c)) return false;
  static constexpr std::string_view kUnits[] = {
      "st", "nd", "rd", "th", "s", "bit", "bits", "byte", "bytes", "b", "B", "kb", "KB", "kB", "K", "k",
      "mb", "MB", "M", "gb", "GB", "G", "tb", "TB", "KiB", "MiB", "GiB", "Hz", "kHz", "MHz", "GHz",
      "px", "pt", "dpi", "ms", "x", "D", "d", "m", "cm", "mm", "km", "kg", "g", "h", "min",
      "way", "core", "player", "color", "colour", "pass", "channel", "button", "line", "digit", "point",
      "dimensional", "times", "fold", "year", "day"};
  for (std::string_view u : kUnits)
    if (rest == u) return true;
  return false;
}

// "13908", "2014", "1149-1", "2-12", "1,000", "10:30": two digits or more, with
// at most '-', ',', ':' or '/' between digits (a range, a separator, a time).
bool multi_digit_number(std::string_view s) {
  int digits = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (is_digit(s[i])) {
      ++digits;
      continue;
    }
    const bool between = i > 0 && i + 1 < s.size() && is_digit(s[i - 1]) && is_digit(s[i + 1]);
    if (!between || std::string_view("-,:/").find(s[i]) == std::string_view::npos) return false;
  }
  return digits >= 2;
}

// A Debian package name by its shape: lib...-..., or a known suffix.
bool package_name(std::string_view s) {
  if (s.find('-') == std::string_view::npos) return false;
  for (char c : s)
    if (!(is_lower(c) || is_digit(c) || c == '-' || c == '.' || c == '+')) return false;
  if (starts_with(s, "lib") && s.size() > 4) return true;
  static constexpr std::string_view kSuffixes[] = {"-dev",  "-dbg",   "-doc",   "-common", "-data", "-utils",
                                                   "-tools", "-bin",  "-dbgsym", "-examples", "-plugin",
                                                   "-plugins", "-perl", "-java", "-cil", "-el"};
  for (std::string_view x : kSuffixes)
    if (ends_with(s, x) && s.size() > x.size()) return true;
  return false;
}

// Whether a (trimmed) token is protected (protect.hpp lists the kinds).
bool protected_token(std::string_view s) {
  if (s.empty()) return false;
  bool letter = false, digit = false, inner_capital = false, dotted_letters = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    letter = letter || is_alpha(c);
    digit = digit || is_digit(c);
    if (i > 0 && is_upper(c) && is_lower(s[i - 1])) inner_capital = true;
    if (c == '.' && i > 0 && i + 1 < s.size() && is_alpha(s[i - 1]) && is_alpha(s[i + 1])) dotted_letters = true;
  }
  if (is_link(s)) return true;  // a piece of a token between placeholders ("%s/foo/bar")
  if (!letter && !digit) return false;
  if (number_with_unit(s)) return false;
  if (s.find('_') != std::string_view::npos || s.find("::") != std::string_view::npos ||
      s.find("()") != std::string_view::npos)
    return true;
  if (s[0] == '$' && s.size() > 1 && (is_alpha(s[1]) || s[1] == '{' || s[1] == '_')) return true;
  if (s[0] == '-' && s.size() > 1 && (is_alpha(s[1]) || (s[1] == '-' && s.size() > 2 && is_alpha(s[2]))))
    return true;  // command-line option
  if (digit && !letter && multi_digit_number(s)) return true;
  if (digit) {
    // Versions and dotted numbers: digits, a dot, a digit.
    for (std::size_t i = 1; i + 1 < s.size(); ++i)
      if (s[i] == '.' && is_digit(s[i - 1]) && is_digit(s[i + 1])) return true;
    if (letter && !number_with_unit(s)) return true;
  }
  if (inner_capital) return true;
  if (dotted_letters) {
    // Not "e.g", "i.e", "U.S": some part between dots is longer than a letter.
    std::size_t run = 0, longest = 0;
    for (char c : s) {
      run = c == '.' ? 0 : run + 1;
      if (run > longest) longest = run;
    }
    if (longest > 1) return true;
  }
  return package_name(s);
}

}  // namespace

std::vector<TextRange> find_protected_spans(std::string_view text) {
  std::vector<TextRange> spans;
  // Placeholders and links, in order (disjoint: no placeholder lies in a link).
  std::vector<TextRange> marked;
  {
    std::vector<TextRange> links;
    const std::vector<Placeholder> placeholders = find_placeholders(text, &links);
    marked.reserve(placeholders.size() + links.size());
    std::size_t l = 0;
    for (const Placeholder& ph : placeholders) {
      while (l < links.size() && links[l].begin < ph.bytes.begin) marked.push_back(links[l++]);
      marked.push_back(ph.bytes);
    }
    marked.insert(marked.end(), links.begin() + static_cast<std::ptrdiff_t>(l), links.end());
  }
  std::size_t p = 0;  // the next placeholder or link not before i
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    while (p < marked.size() && marked[p].begin < i) ++p;  // inside code
    const std::size_t next_placeholder = p < marked.size() ? marked[p].begin : n;
    if (next_placeholder == i) {
      spans.push_back(marked[p]);
      i = marked[p].end;
      continue;
    }
    if (is_ws(text[i])) {
      ++i;
      continue;
    }
    if (text[i] == '`') {
      const std::size_t run = backquote_run(text, i);
      const std::size_t e = code_end(text, i, run);
      if (e != std::string_view::npos) {
        spans.push_back({i, e});
        i = e;
        continue;
      }
    }
    // A token: up to whitespace, a placeholder or a backquote that opens code.
    const std::size_t b = i;
    while (i < n && i < next_placeholder && !is_ws(text[i])) {
      if (text[i] == '`' && i > b) {
        const std::size_t run = backquote_run(text, i);
        if (code_end(text, i, run) != std::string_view::npos) break;
        i += run;
        continue;
      }
      ++i;
    }
    if (i == b) ++i;  // a lone backquote run without a closing one: skipped above as a token char
    const std::size_t e = std::min(i, next_placeholder);
    const TextRange t = trim_token(text, {b, e});
    if (t.begin < t.end && protected_token(text.substr(t.begin, t.end - t.begin))) spans.push_back(t);
    i = std::max(i, e);
  }
  return spans;
}

}  // namespace softalign::internal
