// Loading a SentencePiece model embedded in a model file, with the checks
// SentencePiece itself does not make: it trusts its normaliser tables (a
// precompiled_charsmap is read by offsets taken from the table, with no
// bounds checks) and its piece strings.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "softalign/status.hpp"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace softalign::internal {

// A SentencePiece processor from a serialized ModelProto, or kInvalidModel
// naming `side` ("source", "target") and what is wrong: damaged normaliser
// tables (checked before SentencePiece reads them), a piece that is not valid
// UTF-8, or whatever SentencePiece refuses (as a status or an exception).
Status load_embedded_spm(std::string_view model_proto, const char* side,
                         std::unique_ptr<sentencepiece::SentencePieceProcessor>* out);

// Byte ranges (offset, length) of every precompiled_charsmap in a serialized
// ModelProto (normalizer_spec and denormalizer_spec); empty when there is none
// or the proto does not parse. For tests and fuzzers that damage the tables.
std::vector<std::pair<std::size_t, std::size_t>> precompiled_charsmap_ranges(std::string_view model_proto);

// Checks the precompiled_charsmap of every normalizer_spec and
// denormalizer_spec in a serialized SentencePiece ModelProto: its size
// header, every darts-clone unit any lookup can read (each transition's block
// inside the array, each leaf's value inside the string block) and every
// string a leaf points to (NUL-terminated inside the block, valid UTF-8).
// Returns an empty string when all is sound, else what is wrong.
std::string check_spm_normalizers(std::string_view model_proto);

// Checks one precompiled_charsmap blob (the format SentencePiece's
// Normalizer reads: a little-endian uint32 trie size, the darts-clone
// double array, then the block of NUL-terminated replacement strings).
// Empty when sound, else what is wrong.
std::string check_precompiled_charsmap(std::string_view blob);

}  // namespace softalign::internal
