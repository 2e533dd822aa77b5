#include "text/placeholders.hpp"

#include <string_view>

#include "text/links.hpp"

namespace softalign::internal {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool in(char c, std::string_view set) { return c != '\0' && set.find(c) != std::string_view::npos; }

constexpr std::size_t npos = std::string_view::npos;
constexpr std::size_t kMaxTagBytes = 1024;
constexpr std::size_t kMaxBraceName = 64;
constexpr std::size_t kMaxBraceFormat = 64;

// The end of a format starting with the '%' at `i`, or npos.
std::size_t format_end(std::string_view s, std::size_t i) {
  std::size_t k = i + 1;
  if (k >= s.size()) return npos;
  if (s[k] == '%') return k + 1;
  auto digits = [&](std::size_t at) {
    while (at < s.size() && is_digit(s[at])) ++at;
    return at;
  };
  auto width_precision = [&](std::size_t at) {
    at = at < s.size() && s[at] == '*' ? at + 1 : digits(at);
    if (at < s.size() && s[at] == '.') at = at + 1 < s.size() && s[at + 1] == '*' ? at + 2 : digits(at + 1);
    return at;
  };
  if (s[k] == '(') {  // Python: %(name)s
    std::size_t e = k + 1;
    while (e < s.size() && e - k <= kMaxBraceName && (is_alpha(s[e]) || is_digit(s[e]) || s[e] == '_')) ++e;
    if (e == k + 1 || e >= s.size() || s[e] != ')') return npos;
    e = e + 1;
    while (e < s.size() && in(s[e], "-+#0")) ++e;
    e = width_precision(e);
    return e < s.size() && in(s[e], "diouxXeEfFgGcrsa") ? e + 1 : npos;
  }
  // printf, with an optional position (%1$s).
  std::size_t e = k;
  const std::size_t d = digits(e);
  if (d > e && d < s.size() && s[d] == '$') e = d + 1;
  while (e < s.size() && in(s[e], "-+#0'")) ++e;
  e = width_precision(e);
  while (e < s.size() && in(s[e], "hlLqjzt")) ++e;
  if (e < s.size() && in(s[e], "diouxXeEfFgGaAcspnCS@")) return e + 1;
  // Qt: %1 .. %99, %L1.
  e = k < s.size() && s[k] == 'L' ? k + 1 : k;
  const std::size_t q = digits(e);
  if (q > e && q - e <= 2) return q;
  return npos;
}

bool name_char(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '-'; }

// The end of a brace placeholder starting at `i` ('{'), or npos.
std::size_t brace_end(std::string_view s, std::size_t i) {
  std::size_t k = i + 1;
  if (k < s.size() && s[k] == '{') {  // {{ name }}
    std::size_t e = k + 1;
    while (e < s.size() && s[e] == ' ') ++e;
    const std::size_t b = e;
    while (e < s.size() && e - b < kMaxBraceName && name_char(s[e])) ++e;
    if (e == b) return npos;
    while (e < s.size() && s[e] == ' ') ++e;
    return e + 1 < s.size() && s[e] == '}' && s[e + 1] == '}' ? e + 2 : npos;
  }
  std::size_t e = k;
  while (e < s.size() && e - k < kMaxBraceName && name_char(s[e])) ++e;
  if (e < s.size() && s[e] == '}') return e + 1;
  if (e == k || e >= s.size() || !in(s[e], ":,!")) return npos;
  const std::size_t f = e;
  for (++e; e < s.size() && e - f <= kMaxBraceFormat; ++e) {
    if (s[e] == '}') return e + 1;
    if (s[e] == '{' || s[e] == '\n') return npos;
  }
  return npos;
}

// After the first letter: letters (UTF-8 ones too), digits, ':' '_' '.' '-'.
bool tag_name_char(char c) {
  return is_alpha(c) || is_digit(c) || c == ':' || c == '_' || c == '.' || c == '-' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// HTML's void elements: a tag of its own without "/>".
bool void_element(std::string_view name) {
  static constexpr std::string_view kVoid[] = {"area", "base", "br",   "col",   "embed",  "hr",    "img",
                                               "input", "link", "meta", "param", "source", "track", "wbr"};
  for (std::string_view v : kVoid) {
    if (v.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < v.size() && same; ++i) same = (name[i] | 0x20) == v[i];
    if (same) return true;
  }
  return false;
}

// A tag starting at `i` ('<'), or bytes.end == 0.
Placeholder tag_at(std::string_view s, std::size_t i) {
  Placeholder p;
  const std::size_t limit = i + kMaxTagBytes < s.size() ? i + kMaxTagBytes : s.size();
  std::size_t k = i + 1;
  const bool closing = k < limit && s[k] == '/';
  if (closing) ++k;
  if (k >= limit || !is_alpha(s[k])) return p;
  const std::size_t nb = k;
  while (k < limit && tag_name_char(s[k])) ++k;
  const std::string_view name = s.substr(nb, k - nb);
  // Attributes (anything but '<', '>' and newlines) after a space, then '>'.
  if (k < limit && (s[k] == ' ' || s[k] == '\t'))
    while (k < limit && s[k] != '<' && s[k] != '>' && s[k] != '\n') ++k;
  else if (k + 1 < limit && s[k] == '/' && s[k + 1] == '>')
    ++k;
  if (k >= limit || s[k] != '>') return p;
  const bool slash = s[k - 1] == '/';
  p.bytes = {i, k + 1};
  p.kind = closing ? PlaceholderKind::kTagClose
                   : slash || void_element(name) ? PlaceholderKind::kTagEmpty : PlaceholderKind::kTagOpen;
  p.name = name;
  return p;
}

// The end of an entity starting at `i` ('&'), or npos.
std::size_t entity_end(std::string_view s, std::size_t i) {
  std::size_t k = i + 1, b = 0, max = 0;
  if (k < s.size() && s[k] == '#') {
    ++k;
    const bool hex = k < s.size() && (s[k] == 'x' || s[k] == 'X');
    if (hex) ++k;
    b = k;
    max = hex ? 6 : 7;
    while (k < s.size() && k - b < max && (hex ? is_hex(s[k]) : is_digit(s[k]))) ++k;
    if (k == b) return npos;
  } else {
    if (k >= s.size() || !is_alpha(s[k])) return npos;
    b = k;
    while (k < s.size() && k - b < 32 && (is_alpha(s[k]) || is_digit(s[k]))) ++k;
    if (k - b < 2) return npos;
  }
  return k < s.size() && s[k] == ';' ? k + 1 : npos;
}

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((is_alpha(a[i]) ? a[i] | 0x20 : a[i]) != (is_alpha(b[i]) ? b[i] | 0x20 : b[i])) return false;
  return true;
}

// Every match of the patterns, links not yet set apart.
std::vector<Placeholder> find_candidates(std::string_view text) {
  std::vector<Placeholder> out;
  for (std::size_t i = 0; i < text.size();) {
    Placeholder p;
    std::size_t e = npos;
    switch (text[i]) {
      case '%':
        e = format_end(text, i);
        p.kind = PlaceholderKind::kFormat;
        break;
      case '{':
        e = brace_end(text, i);
        p.kind = PlaceholderKind::kBrace;
        break;
      case '<':
        p = tag_at(text, i);
        if (p.bytes.end > 0) e = p.bytes.end;
        break;
      case '&':
        e = entity_end(text, i);
        p.kind = PlaceholderKind::kEntity;
        break;
      default:
        break;
    }
    if (e == npos) {
      ++i;
      continue;
    }
    p.bytes = {i, e};
    out.push_back(p);
    i = e;
  }
  return out;
}

}  // namespace

