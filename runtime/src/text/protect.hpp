// Protected spans: the parts of a source text that are copied, never
// translated (placeholders, URLs, e-mail addresses, paths, versions,
// identifiers, code).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "softalign/result.hpp"

namespace softalign::internal {

// The protected spans of `text`, in order, disjoint and non-empty:
// - each placeholder (placeholders.hpp: printf, Python and Qt formats,
//   braces, markup tags, entities) outside code, a span of its own;
// - each link (links.hpp: a URL, e-mail address or path, percent-escapes and
//   all) outside code, a span of its own;
// - code in backquotes (`...`, ``...``: the same run of backquotes closes it,
//   at most kMaxCodeBytes further), backquotes included;
// - and each whitespace-separated token (outside code, cut at placeholders
//   and links), without its surrounding quotes and punctuation, that is
//   - a link,
//   - a version or dotted number (1.2, v5.3, 2.6.32-5-amd64),
//   - a number of two digits or more (13908, 2014, 1149-1, 2-12, 1,000),
//   - an identifier: with '_', '::', '()', '$NAME', a
//     command-line option (-v, --help), letters and digits together (wasy10,
//     libc6; but not 2nd, 64-bit, 10MB), an inner capital (GtkWidget,
//     iCalendar), a dot between letters (yc.el, index.php; not e.g.), or a
//     package name (lib...-..., ...-dev, ...-doc and other package suffixes).
// Plain words, one-digit numbers, numbers with a unit or an ordinal ending
// (10MB, 64-bit, 21st), acronyms and hyphenated English words are not
// protected. Any bytes are accepted (UTF-8 or not); linear in the text size.
std::vector<TextRange> find_protected_spans(std::string_view text);

constexpr std::size_t kMaxCodeBytes = 256;

}  // namespace softalign::internal
