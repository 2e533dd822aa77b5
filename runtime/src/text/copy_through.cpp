#include "text/copy_through.hpp"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "core/guard.hpp"
#include "core/utf8.hpp"
#include "model/model_impl.hpp"
#include "text/alignment.hpp"
#include "text/links.hpp"
#include "text/placeholders.hpp"
#include "text/tokenize.hpp"

namespace softalign::internal {

namespace {

constexpr std::string_view kWordStart = "\xE2\x96\x81";  // U+2581, SentencePiece's space

bool starts_word(const std::string& piece) { return piece.compare(0, kWordStart.size(), kWordStart) == 0; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Punctuation at the edges of a replaced target range.
bool edge_opening(char c) { return c == '(' || c == '[' || c == '{' || c == '"' || c == '\'' || c == '<'; }
bool edge_closing(char c) {
  return c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == '.' || c == ',' || c == ';' ||
         c == ':' || c == '!' || c == '?' || c == '>';
}
bool is_bracket(char c) {
  return c == '(' || c == '[' || c == '{' || c == '<' || c == ')' || c == ']' || c == '}' || c == '>';
}

// The source word around bytes [b, e): the whitespace-separated run holding
// them, without its edge punctuation (unless that is all it is).
std::string_view source_word(std::string_view text, TextRange piece) {
  std::size_t b = std::min(piece.begin, text.size()), e = std::min(std::max(piece.end, b), text.size());
  while (b < e && is_space(text[b])) ++b;
  if (b == e) return {};
  while (b > 0 && !is_space(text[b - 1])) --b;
  while (e < text.size() && !is_space(text[e])) ++e;
  const std::string_view word = text.substr(b, e - b);
  std::size_t lo = 0, hi = word.size();
  while (lo < hi && edge_opening(word[lo])) ++lo;
  while (hi > lo && edge_closing(word[hi - 1])) --hi;
  return lo < hi ? word.substr(lo, hi - lo) : word;
}

// How many times `needle` occurs in `hay` as a whole token (no letter, digit
// or '_' right before or after it), without overlaps, counting up to `most`.
std::size_t count_tokens(std::string_view hay, std::string_view needle, std::size_t most) {
  auto word_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (needle.empty()) return most;
  std::size_t count = 0;
  for (std::size_t at = hay.find(needle); at != std::string_view::npos && count < most;) {
    const std::size_t end = at + needle.size();
    if ((at == 0 || !word_char(hay[at - 1]) || !word_char(needle.front())) &&
        (end == hay.size() || !word_char(hay[end]) || !word_char(needle.back()))) {
      ++count;
      at = hay.find(needle, end);
    } else {
      at = hay.find(needle, at + 1);
    }
  }
  return count;
}

bool contains_token(std::string_view hay, std::string_view needle) { return count_tokens(hay, needle, 1) > 0; }

// Whether `word` is a short lower-case word (an article, "de", "pour"): at most
// `most` ASCII letters, all small.
bool short_lowercase(std::string_view word, std::size_t most) {
  return word.size() <= most && std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

bool letter_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (static_cast<unsigned char>(c) & 0x80) != 0;
}

}  // namespace

std::size_t count_term(std::string_view text, std::string_view target) {
  if (target.empty()) return 0;
  const std::string forms[2] = {fold_first_letter(target), capitalise_first_letter(target)};
  std::size_t count = 0;
  for (std::size_t p = 0; p < text.size();) {
    bool found = false;
    for (const std::string& f : forms) {
      if (text.compare(p, f.size(), f) != 0) continue;
      const std::size_t e = p + f.size();
      const bool ends = e == text.size() || !letter_byte(text[e]) || !letter_byte(f.back());
      const bool starts = p == 0 || !letter_byte(text[p - 1]) || !letter_byte(f.front());
      // As a word, as the first part of a hyphenated compound (Software-Codes),
      // or in small letters as the end of a compound (Rasterbibliothek).
      if ((starts && (ends || text[e] == '-')) || (ends && &f == &forms[0] && f != forms[1] && f.size() >= 5)) {
        found = true;
        p = e;
        break;
      }
      // With an inflectional ending of one or two small letters (Paketen,
      // fichiers), or as the head of a closed compound: four small letters or
      // more follow (Clientbibliothek).
      std::size_t k = e;
      while (k < text.size() && text[k] >= 'a' && text[k] <= 'z') ++k;
      const bool word_end = k == text.size() || !letter_byte(text[k]) || text[k] == '-';
      const bool inflected = k > e && word_end && (k - e <= 2 || k - e >= 4);
      if (starts && inflected && f.size() >= 4 && std::isalpha(static_cast<unsigned char>(f.back()))) {
        found = true;
        p = k;
        break;
      }
    }
    if (found) ++count;
    else ++p;
  }
  return count;
}

namespace {

// One change to the target: pieces [first, last) become `text` (first ==
// last: inserted before piece `first`). own_word: `text` is a word of its
// own (a space before it unless the output ends in a space or an elision).
struct Edit {
  int first = 0;
  int last = 0;
  std::string text;
  bool own_word = false;
};

}  // namespace

bool copy_like(std::string_view word, std::string_view span) {
  if (!word.empty() && word.size() <= 2 && word[0] == '%' && span.substr(0, word.size()) == word) return true;
  // A number the model garbled ("1 78" for 13908): any number stands for a number.
  auto number = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return (c >= '0' && c <= '9') || c == ',' || c == '.' || c == ':' || c == '-' || c == '/';
    }) && std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (number(word) && number(span)) return true;
  word = word.substr(0, 256);
  span = span.substr(0, 256);
  bool identifier = false;  // the word holds a digit or '_'
  for (char c : word) identifier = identifier || (c >= '0' && c <= '9') || c == '_';
  // Longest common substring: run[j] = length of the common run ending at word[i], span[j].
  std::vector<int> run(span.size() + 1, 0);
  int best = 0;
  for (std::size_t i = 0; i < word.size(); ++i)
    for (std::size_t j = span.size(); j > 0; --j) {
      run[j] = ascii_lower(word[i]) == ascii_lower(span[j - 1]) ? run[j - 1] + 1 : 0;
      best = std::max(best, run[j]);
    }
  return best >= 3 || (best >= 2 && identifier);
}