std::vector<Placeholder> find_placeholders(std::string_view text, std::vector<TextRange>* links_out) {
  std::vector<Placeholder> candidates = find_candidates(text);
  std::vector<TextRange> links = find_links(text, candidates);
  if (links_out != nullptr) *links_out = links;
  if (links.empty()) return candidates;
  std::vector<Placeholder> out;
  std::size_t l = 0;
  for (const Placeholder& p : candidates) {
    while (l < links.size() && links[l].end <= p.bytes.begin) ++l;
    if (l < links.size() && links[l].begin <= p.bytes.begin && p.bytes.end <= links[l].end) continue;  // in a link
    out.push_back(p);
  }
  return out;
}

std::vector<int> pair_tags(const std::vector<Placeholder>& ph) {
  std::vector<int> partner(ph.size(), -1);
  std::vector<int> open;  // indices of open tags not yet closed
  for (std::size_t i = 0; i < ph.size(); ++i) {
    if (ph[i].kind == PlaceholderKind::kTagOpen) {
      open.push_back(static_cast<int>(i));
    } else if (ph[i].kind == PlaceholderKind::kTagClose) {
      for (std::size_t d = open.size(); d > 0; --d)
        if (same_name(ph[open[d - 1]].name, ph[i].name)) {
          partner[open[d - 1]] = static_cast<int>(i);
          partner[i] = open[d - 1];
          open.resize(d - 1);
          break;
        }
    }
  }
  return partner;
}

std::vector<int> enclosing_tag(const std::vector<Placeholder>& ph, const std::vector<int>& partner) {
  std::vector<int> parent(ph.size(), -1);
  std::vector<int> stack;
  for (std::size_t i = 0; i < ph.size(); ++i) {
    const bool paired = partner[i] >= 0;
    if (paired && ph[i].kind == PlaceholderKind::kTagClose) {
      // The pairs are nested by construction: its opening tag is on top.
      while (!stack.empty() && stack.back() != partner[i]) stack.pop_back();
      if (!stack.empty()) stack.pop_back();
    }
    parent[i] = stack.empty() ? -1 : stack.back();
    if (paired && ph[i].kind == PlaceholderKind::kTagOpen) stack.push_back(static_cast<int>(i));
  }
  return parent;
}

}  // namespace softalign::internal
