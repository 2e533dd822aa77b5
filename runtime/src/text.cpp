#include "text.hpp"

#include <sentencepiece_processor.h>

#include <algorithm>

#include "guard.hpp"
#include "model_impl.hpp"
#include "softalign/model.hpp"
#include "tokenize.hpp"

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

std::vector<AlignmentLink> hard_alignment(const float* att, std::size_t target_rows, std::size_t source_len,
                                          std::size_t source_cols) {
  std::vector<AlignmentLink> links;
  if (source_cols == 0) return links;
  for (std::size_t i = 0; i < target_rows; ++i) {
    const float* row = att + i * source_len;
    std::size_t best = 0;
    for (std::size_t j = 1; j < source_cols; ++j)
      if (row[j] > row[best]) best = j;
    links.push_back({static_cast<int>(best), static_cast<int>(i)});
  }
  return links;
}

std::vector<int> word_index(const std::vector<std::string>& pieces) {
  std::vector<int> words;
  int w = -1;
  for (const std::string& p : pieces) {
    if (w < 0 || p.rfind("\xE2\x96\x81", 0) == 0) ++w;
    words.push_back(w);
  }
  return words;
}

std::vector<AlignmentLink> word_alignment(const std::vector<AlignmentLink>& piece_links,
                                          const std::vector<int>& src_words, const std::vector<int>& tgt_words) {
  std::vector<AlignmentLink> out;
  for (const AlignmentLink& l : piece_links) {
    if (l.source < 0 || static_cast<std::size_t>(l.source) >= src_words.size() || l.target < 0 ||
        static_cast<std::size_t>(l.target) >= tgt_words.size())
      continue;
    out.push_back({src_words[l.source], tgt_words[l.target]});
  }
  std::sort(out.begin(), out.end(), [](const AlignmentLink& a, const AlignmentLink& b) {
    return a.source != b.source ? a.source < b.source : a.target < b.target;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const AlignmentLink& a, const AlignmentLink& b) {
                          return a.source == b.source && a.target == b.target;
                        }),
            out.end());
  return out;
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

std::string to_pharaoh(const std::vector<AlignmentLink>& links) {
  std::string out;
  for (const AlignmentLink& l : links) {
    if (!out.empty()) out += ' ';
    out += std::to_string(l.source) + "-" + std::to_string(l.target);
  }
  return out;
}

Status Model::encode_source(std::string_view text, std::vector<int32_t>* ids, std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (ids == nullptr) return Status(StatusCode::kInvalidArgument, "ids is null");
    if (internal::find_invalid_utf8(text) != std::string_view::npos)
      return Status(StatusCode::kInvalidUtf8, "the text is not valid UTF-8");
    std::vector<internal::SourcePiece> source;
    const Status st = internal::tokenize_source(*impl_->src_spm, text, &source);
    if (!st.ok()) return st;
    ids->clear();
    if (pieces != nullptr) pieces->clear();
    for (internal::SourcePiece& p : source) {
      ids->push_back(p.id);
      if (pieces != nullptr) pieces->push_back(std::move(p.piece));
    }
    ids->push_back(impl_->config.eos_id);
    return Status::Ok();
  });
}

Status Model::encode_target(std::string_view text, std::vector<int32_t>* ids, std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (ids == nullptr) return Status(StatusCode::kInvalidArgument, "ids is null");
    if (internal::find_invalid_utf8(text) != std::string_view::npos)
      return Status(StatusCode::kInvalidUtf8, "the text is not valid UTF-8");
    const sentencepiece::SentencePieceProcessor* sp = nullptr;
    Status st = impl_->target_encoder(&sp);
    if (!st.ok()) return st;
    std::vector<int> raw;
    const auto enc = sp->Encode(text, &raw);
    if (!enc.ok()) return Status(StatusCode::kInvalidArgument, "SentencePiece: " + enc.ToString());
    ids->assign(raw.begin(), raw.end());
    if (pieces != nullptr) {
      pieces->clear();
      for (int id : raw) pieces->push_back(sp->IdToPiece(id));
    }
    return Status::Ok();
  });
}

Status Model::decode_target(const int32_t* ids, std::size_t n, std::string* text,
                            std::vector<std::string>* pieces) const {
  return internal::guarded([&]() -> Status {
    if (text == nullptr || (ids == nullptr && n > 0)) return Status(StatusCode::kInvalidArgument, "null argument");
    const sentencepiece::SentencePieceProcessor* sp = impl_->tgt();
    const int size = sp->GetPieceSize();
    std::vector<int> raw;
    raw.reserve(n);
    if (pieces != nullptr) pieces->clear();
    for (std::size_t i = 0; i < n; ++i) {
      const int id = ids[i];
      const bool known = id >= 0 && id < size;
      if (pieces != nullptr) pieces->push_back(known ? sp->IdToPiece(id) : std::string("<unk>"));
      if (known) raw.push_back(id);
    }
    text->clear();
    const auto st = sp->Decode(raw, text);
    if (!st.ok()) return Status(StatusCode::kInternal, "SentencePiece: " + st.ToString());
    return Status::Ok();
  });
}

}  // namespace softalign
