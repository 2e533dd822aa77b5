#include "text/tokenize.hpp"

#include <sentencepiece_processor.h>

#include <algorithm>

namespace softalign::internal {

namespace {

bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool ascii_punct(char c) {
  return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == ')' || c == ']' || c == '}';
}

}  // namespace

std::size_t chunk_end(std::string_view text, std::size_t begin) {
  if (text.size() - begin <= kTokenizeChunkBytes) return text.size();
  const std::size_t limit = begin + kTokenizeChunkBytes, half = begin + kTokenizeChunkBytes / 2;
  for (std::size_t i = limit; i > half; --i)
    if (ascii_space(text[i - 1])) return i - 1;  // the next chunk starts with the space
  for (std::size_t i = limit; i > half; --i)
    if (ascii_punct(text[i - 1])) return i;
  std::size_t cut = limit;  // not inside a UTF-8 sequence (10xxxxxx continues one)
  while (cut > begin + 1 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

namespace {

void split_tokens(const sentencepiece::SentencePieceProcessor& sp, std::string_view text,
                  std::vector<SourcePiece>* out) {
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && ascii_space(text[i])) ++i;
    const std::size_t begin = i;
    while (i < text.size() && !ascii_space(text[i])) ++i;
    if (i == begin) break;
    SourcePiece s;
    s.piece = std::string(text.substr(begin, i - begin));
    s.id = static_cast<int32_t>(sp.PieceToId(s.piece));  // unk for a token it does not list
    s.bytes = {begin, i};
    out->push_back(std::move(s));
  }
}

}  // namespace

Status tokenize_source(const sentencepiece::SentencePieceProcessor& sp, std::string_view text, bool pretokenized,
                       std::vector<SourcePiece>* out) {
  out->clear();
  if (pretokenized) {
    split_tokens(sp, text, out);
    return Status::Ok();
  }
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = chunk_end(text, begin);
    const std::string_view chunk = text.substr(begin, end - begin);
    const sentencepiece::ImmutableSentencePieceText spt = sp.EncodeAsImmutableProto(chunk);
    for (std::size_t i = 0; i < spt.pieces_size(); ++i) {
      const auto p = spt.pieces(static_cast<int>(i));
      SourcePiece s;
      s.id = static_cast<int32_t>(p.id());
      s.piece = p.piece();
      s.bytes = {begin + std::min<std::size_t>(p.begin(), chunk.size()),
                 begin + std::min<std::size_t>(p.end(), chunk.size())};
      out->push_back(std::move(s));
    }
    begin = end;
  }
  return Status::Ok();
}

Status detokenize(const sentencepiece::SentencePieceProcessor& sp, bool pretokenized, const int32_t* ids,
                  std::size_t n, std::string* text) {
  text->clear();
  const int size = sp.GetPieceSize();
  if (pretokenized) {
    for (std::size_t i = 0; i < n; ++i) {
      if (ids[i] < 0 || ids[i] >= size || sp.IsControl(ids[i])) continue;
      if (!text->empty()) text->push_back(' ');
      text->append(sp.IdToPiece(ids[i]));
    }
    return Status::Ok();
  }
  std::vector<int> known;
  known.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (ids[i] >= 0 && ids[i] < size) known.push_back(ids[i]);
  const auto st = sp.Decode(known, text);
  if (!st.ok()) return Status(StatusCode::kInternal, "SentencePiece: " + st.ToString());
  return Status::Ok();
}

}  // namespace softalign::internal
