// The placeholder guarantee (TranslatorOptions::repair_placeholders): every
// placeholder of a source (placeholders.hpp: formats, braces, tags, entities)
// exactly once in its translation, no other, and the source's tag pairs
// nested as in the source.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace softalign::internal {

// Whether `output` must change for the guarantee; if so, *repaired (when not
// null) is `output` changed as little as this rule does, else `output`:
// 1. The output's placeholders are matched to the source's: the same text, in
//    order; then an unmatched one to an unmatched source placeholder of the
//    same kind, in order (it takes that one's text: "%d" for "%i", "%33" for
//    "%3"). Those left unmatched are removed (with a space beside them).
// 2. A source placeholder still missing is inserted: right after the one
//    before it in the source, when only spaces and punctuation lie between
//    them there (else right before the one after it, likewise); else at the
//    start or the end (before final punctuation) when it starts or ends the
//    source; else at the word boundary at the same share of the text. (With
//    copy-through on, copy_through() has already put a missing one after the
//    translation of the word before it, by the attention.)
// 3. When the tags that form pairs in the source are not nested in the
//    output as they are there (each pair open before it closes, inside the
//    same enclosing pair), their texts are put back in the source's order
//    into the places the output has for them: tags stay where the words they
//    wrap are, as far as the order allows.
// Time: O((s + o) log(s + o)) for s and o placeholders; any bytes accepted.
//
// What the caller gave besides the source (RepairGiven) is kept as given:
// - an insertion never falls strictly inside an occurrence in `output` of a
//   string of `keep_whole` (the glossary's target terms);
// - the placeholders of the `given` texts (the target terms of the source's
//   glossary matches) may be in the output besides the source's: after step
//   1's matches by text, an unmatched output placeholder with a given one's
//   text takes it (each given one once) and stays;
// - output bytes [0, fixed_prefix) (the target prefix) are never changed:
//   their placeholders stay (matched by text to the source's first, so a
//   prefix's "%s" is the source's "%s"), nothing is inserted before
//   fixed_prefix, and their tags are not reordered.
struct RepairGiven {
  std::vector<std::string> keep_whole;
  std::vector<std::string> given;
  std::size_t fixed_prefix = 0;
};
bool repair_placeholders(std::string_view source, std::string_view output, std::string* repaired,
                         const RepairGiven& given = {});

// Whether `output` holds the placeholders of `source` as the guarantee says
// (repair_placeholders would change nothing).
bool placeholders_intact(std::string_view source, std::string_view output, const RepairGiven& given = {});

}  // namespace softalign::internal