std::string replacement(std::string_view orig, std::string_view span, char before, char after) {
  std::size_t pre = 0;
  while (pre < orig.size() && edge_opening(orig[pre]) && (!is_bracket(orig[pre]) || orig[pre] == before)) ++pre;
  std::size_t k = pre;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  while (k < orig.size() && k - pre < 6 && letter(orig[k])) ++k;
  if (k > pre && k < orig.size() && orig[k] == '\'') pre = k + 1;
  else if (k > pre && orig.compare(k, 3, "\xE2\x80\x99") == 0) pre = k + 3;  // ’
  std::size_t suf = 0;
  while (suf < orig.size() - pre) {
    const char c = orig[orig.size() - 1 - suf];
    if (!edge_closing(c) || (is_bracket(c) && c != after)) break;
    ++suf;
  }
  std::string_view tail = orig.substr(orig.size() - suf);
  if (!tail.empty() && !span.empty() && tail.front() == span.back()) tail.remove_prefix(1);  // not doubled
  const std::string_view core = orig.substr(pre, orig.size() - suf - pre);
  std::string_view head_part, tail_part;  // of a compound
  if (core.find(' ') == std::string_view::npos && core.find('-') != std::string_view::npos) {
    std::vector<std::string_view> parts;
    for (std::size_t b = 0;;) {
      const std::size_t e = core.find('-', b);
      parts.push_back(core.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
      if (e == std::string_view::npos) break;
      b = e + 1;
    }
    int first = -1, last = -1;
    for (int i = 0; i < static_cast<int>(parts.size()); ++i)
      if (copy_like(parts[i], span)) {
        if (first < 0) first = i;
        last = i;
      }
    // A part kept around the span is a word: 4 bytes or more, a lower-case
    // letter, not a piece of the span.
    auto word = [&](std::string_view part) {
      if (part.size() < 4 || std::none_of(part.begin(), part.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
        return false;
      auto same = [](char x, char y) { return (x | 0x20) == (y | 0x20); };
      return std::search(span.begin(), span.end(), part.begin(), part.end(), same) == span.end();
    };
    if (first >= 0) {
      while (first > 0 && !word(parts[first - 1])) --first;
      while (last + 1 < static_cast<int>(parts.size()) && !word(parts[last + 1])) ++last;
      const std::size_t b = parts[first].data() - core.data();
      const std::size_t e = parts[last].data() + parts[last].size() - core.data();
      head_part = core.substr(0, b);
      tail_part = core.substr(e);
    }
  }
  std::string text(orig.substr(0, pre));
  text += head_part;
  text += span;
  text += tail_part;
  text += tail;
  return text;
}

std::vector<TextRange> CopyPlan::protected_spans() const {
  std::vector<TextRange> out;
  for (std::size_t k = 0; k < spans.size(); ++k)
    if (!span_term[k]) out.push_back(spans[k]);
  return out;
}

std::vector<TextRange> CopyPlan::glossary_matches() const {
  std::vector<TextRange> out;
  for (std::size_t k = 0; k < spans.size(); ++k)
    if (span_term[k]) out.push_back(spans[k]);
  return out;
}

std::string term_replacement(std::string_view orig, std::string_view target, char before, char after,
                             bool sentence_start) {
  std::string out(target);
  std::size_t lead = 0;
  while (lead < orig.size() && (is_space(orig[lead]) || edge_opening(orig[lead]))) ++lead;
  // An elision ("l'", "d’", "qu'"): its letters, then the apostrophe's bytes.
  std::size_t letters = lead;
  while (letters < orig.size() && letters - lead < 3 && ((orig[letters] | 0x20) >= 'a' && (orig[letters] | 0x20) <= 'z'))
    ++letters;
  std::size_t apostrophe = 0;
  if (letters > lead && letters < orig.size() && orig[letters] == '\'') apostrophe = 1;
  else if (letters > lead && orig.compare(letters, 3, "\xE2\x80\x99") == 0) apostrophe = 3;
  std::string_view rest = orig;
  std::string elided;  // what stands for the elision before `target`
  if (apostrophe > 0) {
    const std::string_view elision = orig.substr(lead, letters - lead);
    rest = orig.substr(letters + apostrophe);
    const char t = static_cast<char>(target.empty() ? 0 : (target[0] | 0x20));
    const bool vowel = std::string_view("aeiouyh").find(t) != std::string_view::npos ||
                       (!target.empty() && static_cast<unsigned char>(target[0]) >= 0xC3);
    if ((elision[0] | 0x20) == 'l' && elision.size() == 1 && starts_upper(target)) elided.clear();  // a name
    else if (vowel) elided = std::string(orig.substr(lead, letters + apostrophe - lead));  // kept: "l'ordinateur"
    else elided = std::string(elision) + "e ";  // "d'" -> "de ", "qu'" -> "que ", "l'" -> "le "
    if (sentence_start && !elided.empty()) elided = capitalise_first_letter(elided);
  }
  // A hyphenated word ("Archiv-Plugin", "GNOME-Arbeitsumgebung") for a
  // one-word target: only its last part is replaced ("Archiv-Erweiterung").
  std::string_view kept_head;
  if (target.find(' ') == std::string_view::npos && rest.find(' ') == std::string_view::npos) {
    const std::size_t dash = rest.rfind('-');
    if (dash != std::string_view::npos && dash > 0 && letter_byte(rest[dash - 1]) && dash + 1 < rest.size() &&
        letter_byte(rest[dash + 1])) {
      kept_head = rest.substr(0, dash + 1);
      rest.remove_prefix(dash + 1);
    }
  }
  if (sentence_start && elided.empty() && kept_head.empty()) out = capitalise_first_letter(out);
  std::string text = replacement(rest, out, before, after);
  text.insert(0, kept_head);
  if (!elided.empty()) text.insert(0, elided);
  text.insert(0, orig.substr(0, lead));
  return text;
}

Status encode_for_copy(const Model& model, std::string_view text, bool copy, const GlossaryIndex* glossary,
                       std::vector<int32_t>* ids, std::vector<std::string>* pieces, CopyPlan* plan,
                       std::size_t max_span_pieces) {
  if (glossary != nullptr && glossary->empty()) glossary = nullptr;
  if (!copy && glossary == nullptr) return model.encode_source(text, ids, pieces);
  return guarded([&]() -> Status {
    if (ids == nullptr || pieces == nullptr || plan == nullptr)
      return Status(StatusCode::kInvalidArgument, "null argument");
    if (find_invalid_utf8(text) != std::string_view::npos)
      return Status(StatusCode::kInvalidUtf8, "the text is not valid UTF-8");
    const ModelImpl& m = ModelAccess::impl(model);
    std::vector<SourcePiece> source;
    const Status st = tokenize_source(*m.src_spm, text, m.config.pretokenized, &source);
    if (!st.ok()) return st;
    *plan = CopyPlan();
    plan->active = true;
    plan->text = text;
    // Glossary matches, then the protected spans that overlap none.
    const std::vector<TermMatch> terms = glossary != nullptr ? glossary->find(text) : std::vector<TermMatch>();
    const std::vector<TextRange> spans = copy ? find_protected_spans(text) : std::vector<TextRange>();
    for (std::size_t a = 0, b = 0; a < terms.size() || b < spans.size();) {
      if (b < spans.size() && (a == terms.size() || spans[b].end <= terms[a].bytes.begin)) {
        plan->spans.push_back(spans[b]);
        plan->span_out.push_back(text.substr(spans[b].begin, spans[b].end - spans[b].begin));
        plan->span_term.push_back(false);
        ++b;
      } else if (b < spans.size() && spans[b].begin < terms[a].bytes.end &&
                 (spans[b].begin < terms[a].bytes.begin || spans[b].end > terms[a].bytes.end)) {
        ++a;  // a term inside a protected span ("Plugin" of Catalyst::Plugin::Auth) or across one: the span stays
      } else if (b < spans.size() && spans[b].begin < terms[a].bytes.end) {
        ++b;  // a protected span inside the term: the term
      } else {
        plan->spans.push_back(terms[a].bytes);
        plan->span_out.push_back(glossary->target(terms[a].term));
        plan->span_term.push_back(true);
        ++a;
      }
    }
    ids->clear();
    pieces->clear();
    // Pieces per span, to find the spans too long to enter the model in pieces.
    std::vector<std::size_t> span_pieces(plan->spans.size(), 0);
    std::vector<int> piece_span(source.size(), -1);
    for (std::size_t i = 0, k = 0; i < source.size(); ++i) {  // k: the first span that may hold piece i
      const TextRange bytes = source[i].bytes;
      while (k < plan->spans.size() && plan->spans[k].end <= bytes.begin) ++k;
      if (k < plan->spans.size() && bytes.begin < plan->spans[k].end && bytes.end > plan->spans[k].begin) {
        piece_span[i] = static_cast<int>(k);
        ++span_pieces[k];
      }
    }
    for (std::size_t i = 0; i < source.size(); ++i) {
      const int span = piece_span[i];
      if (span >= 0 && span_pieces[span] > max_span_pieces && !plan->span_term[span]) {
        // The whole span as one <unk> piece, at its first piece.
        if (i > 0 && piece_span[i - 1] == span) continue;
        ids->push_back(m.config.unk_id);
        pieces->push_back(m.src_spm->IdToPiece(m.config.unk_id));
        plan->piece_bytes.push_back(plan->spans[span]);
        plan->piece_span.push_back(span);
        continue;
      }
      ids->push_back(source[i].id);
      pieces->push_back(std::move(source[i].piece));
      plan->piece_bytes.push_back(source[i].bytes);
      plan->piece_span.push_back(span);
    }
    ids->push_back(m.config.eos_id);
    return Status::Ok();
  });
}

Status copy_through(const Model& model, const CopyPlan& plan, const HypothesisView& v, std::size_t fixed_pieces,
                    Hypothesis* h) {
  if (!plan.active) return Status::Ok();
  const ModelImpl& m = ModelAccess::impl(model);
  const sentencepiece::SentencePieceProcessor* sp = m.tgt();
  const int n = static_cast<int>(v.length);
  const int src_pieces = static_cast<int>(plan.piece_bytes.size());
  if (h->pieces.size() != v.length) return Status(StatusCode::kInternal, "copy-through: pieces do not match ids");
  auto is_unk = [&](int i) {
    const int id = v.ids[i];
    return id == m.config.unk_id || id < 0 || id >= sp->GetPieceSize() || sp->IsUnknown(id);
  };
  // Each target piece's source piece (argmax of its attention row over the
  // source pieces, the EOS left out), or -1.
  std::vector<int> src(n, -1);
  if (v.source_length >= 2 && v.attention != nullptr) {
    const std::size_t cols = std::min<std::size_t>(v.source_length - 1, static_cast<std::size_t>(src_pieces));
    for (const AlignmentLink& l : hard_alignment(v.attention, std::min<std::size_t>(n, v.attention_rows),
                                                 v.source_length, cols))
      src[l.target] = l.source;
  }
  auto span_of = [&](int i) { return src[i] >= 0 && src[i] < src_pieces ? plan.piece_span[src[i]] : -1; };
  // What the output must hold for span k: the span, or its glossary target.
  auto span_text = [&](std::size_t k) { return plan.span_out[k]; };
  bool any_unk = false;
  for (int i = 0; i < n; ++i) any_unk = any_unk || is_unk(i);
  std::vector<bool> present(plan.spans.size(), false);
  bool all_present = !any_unk;
  // A span whose text the source holds several times ("%s ... %s") is there
  // only as many times as the output holds it.
  std::map<std::string_view, std::size_t> seen;  // earlier spans with the same text
  for (std::size_t k = 0; k < plan.spans.size(); ++k) {
    const std::size_t same_before = seen[span_text(k)]++;
    present[k] = plan.span_term[k] ? count_term(h->text, span_text(k)) > same_before
                                   : count_tokens(h->text, span_text(k), same_before + 1) > same_before;
    all_present = all_present && present[k];
  }
  // The copied spans' texts and how many times the source has each, for
  // tidy_copies() at the end (placeholders aside: repair_placeholders keeps
  // each exactly once, and --no-repair-placeholders leaves them as they are).
  std::map<std::string_view, std::size_t> copies;
  for (std::size_t k = 0; k < plan.spans.size(); ++k) {
    if (plan.span_term[k]) continue;
    const std::vector<Placeholder> ph = find_placeholders(span_text(k));
    if (ph.size() == 1 && ph[0].bytes.begin == 0 && ph[0].bytes.end == span_text(k).size()) continue;
    ++copies[span_text(k)];
  }
  // The prefix's pieces (their text starts the output) stay as they are.
  const int fixed = static_cast<int>(std::min<std::size_t>(fixed_pieces, static_cast<std::size_t>(n)));

  auto decode = [&](int first, int last) {
    std::string out;
    if (!detokenize(*sp, m.config.pretokenized, v.ids + first, static_cast<std::size_t>(last - first), &out).ok())
      out.clear();
    return out;
  };
  // The bytes of the text that the first `pieces` pieces make (the prefix's, which start it).
  auto prefix_bytes = [&](int pieces) {
    const std::string p = pieces > 0 ? decode(0, pieces) : std::string();
    return h->text.compare(0, p.size(), p) == 0 ? p.size() : 0;
  };
  // The end of every path: tidy_copies; then a term the text held only inside
  // a word that a copied span replaced ("Projektmodul" -> "projectM") or that
  // tidy_copies dropped (a garbled link holding "%s"): at the end, before the
  // final punctuation.
  auto finish = [&](std::string text) {
    std::string out = tidy_copies(text, copies, prefix_bytes(fixed));
    std::map<std::string_view, std::size_t> wanted;
    for (std::size_t k = 0; k < plan.spans.size(); ++k)
      if (plan.span_term[k]) ++wanted[span_text(k)];
    for (const auto& [target, times] : wanted)
      for (std::size_t have = count_term(out, target); have < times; ++have) {
        std::size_t e = out.size();
        while (e > 0 && (is_space(out[e - 1]) || edge_closing(out[e - 1]))) --e;
        out.insert(e, (e > 0 ? " " : "") + std::string(target));
      }
    return out;
  };
  if (all_present) {
    h->text = finish(h->text);
    return Status::Ok();
  }
  auto word_start = [&](int i) { return i <= 0 || starts_word(h->pieces[i]); };
  // Whether target piece i starts the output or a sentence in it.
  auto sentence_start = [&](int i) {
    const std::string before = decode(0, i);
    std::size_t e = before.size();
    while (e > 0 && (is_space(before[e - 1]) || before[e - 1] == '"' || before[e - 1] == '(')) --e;
    return e == 0 || before[e - 1] == '.' || before[e - 1] == '!' || before[e - 1] == '?';
  };
  std::vector<bool> claimed(n, false);
  for (int i = 0; i < fixed; ++i) claimed[i] = true;  // the target prefix
  std::vector<Edit> edits;
  auto word_end = [&](int a) {
    int z = a + 1;
    while (z < n && !word_start(z)) ++z;
    return z;
  };
  // The words holding a span already there stay as they are (a glossary
  // term's target as count_term finds it: "Entwicklungspakete" holds "Pakete").
  for (int a = 0; a < n; a = word_end(a)) {
    const std::string word = decode(a, word_end(a));
    for (std::size_t k = 0; k < plan.spans.size(); ++k)
      if (present[k] && (plan.span_term[k] ? count_term(word, span_text(k)) > 0 : contains_token(word, span_text(k))))
        for (int i = a; i < word_end(a); ++i) claimed[i] = true;
  }

  // A target word that cannot be a glossary term's translation: a short
  // lower-case word ("de", "pour", "des": the model's words around it) or a
  // word of the source copied through ("X", "MIDI").
  auto function_or_copy = [&](const std::string& word, std::string_view term_source) {
    std::size_t b = 0, e = word.size();
    while (b < e && (is_space(word[b]) || edge_opening(word[b]))) ++b;
    while (e > b && edge_closing(word[e - 1])) --e;
    const std::string_view core = std::string_view(word).substr(b, e - b);
    if (core.empty() || short_lowercase(core, 4)) return true;
    return !equal_ignoring_ascii_case(core, term_source) && contains_token(plan.text, core);  // the term itself, untranslated: not
  };
  // Spans: the first run of target words that align to a missing span and
  // look like a copy of it (copy_like) becomes the span (a glossary term:
  // the run of words aligned to it, but function words and copies).
  std::vector<int> fallback;  // spans with no such word
  for (std::size_t k = 0; k < plan.spans.size(); ++k) {
    if (present[k]) continue;
    const std::string_view span = span_text(k);
    const bool term = plan.span_term[k];
    // Whether target word [a, z) is a candidate: unclaimed, a piece aligned to
    // the span, like it (a glossary match's: aligned is enough).
    auto candidate = [&](int a, int z) {
      bool aligned = false;
      for (int i = a; i < z; ++i) {
        if (claimed[i]) return false;
        aligned = aligned || span_of(i) == static_cast<int>(k);
      }
      if (!aligned) return false;
      const std::string word = decode(a, z);
      return term ? !function_or_copy(word, plan.text.substr(plan.spans[k].begin, plan.spans[k].end - plan.spans[k].begin))
                  : copy_like(word, span);
    };
    int a = 0, z = 0;
    while (a < n && !candidate(a, word_end(a))) a = word_end(a);
    if (a == n) {
      fallback.push_back(static_cast<int>(k));
      continue;
    }
    z = word_end(a);
    for (;;) {
      if (z < n && candidate(z, word_end(z))) {
        z = word_end(z);
      } else if (term && z < n && word_end(z) < n && candidate(word_end(z), word_end(word_end(z)))) {
        // one word inside the term's translation aligned elsewhere ("gestionnaire de paquets")
        bool free = true;
        for (int i = z; i < word_end(z); ++i) free = free && !claimed[i];
        if (!free) break;
        z = word_end(word_end(z));
      } else {
        break;
      }
    }
    if (term) {
      // An article aligned to the term ("le fichier" for "file") stays when
      // the run has more words than the target term.
      auto words = [&](int x, int y) {
        int w = 0;
        for (int i = x; i < y; i = word_end(i)) ++w;
        return w;
      };
      const int target_words = static_cast<int>(std::count(span.begin(), span.end(), ' ')) + 1;
      auto short_word = [&](int x) { return short_lowercase(decode(x, word_end(x)), 3); };  // "le", "des"
      while (words(a, z) > target_words && short_word(a)) a = word_end(a);
      while (words(a, z) > target_words) {  // and one after it ("traiter des" for "process")
        int last = a;
        while (word_end(last) < z) last = word_end(last);
        if (!short_word(last)) break;
        z = last;
      }
    }
    for (int i = a; i < z; ++i) claimed[i] = true;
    const TextRange r = plan.spans[k];
    const char before = r.begin > 0 ? plan.text[r.begin - 1] : ' ';
    const char after = r.end < plan.text.size() ? plan.text[r.end] : ' ';
    const std::string orig = decode(a, z);
    std::string text = term ? term_replacement(orig, span, before, after, sentence_start(a))
                            : replacement(orig, span, before, after);
    edits.push_back({a, z, std::move(text), false});
    present[k] = true;
  }

  // Unknown pieces: the source word (or span) they align to.
  for (int i = 0; i < n; ++i) {
    if (claimed[i] || !is_unk(i)) continue;
    claimed[i] = true;
    const int j = src[i];
    std::string text;
    if (j >= 0 && j < src_pieces) {
      const int k = plan.piece_span[j];
      if (k >= 0) {
        if (!present[k]) text = span_text(k);
        present[k] = true;
      } else {
        text = source_word(plan.text, plan.piece_bytes[j]);
      }
    }
    edits.push_back({i, i + 1, std::move(text), true});
  }

  // Where a glossary term nothing aligns to goes: before the target word that
  // attends to it the most; -1 when none does.
  auto most_attending_word = [&](int k) {
    int at = -1;
    if (v.attention == nullptr) return at;
    float best = 0.0f;
    for (int a = 0; a < n; a = word_end(a)) {
      float mass = 0.0f;
      for (int i = a; i < word_end(a); ++i)
        for (int j = 0; j < src_pieces && static_cast<std::size_t>(j) + 1 < v.source_length; ++j)
          if (plan.piece_span[j] == k) mass += v.attention[static_cast<std::size_t>(i) * v.source_length + j];
      if (mass > best) best = mass, at = a;
    }
    return at;
  };

  // Spans nothing aligns to: next to their neighbours' translations (a
  // glossary term: before the word attending to it most, if one does).
  for (int k : fallback) {
    if (present[k]) continue;
    int at = plan.span_term[k] ? most_attending_word(k) : -1;
    int j0 = src_pieces, j1 = -1;  // the span's source pieces
    for (int j = 0; j < src_pieces && at < 0; ++j)
      if (plan.piece_span[j] == k) j0 = std::min(j0, j), j1 = std::max(j1, j);
    for (int j = j0 - 1; j >= 0 && at < 0; --j)
      for (int i = n - 1; i >= 0 && at < 0; --i)
        if (src[i] == j) {
          at = i + 1;
          while (at < n && !word_start(at)) ++at;  // after its word
        }
    for (int j = j1 + 1; j < src_pieces && at < 0; ++j)
      for (int i = 0; i < n && at < 0; ++i)
        if (src[i] == j) {
          at = i;
          while (at > 0 && !word_start(at)) --at;  // before its word
        }
    if (at < 0) at = n;
    if (at < fixed) at = std::min(word_end(fixed - 1), n);  // after the prefix's last word
    // Not inside a replaced range: after it.
    for (const Edit& e : edits)
      if (e.first < at && at < e.last) at = e.last;
    std::string text(span_text(k));
    if (plan.span_term[k] && sentence_start(at)) text = capitalise_first_letter(text);
    edits.push_back({at, at, std::move(text), true});
    present[k] = true;
  }
  if (edits.empty()) {
    h->text = finish(h->text);
    return Status::Ok();
  }

  std::stable_sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) { return x.first < y.first; });
  std::string out;
  bool space_next = false;  // after a word of its own, as SentencePiece renders <unk> (" ⁇ ")
  auto append = [&](std::string_view piece, bool space_before) {
    if (piece.empty()) return;
    space_before = space_before || (space_next && !edge_closing(piece.front()));
    if (space_before && !out.empty() && !is_space(out.back())) out += ' ';
    out += piece;
    space_next = false;
  };
  auto ends_in_elision = [&] {
    return (!out.empty() && out.back() == '\'') ||
           (out.size() >= 3 && out.compare(out.size() - 3, 3, "\xE2\x80\x99") == 0);
  };
  int i = 0;
  for (const Edit& e : edits) {
    if (e.first > i) {
      append(decode(i, e.first), word_start(i));
      i = e.first;
    }
    append(e.text, e.own_word ? !ends_in_elision() : (word_start(e.first) && e.first > 0) || e.first == n);
    space_next = e.own_word && !e.text.empty();
    i = std::max(i, e.last);
  }
  if (i < n) append(decode(i, n), word_start(i));
  h->text = finish(std::move(out));
  return Status::Ok();
}

std::string tidy_copies(std::string_view text, const std::map<std::string_view, std::size_t>& copies,
                        std::size_t fixed) {
  if (copies.empty()) return std::string(text);
  std::vector<std::string_view> links;
  for (const auto& [span, times] : copies)
    if (is_link(span)) links.push_back(span);
  struct Token {
    TextRange core;       // the token without its edge punctuation
    bool drop = false;    // an extra copy or a garbled link
    std::string instead;  // what replaces the core when dropped (the spans it held that are missing)
    bool space = false;   // a span glued to the prefix's last word: a space goes before it
  };
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < text.size();) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < text.size() && !is_space(text[e])) ++e;
    const TextRange core = trim_token(text, {std::max(i, std::min(fixed, e)), e});  // not the prefix's bytes
    if (core.begin < core.end) tokens.push_back(Token{core, false, std::string(), false});
    i = e;
  }
  auto core_of = [&](const Token& t) { return text.substr(t.core.begin, t.core.end - t.core.begin); };
  // A link's garbled copy ("ftp://h.net/pub//y0ty%2Ff93v4...", a link with a
  // tail glued on: "http://b2.com.com"): a link-shaped token like a source
  // link that is no span.
  bool any = false;
  for (Token& t : tokens) {
    const std::string_view core = core_of(t);
    if (copies.count(core) != 0) continue;
    for (std::string_view link : links)
      t.drop = t.drop || (core.size() > link.size() && core.compare(0, link.size(), link) == 0) ||
               (is_link(core) && copy_like(core, link));
    any = any || t.drop;
  }
  // A span the text holds more often than the source: first the tokens that
  // hold it and are no span nor a word around it ("7945/l9ra51t", "x86_64.org"
  // beside 7945 and x86_64; not "PostScript-Bibliothek") go, then its copies
  // beyond the source's count ("5778 5778").
  auto garbled_holder = [&](std::string_view core, std::string_view span) {
    std::string rest(core);
    for (std::size_t at = rest.find(span); at != std::string::npos; at = rest.find(span, at)) rest.replace(at, span.size(), "-");
    // A compound's other parts are words: 5 bytes or more, letters, one of them
    // small ("Bibliothek", "Datei"; not "4480-vous").
    for (std::size_t b = 0; b <= rest.size();) {
      std::size_t e = rest.find('-', b);
      if (e == std::string::npos) e = rest.size();
      const std::string_view part = std::string_view(rest).substr(b, e - b);
      const bool letters = std::all_of(part.begin(), part.end(), [](char c) {
        return letter_byte(c) && !(c >= '0' && c <= '9') && c != '_';
      });
      const bool small = std::any_of(part.begin(), part.end(), [](char c) { return c >= 'a' && c <= 'z'; });
      if (!part.empty() && !(part.size() >= 5 && letters && small)) return true;
      b = e + 1;
    }
    return false;
  };
  for (const auto& [span, times] : copies) {
    auto held = [&, span = span](const Token& t) {
      return t.drop ? 0 : count_tokens(core_of(t), span, static_cast<std::size_t>(-1));
    };
    std::size_t have = 0;
    for (const Token& t : tokens) have += held(t);
    for (Token& t : tokens)
      if (have > times && held(t) > 0 && copies.count(core_of(t)) == 0 && garbled_holder(core_of(t), span)) {
        have -= held(t);
        t.drop = any = true;
      }
    std::size_t kept = 0;
    for (Token& t : tokens)
      if (!t.drop && core_of(t) == span && kept++ >= times) t.drop = any = true;
  }
  // The model wrote a span right after the prefix's last letter ("<b>Unhttp://..."): apart.
  for (Token& t : tokens)
    if (!t.drop && fixed > 0 && t.core.begin == fixed && letter_byte(text[fixed - 1]))
      for (const auto& [span, times] : copies)
        if (core_of(t).substr(0, span.size()) == span) t.space = any = true;
  if (!any) return std::string(text);
  // A dropped token gives back the spans it held that would be missing without it.
  for (const auto& [span, times] : copies) {
    std::size_t have = 0;
    for (const Token& t : tokens)
      if (!t.drop) have += count_tokens(core_of(t), span, static_cast<std::size_t>(-1));
    for (Token& t : tokens) {
      if (have >= times) break;
      if (!t.drop || !contains_token(core_of(t), span)) continue;
      if (!t.instead.empty()) t.instead += ' ';
      t.instead += span;
      ++have;
    }
  }
  std::string out;
  std::size_t at = 0;
  for (const Token& t : tokens) {
    if (t.space) {
      out.append(text.substr(at, t.core.begin - at));
      out += ' ';
      at = t.core.begin;
      continue;
    }
    if (!t.drop) continue;
    std::size_t b = t.core.begin, e = t.core.end;
    if (t.instead.empty()) {  // the token's edge punctuation stays; one space beside it goes
      if (b > 0 && is_space(text[b - 1]) && b - 1 >= at) --b;
      else if (e < text.size() && is_space(text[e]) && b == 0) ++e;
    }
    out.append(text.substr(at, b - at));
    out += t.instead;
    at = e;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace softalign::internal
