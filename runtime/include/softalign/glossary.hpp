// softalign — glossaries: source terms that must come out as given target
// terms (a product's names, an organisation's terminology).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "softalign/export.h"
#include "softalign/status.hpp"

namespace softalign {

// One entry: where `source` occurs in a text, its translation holds `target`.
//
// Matching: `source` occurs as whole words (when it starts with a letter or
// digit, none comes right before it; when it ends with one, none right
// after; '_' and any non-ASCII character but punctuation and spaces count as
// letters; nor is it part of a compound or identifier: '-', ':', '.', '/' or
// '@' right before or after it, with a letter or another of them beyond, as in
// file-based, crossfire-server, Plugin::Auth, index.html), with the case of its first letter ignored (ASCII and Latin-1
// letters: "save" matches "Save", "Home Assistant" matches "home Assistant"
// but not "home assistant"). Where terms overlap, the longest one starting
// first wins. With copy-through, a term inside or across a protected span (an
// identifier such as Catalyst::Plugin::Auth, a URL) does not match there; a
// protected span inside a term is part of the term.
//
// Output: `target` appears once for each occurrence, in place of the words the
// attention aligns to the source term (but short lower-case words such as
// articles, and copies of other source words; keeping an elision when
// `target` starts with a vowel, and the edge punctuation there), else right
// before the target word that attends to the term the most; with a capital
// first letter where it starts the output or a sentence in it. An output
// that already holds `target` as often as the source holds the term is left
// as it is; "holds" counts `target` with its first letter in either case, as
// a word, as the first part of a hyphenated compound ("Software-Codes"),
// (5 bytes or more) as the end of a compound ("Rasterbibliothek" holds
// "Bibliothek"), or (4 bytes or more, ending in an ASCII letter) at the start
// of a word with an inflectional ending of one or two small ASCII letters
// ("Paketen" holds "Pakete", "fichiers" holds "fichier") or as the head of a
// closed compound, four small ASCII letters or more following
// ("Clientbibliothek" holds "Client"): the model's own inflection or
// compound of a term is kept. Where a one-word target replaces a hyphenated
// word, only its last part is replaced ("Archiv-Plugin" becomes
// "Archiv-Erweiterung").
struct GlossaryTerm {
  std::string source;
  std::string target;
};

struct GlossaryLimits {
  static constexpr std::size_t kMaxTerms = 100000;
  static constexpr std::size_t kMaxTermBytes = 256;  // each of source and target
};

// Parses a glossary in TSV: one "source<TAB>target" line per term; blank
// lines (spaces only: a line with a tab is a term's) and lines starting with
// '#' are skipped; spaces around each field are
// removed; a line ending in "\r\n" is accepted. A line without exactly one
// tab, with an empty field, or a term TranslatorOptions would refuse
// (check_glossary) is an error naming the line. Terms are appended to *out.
SOFTALIGN_API Status parse_glossary_tsv(std::string_view tsv, std::vector<GlossaryTerm>* out);

// Whether Translator::prepare takes `terms`: each source and target valid
// UTF-8 without control characters, not empty, without spaces at either end,
// at most GlossaryLimits::kMaxTermBytes bytes; at most kMaxTerms terms; no
// source twice (as matched: first letter's case ignored) with different
// targets.
SOFTALIGN_API Status check_glossary(const std::vector<GlossaryTerm>& terms);

}  // namespace softalign
