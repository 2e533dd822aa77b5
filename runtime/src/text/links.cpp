#include "text/links.hpp"

namespace softalign::internal {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Opening and closing brackets in `s` (to strip only an unbalanced one at an edge).
int balance(std::string_view s, char open, char close) {
  int b = 0;
  for (char c : s) b += (c == open) - (c == close);
  return b;
}

bool is_tag(const Placeholder& p) {
  return p.kind == PlaceholderKind::kTagOpen || p.kind == PlaceholderKind::kTagClose ||
         p.kind == PlaceholderKind::kTagEmpty;
}

// A candidate that a link never holds: a tag, or one with whitespace inside ("{0, number}").
bool ends_token(std::string_view text, const Placeholder& p) {
  if (is_tag(p)) return true;
  for (std::size_t i = p.bytes.begin; i < p.bytes.end; ++i)
    if (is_ws(text[i])) return true;
  return false;
}

}  // namespace

TextRange trim_token(std::string_view text, TextRange t) {
  auto closer = [](char c) { return c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : c == '>' ? '<' : 0; };
  auto opener = [](char c) { return c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : c == '<' ? '>' : 0; };
  bool changed = true;
  while (changed && t.begin < t.end) {
    changed = false;
    const std::string_view tok = text.substr(t.begin, t.end - t.begin);
    const char first = tok.front(), last = tok.back();
    if (tok.size() >= 2 && opener(first) && last == opener(first)) {  // (foo)
      ++t.begin;
      --t.end;
      changed = true;
    } else if (first == '"' || first == '\'' || (opener(first) && balance(tok, first, opener(first)) > 0)) {
      ++t.begin;
      changed = true;
    } else if (last == '"' || last == '\'' || last == '.' || last == ',' || last == ';' || last == ':' ||
               last == '!' || last == '?' || (closer(last) && balance(tok, closer(last), last) < 0)) {
      --t.end;
      changed = true;
    }
  }
  return t;
}

bool is_link(std::string_view s) {
  if (s.empty()) return false;
  const std::size_t scheme = s.find("://");
  if (scheme != std::string_view::npos && scheme > 0 && is_alpha(s[0])) return true;  // URL
  if (starts_with(s, "www.") && s.size() > 4) return true;
  const std::size_t at = s.find('@');
  if (at != std::string_view::npos && at > 0 && is_alnum(s[at - 1]) && at + 1 < s.size() &&
      s.find('.', at) != std::string_view::npos)
    return true;  // e-mail
  std::size_t slashes = 0;
  for (char c : s) slashes += c == '/';
  return (s[0] == '/' && s.size() > 1 && (is_alnum(s[1]) || s[1] == '.' || s[1] == '_')) ||
         starts_with(s, "~/") || starts_with(s, "./") || starts_with(s, "../") || slashes >= 2;  // path
}

std::vector<TextRange> find_links(std::string_view text, const std::vector<Placeholder>& candidates) {
  std::vector<TextRange> links;
  const std::size_t n = text.size();
  std::size_t c = 0;  // the first candidate not before i
  auto candidate_at = [&](std::size_t i) -> const Placeholder* {
    while (c < candidates.size() && candidates[c].bytes.begin < i) ++c;
    return c < candidates.size() && candidates[c].bytes.begin == i ? &candidates[c] : nullptr;
  };
  for (std::size_t i = 0; i < n;) {
    if (is_ws(text[i])) {
      ++i;
      continue;
    }
    if (const Placeholder* p = candidate_at(i); p != nullptr && ends_token(text, *p)) {
      i = p->bytes.end;
      continue;
    }
    const std::size_t b = i;
    while (i < n && !is_ws(text[i])) {
      if (const Placeholder* p = candidate_at(i); p != nullptr) {
        if (ends_token(text, *p)) break;
        i = p->bytes.end;
        continue;
      }
      ++i;
    }
    const TextRange t = trim_token(text, {b, i});
    if (t.begin >= t.end || !is_link(text.substr(t.begin, t.end - t.begin))) continue;
    // A letter or digit outside the candidates.
    bool named = false;
    std::size_t k = c;
    while (k > 0 && candidates[k - 1].bytes.end > t.begin) --k;
    for (std::size_t j = t.begin; j < t.end && !named;) {
      while (k < candidates.size() && candidates[k].bytes.end <= j) ++k;
      if (k < candidates.size() && candidates[k].bytes.begin <= j) {
        j = candidates[k].bytes.end;
        continue;
      }
      named = is_alnum(text[j]);
      ++j;
    }
    if (named) links.push_back(t);
  }
  return links;
}

}  // namespace softalign::internal
