// The copy-through promise as an oracle (docs/guarantees.md): a source made
// of English words and spans that must be copied (URLs with random %XX
// escapes, paths, e-mail addresses, numbers, placeholders) is translated,
// and each span must be in the output exactly as many times as in the source.
// Used by the fuzz target fuzz_copy_through (the bytes choose the source)
// and by a doctest over the shipped models (a seeded generator chooses).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace copy_oracle {

// Reads choices from bytes; past the end every choice is 0.
class Choices {
 public:
  Choices(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  unsigned next(unsigned n) { return n == 0 ? 0 : (at_ < size_ ? data_[at_++] : 0u) % n; }
  bool done() const { return at_ >= size_; }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

struct Source {
  std::string text;
  std::vector<std::string> spans;  // what must come out, as generated (distinct)
};

inline std::string pick(Choices& c, std::initializer_list<const char*> xs) {
  return *(xs.begin() + c.next(static_cast<unsigned>(xs.size())));
}

inline std::string alnum(Choices& c, unsigned min, unsigned max) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  const unsigned n = min + c.next(max - min + 1);
  for (unsigned i = 0; i < n; ++i) s += kChars[i == 0 ? c.next(26) : c.next(36)];
  return s;
}

inline std::string escape(Choices& c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string s = "%";
  s += kHex[c.next(16)];
  s += kHex[c.next(16)];
  return s;
}

// A path segment: a name (letters and digits) first, then %XX escapes and
// names. (A link whose letters all belong to formats, "./%20/%00a", is
// formats: links.hpp.)
inline std::string segment(Choices& c) {
  std::string s = alnum(c, 2, 6);
  for (unsigned parts = c.next(3), i = 0; i < parts; ++i) s += c.next(2) == 0 ? escape(c) : alnum(c, 1, 6);
  return s;
}

inline std::string span(Choices& c) {
  switch (c.next(6)) {
    case 0: {  // URL
      std::string u = pick(c, {"https://", "http://", "ftp://"}) + alnum(c, 2, 8) + pick(c, {".org", ".com", ".de/x"});
      for (unsigned i = 0, n = c.next(4); i < n; ++i) u += "/" + segment(c);
      if (c.next(3) == 0) u += "?" + alnum(c, 1, 3) + "=" + segment(c);
      return u;
    }
    case 1: {  // path
      std::string p = pick(c, {"/", "~/", "./", "/usr/"});
      p += segment(c);
      for (unsigned i = 0, n = 1 + c.next(3); i < n; ++i) p += "/" + segment(c);
      return p;
    }
    case 2:  // e-mail
      return alnum(c, 1, 6) + (c.next(2) ? escape(c) : "") + "@" + alnum(c, 2, 6) + ".org";
    case 3: {  // a number of two digits or more
      std::string n = std::to_string(10 + c.next(250) * 37 + c.next(100));
      if (c.next(4) == 0) n += pick(c, {",000", ":30", "-2"});
      return n;
    }
    case 4:
      return pick(c, {"%s", "%d", "%1$s", "%2$d", "{name}", "{0}", "%(count)d", "&amp;"});
    default:
      return pick(c, {"x86_64", "libfoo-dev", "--help", "GtkWidget", "wasy10", "$HOME"});
  }
}

// A sentence of up to 12 words and up to 3 spans, distinct, each a word of its own.
inline Source generate(Choices& c) {
  static constexpr const char* kWords[] = {"the", "file", "is", "saved", "in", "a", "folder", "open", "see",
                                           "for", "details", "download", "from", "and", "install", "it", "page",
                                           "your", "program", "could", "not", "read", "write", "to", "mail",
                                           "contact", "version", "new", "old", "size", "of", "with"};
  Source s;
  const unsigned words = 2 + c.next(11), spans = 1 + c.next(3);
  std::vector<unsigned> at;
  for (unsigned k = 0; k < spans; ++k) at.push_back(c.next(words + 1));
  for (unsigned i = 0; i <= words; ++i) {
    for (unsigned where : at)
      if (where == i) {
        std::string x = span(c);
        bool fresh = true;
        for (const std::string& y : s.spans)
          fresh = fresh && x.find(y) == std::string::npos && y.find(x) == std::string::npos;
        if (!fresh) continue;
        if (!s.text.empty()) s.text += ' ';
        s.text += x;
        s.spans.push_back(x);
      }
    if (i == words) break;
    if (!s.text.empty()) s.text += ' ';
    std::string w = kWords[c.next(sizeof kWords / sizeof *kWords)];
    if (s.text.empty()) w[0] = static_cast<char>(w[0] - 'a' + 'A');
    s.text += w;
  }
  s.text += pick(c, {".", "", "!", "?"});
  return s;
}

inline bool word_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

// Occurrences of `span` in `text`, without overlaps: a placeholder (it
// starts with % { & <) anywhere, as the program that formats the text reads
// it; anything else with no letter, digit or '_' glued on (where the span's
// own end is one).
inline std::size_t count(std::string_view text, std::string_view span) {
  const bool placeholder = span.front() == '%' || span.front() == '{' || span.front() == '&' || span.front() == '<';
  std::size_t n = 0;
  for (std::size_t at = text.find(span); at != std::string_view::npos;) {
    const std::size_t end = at + span.size();
    if (placeholder || ((at == 0 || !word_char(text[at - 1]) || !word_char(span.front())) &&
                        (end == text.size() || !word_char(text[end]) || !word_char(span.back())))) {
      ++n;
      at = text.find(span, end);
    } else {
      at = text.find(span, at + 1);
    }
  }
  return n;
}

// Empty when `output` holds each span of `source` as many times as its text
// does; else what is wrong. What the caller gave counts too: a target prefix
// starts the translation, so a span it holds is the source's (as many as the
// more of the two); glossary targets (`added`) come on top.
inline std::string check(const Source& source, std::string_view output, std::string_view prefix = {},
                         std::string_view added = {}) {
  for (const std::string& s : source.spans) {
    const std::size_t want = std::max(count(source.text, s), count(prefix, s)) + count(added, s);
    const std::size_t got = count(output, s);
    if (got != want)
      return "\"" + s + "\" " + std::to_string(got) + " times in \"" + std::string(output) + "\" (" +
             std::to_string(want) + " in \"" + source.text + "\")";
  }
  return {};
}

}  // namespace copy_oracle
