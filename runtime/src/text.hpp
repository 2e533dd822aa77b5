// Text helpers around the numeric core: UTF-8 checks, sentence splitting,
// hard alignments from attention rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "softalign/result.hpp"
#include "softalign/text.hpp"  // escape_controls (public)

namespace softalign::internal {

// The one rule for text, which every path that takes text applies (translate,
// translate_batch, encode, target prefixes, glossary terms; the bindings pass
// their strings through unchanged so that it decides): text is UTF-8 (RFC 3629:
// no overlongs, no surrogates, ≤ U+10FFFF) without NUL. A NUL is refused as
// invalid bytes are: a C string cannot carry it, so a text holding one would mean
// one thing in C and another in Python, Java or JS.
//
// Index of the first byte that breaks the rule (a NUL, or a byte that is not
// part of valid UTF-8), or npos when all of `s` is valid text.
std::size_t find_invalid_utf8(std::string_view s);
// Bytes from the start of `s` (where find_invalid_utf8 found bad text) that
// replace_invalid_utf8 writes as one U+FFFD: 3 for an encoded surrogate (ED
// A0..BF 80..BF: a lone surrogate of a Python, Java or JS string, as the
// bindings encode it), 2 for C0 80 (NUL in modified UTF-8, as the Java and JS
// bindings pass a NUL through C strings), else 1 (a NUL, any other invalid
// byte); so one bad character of a string is one U+FFFD on every surface.
std::size_t invalid_unit_length(std::string_view s);
// `s` with each invalid unit (above) replaced by U+FFFD.
std::string replace_invalid_utf8(std::string_view s);
// True when `s` holds only ASCII whitespace (or nothing).
bool is_blank(std::string_view s);
// `c` in small letters when it is an ASCII capital, else `c`.
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
// Whether `a` and `b` are equal but for the case of ASCII letters.
bool equal_ignoring_ascii_case(std::string_view a, std::string_view b);
// The splitters of a source too long for the model. None cuts strictly
// inside a range of `keep` (sorted, disjoint byte ranges: the protected spans,
// so that code in backquotes or a URL stays in one part), except split_halves
// when the text has no other place to cut.
//
// Splits after '.', '!', '?' (and their runs, closing quotes/brackets) followed
// by whitespace; the parts keep their text, trimmed.
std::vector<std::string> split_sentences(std::string_view s, const std::vector<TextRange>& keep = {});
// Splits after ';', ':', ',' followed by whitespace; trimmed, as above.
std::vector<std::string> split_clauses(std::string_view s, const std::vector<TextRange>& keep = {});
// Two halves: at the whitespace nearest the middle, or else at the UTF-8
// character boundary nearest it; one part when `s` is one character.
std::vector<std::string> split_halves(std::string_view s, const std::vector<TextRange>& keep = {});

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
