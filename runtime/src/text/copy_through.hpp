// Copying names and identifiers through a translation (TranslatorOptions::
// copy_through): the source's protected spans (protect.hpp) and the words the
// model could not render (<unk>) are put back into the output from the
// attention's hard alignment. (Giving the model each span as one <unk>
// source piece instead, and restoring it the same way, lowered BLEU by 1.4-2.4
// on the DDTP dev sets: the models were not trained with placeholders.)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "softalign/model.hpp"
#include "softalign/options.hpp"
#include "softalign/result.hpp"
#include "text/glossary_index.hpp"
#include "text/protect.hpp"

namespace softalign::internal {

// What copy-through knows of one source: its text, the spans its output must
// hold (protected spans, copied; glossary matches, as their target terms) and
// where each source piece lies in the text.
struct CopyPlan {
  bool active = false;               // copy-through or a glossary is on for this source
  std::string_view text;             // the source text (outlives the plan's use)
  std::vector<TextRange> spans;       // protected spans and glossary matches, in order, disjoint
  // What the output holds for span k: its text, or the term's target (a view
  // of the text or of the translator's glossary, which outlive the plan).
  std::vector<std::string_view> span_out;
  std::vector<bool> span_term;        // span k is a glossary match
  std::vector<TextRange> piece_bytes; // source piece j's bytes in `text` (EOS excluded)
  std::vector<int> piece_span;       // the span source piece j lies in, or -1

  std::vector<TextRange> protected_spans() const;  // the spans that are not glossary matches
  std::vector<TextRange> glossary_matches() const;
};

// Tokenises `text` as Model::encode_source does and, when `copy` is on or
// `glossary` has terms, fills `plan` (with the protected spans only when
// `copy`). A protected span of more than `max_span_pieces` pieces (a long
// URL: more than the model can take, so a split would cut it) enters the
// model as one <unk> piece instead, which copy_through() puts back whole.
Status encode_for_copy(const Model& model, std::string_view text, bool copy, const GlossaryIndex* glossary,
                       std::vector<int32_t>* ids, std::vector<std::string>* pieces, CopyPlan* plan,
                       std::size_t max_span_pieces = static_cast<std::size_t>(-1));

// Rewrites h->text (decoded from `v`, whose pieces are h->pieces): each
// protected span missing from it replaces the target words aligned to it that
// look like a copy of it (a glossary match's target term: the run of target
// words aligned to it, one unaligned word inside the run allowed), keeping
// their edge punctuation and elision ("l'"), or, when no target piece aligns
// to it, is inserted after the target word aligned to the
// nearest source piece before it (else before the one aligned to the nearest
// after it, else at the end); each target <unk> becomes the source word (or
// span) it aligns to. h->ids, h->pieces and the alignments stay the model's.
// How many times a glossary target term is in `text`, by the rule of
// softalign/glossary.hpp ("holds": a word, a compound's part, an inflection).
std::size_t count_term(std::string_view text, std::string_view target);

// What replaces `orig`, the target text taken for a glossary term, to hold
// `target`: replacement()'s rule, except that an elision before it stays only
// when `target` starts with a vowel or 'h' ("d'enregistrer" -> "de
// sauvegarder"; "l'" before a capitalised name goes), a hyphenated `orig`
// keeps all but its last part for a one-word `target` ("Archiv-Plugin" ->
// "Archiv-Erweiterung"), and `target` (or what stands for the elision) takes
// a capital first letter at a sentence start.
std::string term_replacement(std::string_view orig, std::string_view target, char before, char after,
                             bool sentence_start);

// The first `fixed_pieces` target pieces (a target prefix) stay as they are,
// and nothing is inserted before them.
Status copy_through(const Model& model, const CopyPlan& plan, const HypothesisView& v, std::size_t fixed_pieces,
                    Hypothesis* h);

// `text` with each copied span (`copies`: a span's text, how many times the
// source holds it) there no more often than in the source: a whitespace
// token (less its edge punctuation) that is a span once more than the source
// has it goes, and so does a garbled copy of a link (is_link: a link-shaped
// token like a source link, copy_like, that is no span; or a source link with
// a tail glued on). A dropped token that held a span the text would then lack
// is replaced by that span. The text's first `fixed` bytes (a target prefix)
// are left as they are. copy_through() ends with it.
std::string tidy_copies(std::string_view text, const std::map<std::string_view, std::size_t>& copies,
                        std::size_t fixed = 0);

// Whether a target word looks like a (garbled) copy of `span`: they share a
// substring (case ignored) of 3 bytes or more, or of 2 when the word holds a
// digit or '_' (wasy10 -> a1010); or the word is the first one or two bytes
// of a format ("%" for "%s"); or both are numbers (digits, with , . : - /),
// as "1" and "78" for 13908. Both are cut at 256 bytes.
bool copy_like(std::string_view word, std::string_view span);

// What replaces `orig`, the target text taken for `span` (`before` and
// `after`: the source's characters around the span): the span, keeping
// orig's leading elision ("l'", "d’"), its quotes and closing punctuation
// (brackets only when the source has the same next to the span), and in a
// hyphenated compound ("FarbCor-Bibliothek") the words before and after the
// parts that look like the span ("ColorCorrect-Bibliothek").
std::string replacement(std::string_view orig, std::string_view span, char before, char after);

}  // namespace softalign::internal
