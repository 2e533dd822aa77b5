// Fuzz target: an embedded SentencePiece model (a serialized ModelProto, as a
// model file holds it) through the runtime's loader (load_embedded_spm: the
// normaliser-table and piece checks, then SentencePiece), then, when it
// loads, text in every script the normaliser rewrites: full-width forms,
// ligatures, circled and enclosed forms, compatibility characters, combining
// marks, CJK and emoji. The custom mutator damages the normaliser tables
// (precompiled_charsmap: a 4-byte darts-clone unit, the size header or a
// string byte) half of the time, since random byte edits of a 400 KB proto
// rarely hit them. Seeds: models/*/spm.model (tests/fuzz/run_fuzzers.sh).
#include <sentencepiece_processor.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "model/embedded_spm.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) __attribute__((weak));

namespace {

// Text the shipped models' nmt_nfkc normaliser rewrites, in many scripts.
const char* const kTexts[] = {
    "\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3 \xEF\xBD\x81\xEF\xBD\x82 \xEF\xBC\x91\xEF\xBC\x92",  // ＡＢＣ ａｂ １２
    "\xEF\xAC\x81le \xEF\xAC\x82ow \xEF\xAC\x80",                                             // ﬁle ﬂow ﬀ
    "\xE2\x91\xA0 \xE2\x91\xB4 \xE2\x92\xB6 \xE3\x88\xB1 \xE2\x84\xAB \xE2\x85\xAB",           // ① ⑴ Ⓐ ㈱ Å Ⅻ
    "\xE3\x8E\x8F \xE3\x8D\xBB \xE2\x84\xA2 \xC2\xBD \xC2\xB2 \xEF\xBD\xB6\xEF\xBE\x9E",      // ㎏ ㍻ ™ ½ ² ｶﾞ
    "cafe\xCC\x81 A\xCC\x8A n\xCC\x83 e\xCC\x81\xCC\x81\xCC\x81",                               // combining marks
    "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97\xE7\xAC\xA6 \xE3\x81\x82\xE3\x82\xA2 \xED\x95\x9C",  // CJK, kana, hangul
    "\xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xF0\x9F\x87\xAB\xF0\x9F\x87\xB7",       // emoji
    "\xD8\xA7\xD9\x84\xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A\xD8\xA9 \xE2\x80\xAE\xE2\x81\xA6x",      // Arabic, bidi
    "\xC2\x85\x7F\x01 \xE3\x80\x80 \xC2\xA0 tab\tend",                                        // C1, spaces
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view proto(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp;
  if (!softalign::internal::load_embedded_spm(proto, "fuzzed", &sp).ok()) return 0;
  for (const char* text : kTexts) {
    std::vector<int> ids;
    if (!sp->Encode(text, &ids).ok()) continue;
    std::string back;
    (void)sp->Decode(ids, &back);
    (void)sp->EncodeAsImmutableProto(text);
  }
  return 0;
}

// Half of the mutations land in a normaliser table (when the input has one).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937 rng(seed);
  const auto ranges = softalign::internal::precompiled_charsmap_ranges(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (ranges.empty() || rng() % 2 == 0) return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max_size) : size;
  const auto [begin, length] = ranges[rng() % ranges.size()];
  if (length < 8) return size;
  uint8_t* table = data + begin;
  uint32_t trie = 0;
  std::memcpy(&trie, table, 4);
  uint32_t value = static_cast<uint32_t>(rng());
  std::size_t at = 0;
  switch (rng() % 4) {
    case 0:  // the size header
      at = 0;
      value = rng() % 2 ? trie + 4 * (rng() % 64) : value;
      break;
    case 1:  // a unit, set to a large value (a far offset or leaf value)
      at = 4 + 4 * (rng() % ((length - 4) / 4));
      value = 0x7FFFFFF0u ^ (rng() % 16);
      break;
    case 2: {  // a unit, one bit flipped (label, has-leaf, offset, leaf value)
      at = 4 + 4 * (rng() % ((length - 4) / 4));
      std::memcpy(&value, table + at, 4);
      value ^= 1u << (rng() % 32);
      break;
    }
    default:  // a byte of the string block (a NUL removed, UTF-8 broken)
      at = length - 1 - rng() % std::min<std::size_t>(length - 4, 4096);
      table[at] = static_cast<uint8_t>(rng() % 2 ? 0xFF : 'x');
      return size;
  }
  if (at + 4 <= length) std::memcpy(table + at, &value, 4);
  return size;
}
