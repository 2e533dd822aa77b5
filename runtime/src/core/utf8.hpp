// The one rule for text (UTF-8 without NUL) and the byte-level helpers every
// layer uses to apply it; escape_controls (public: softalign/text.hpp) is
// defined beside them.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace softalign::internal
