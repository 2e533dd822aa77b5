// Alignments from attention rows: hard piece links, and piece links mapped
// to word links (to_pharaoh, public in softalign/result.hpp, writes them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "softalign/result.hpp"

namespace softalign::internal {

// For each row i < target_rows, the argmax column over the first source_cols
// (ties: the lower column): links (j, i).
std::vector<AlignmentLink> hard_alignment(const float* att, std::size_t target_rows, std::size_t source_len,
                                          std::size_t source_cols);
// Word index of each SentencePiece piece (a piece starting with U+2581 starts a word).
std::vector<int> word_index(const std::vector<std::string>& pieces);
// Piece links mapped to word links: unique, sorted by (source, target).
std::vector<AlignmentLink> word_alignment(const std::vector<AlignmentLink>& piece_links,
                                          const std::vector<int>& src_words, const std::vector<int>& tgt_words);

}  // namespace softalign::internal
