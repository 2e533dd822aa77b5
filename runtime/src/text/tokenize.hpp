// Source tokenisation in bounded chunks: SentencePiece's time grows with the
// square of a run it has no pieces for (160,000 emoji took 2.7 s, CJK 2.0 s),
// so a long text goes to it in chunks of at most kTokenizeChunkBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "softalign/result.hpp"
#include "softalign/status.hpp"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace softalign::internal {

constexpr std::size_t kTokenizeChunkBytes = 2048;

// Where the chunk of `text` starting at `begin` ends: the end of the text when
// at most kTokenizeChunkBytes remain, else the last ASCII whitespace of the
// chunk's second half (where the pieces are those of the whole text: no piece
// crosses a word boundary), else just after its last ASCII punctuation, else
// the last UTF-8 character boundary within the bound (in such a run of 2 KiB
// without a space the pieces may differ from one call on the whole run).
std::size_t chunk_end(std::string_view text, std::size_t begin);

// One source piece: its id, its string and the bytes of `text` it covers.
struct SourcePiece {
  int32_t id = 0;
  std::string piece;
  TextRange bytes;
};

// The pieces of `text` (valid UTF-8), chunk by chunk; time linear in its size.
// A pretokenized model's (ModelConfig::pretokenized): its tokens, cut at ASCII
// whitespace, each the id sp lists it under (an unknown one: unk).
Status tokenize_source(const sentencepiece::SentencePieceProcessor& sp, std::string_view text, bool pretokenized,
                       std::vector<SourcePiece>* out);

// The text of target ids: SentencePiece's decoding, or a pretokenized model's
// tokens joined by single spaces (control ids, such as BOS and PAD, left out).
// Ids outside sp's pieces are left out.
Status detokenize(const sentencepiece::SentencePieceProcessor& sp, bool pretokenized, const int32_t* ids,
                  std::size_t n, std::string* text);

}  // namespace softalign::internal
