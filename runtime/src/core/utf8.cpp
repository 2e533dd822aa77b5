#include "core/utf8.hpp"

#include <cstdint>

namespace softalign {

namespace internal {

std::size_t find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char b = p[i];
    std::size_t len;
    uint32_t cp;
    if (b < 0x80) {
      if (b == 0) return i;  // NUL: not text (the rule above)
      ++i;
      continue;
    } else if ((b & 0xe0) == 0xc0) {
      len = 2;
      cp = b & 0x1f;
    } else if ((b & 0xf0) == 0xe0) {
      len = 3;
      cp = b & 0x0f;
    } else if ((b & 0xf8) == 0xf0) {
      len = 4;
      cp = b & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::size_t invalid_unit_length(std::string_view s) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  // A surrogate's 3 bytes, ED A0..BF 80..BF (a lone surrogate of a UTF-16 string).
  if (byte(0) == 0xED && byte(1) >= 0xA0 && byte(1) <= 0xBF && (byte(2) & 0xC0) == 0x80) return 3;
  // NUL in modified UTF-8.
  if (byte(0) == 0xC0 && byte(1) == 0x80) return 2;
  return s.empty() ? 0 : 1;
}

std::string replace_invalid_utf8(std::string_view s) {
  std::string out;
  while (!s.empty()) {
    const std::size_t bad = find_invalid_utf8(s);
    if (bad == std::string_view::npos) {
      out.append(s);
      break;
    }
    out.append(s.substr(0, bad));
    out.append("\xEF\xBF\xBD");
    s.remove_prefix(bad + invalid_unit_length(s.substr(bad)));
  }
  return out;
}

bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

bool is_blank(std::string_view s) {
  for (char ch : s)
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' && ch != '\v') return false;
  return true;
}

}  // namespace internal

namespace {

// The characters beyond ASCII that escape_controls escapes: the C1 controls
// (U+0085 breaks a line, U+009B starts a terminal's escape sequence), the line
// and paragraph separators, and Unicode's Bidi_Control characters (marks,
// embeddings, overrides, isolates), which reorder the text shown after them.
bool is_escaped_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string escape_controls(std::string_view s) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A UTF-8 character, or a byte that does not start one (written as \xHH).
    const std::size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || internal::find_invalid_utf8(s.substr(i, len)) != std::string_view::npos) {
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      ++i;
      continue;
    }
    uint32_t cp = c & (0x7f >> len);
    for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    if (is_escaped_code_point(cp))  // all below U+10000: four digits
      out += std::string("\\u") + kHex[cp >> 12] + kHex[(cp >> 8) & 15] + kHex[(cp >> 4) & 15] + kHex[cp & 15];
    else
      out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace softalign
