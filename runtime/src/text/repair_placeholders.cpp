#include "text/repair_placeholders.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "text/placeholders.hpp"

namespace softalign::internal {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_punct(char c) { return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?'; }

std::string_view text_of(std::string_view s, const Placeholder& p) {
  return s.substr(p.bytes.begin, p.bytes.end - p.bytes.begin);
}

// Only spaces and punctuation in s[b, e).
bool blank_between(std::string_view s, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e; ++i)
    if (!is_space(s[i]) && !is_punct(s[i])) return false;
  return true;
}

// One change to the output: bytes [begin, end) become `text` (begin == end:
// inserted there; `order` sorts insertions at one place).
struct Edit {
  std::size_t begin = 0, end = 0;
  std::string text;
  std::size_t order = 0;
};

// One pass of the rule (repair_placeholders.hpp): whether it changes
// `output`, and the changed text in *repaired.
bool repair_once(std::string_view source, std::string_view output, std::string* repaired, const RepairGiven& given) {
  const std::vector<Placeholder> src = find_placeholders(source);
  // The prefix is a text of its own: what follows it does not change what it
  // holds (its "%s" glued to "@x.org" is still a format, not part of a link).
  const std::size_t fixed = std::min(given.fixed_prefix, output.size());
  std::vector<Placeholder> out = find_placeholders(output.substr(0, fixed));
  for (Placeholder p : find_placeholders(output.substr(fixed))) {
    p.bytes.begin += fixed;
    p.bytes.end += fixed;
    out.push_back(p);
  }
  const std::size_t ns = src.size(), no = out.size();
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> match(ns, kNone);   // source -> output placeholder
  std::vector<bool> used(no, false);
  auto in_prefix = [&](std::size_t o) { return out[o].bytes.begin < fixed; };

  // 1. The same text, in order (the prefix's first); then the given
  // placeholders keep theirs; then the same kind, in order.
  {
    std::map<std::string_view, std::vector<std::size_t>> by_text;  // output indices, in order
    for (std::size_t o = 0; o < no; ++o) by_text[text_of(output, out[o])].push_back(o);
    std::map<std::string_view, std::size_t> next;
    for (std::size_t j = 0; j < ns; ++j) {
      const auto it = by_text.find(text_of(source, src[j]));
      if (it == by_text.end()) continue;
      std::size_t& k = next[it->first];
      if (k < it->second.size()) {
        match[j] = it->second[k++];
        used[match[j]] = true;
      }
    }
    std::map<std::string_view, std::size_t> allowed;  // the given placeholders' texts, counted
    for (const std::string& g : given.given)
      for (const Placeholder& p : find_placeholders(g)) ++allowed[text_of(g, p)];
    for (std::size_t o = 0; o < no; ++o) {
      if (used[o]) continue;
      const auto it = allowed.find(text_of(output, out[o]));
      if (in_prefix(o)) {
        used[o] = true;  // the prefix's own: stays
      } else if (it != allowed.end() && it->second > 0) {
        used[o] = true;  // a glossary target's: stays, matched to no source placeholder
        --it->second;
      }
    }
    std::map<int, std::vector<std::size_t>> missing_by_kind;
    for (std::size_t j = 0; j < ns; ++j)
      if (match[j] == kNone) missing_by_kind[static_cast<int>(src[j].kind)].push_back(j);
    std::map<int, std::size_t> next_kind;
    for (std::size_t o = 0; o < no; ++o) {
      if (used[o]) continue;
      const auto it = missing_by_kind.find(static_cast<int>(out[o].kind));
      if (it == missing_by_kind.end()) continue;
      std::size_t& k = next_kind[it->first];
      if (k < it->second.size()) {
        match[it->second[k++]] = o;
        used[o] = true;
      }
    }
    // Matches by kind may cross the order of the others: kept, the tags are
    // ordered in step 3 and the rest may move as the translation does.
  }

  std::vector<Edit> edits;
  // Where each source placeholder is in the output: its match's bytes, or the insertion point.
  std::vector<TextRange> at(ns);
  std::vector<std::string> insert_text(ns);
  for (std::size_t j = 0; j < ns; ++j)
    if (match[j] != kNone) at[j] = out[match[j]].bytes;

  // Removals: unmatched output placeholders, with one space beside them.
  std::vector<TextRange> removed;
  for (std::size_t o = 0; o < no; ++o) {
    if (used[o]) continue;
    TextRange r = out[o].bytes;
    const bool space_before = r.begin == 0 || is_space(output[r.begin - 1]);
    if (space_before && r.end < output.size() && output[r.end] == ' ') ++r.end;
    else if (r.end == output.size() && r.begin > 0 && output[r.begin - 1] == ' ') --r.begin;
    removed.push_back(r);
  }

  // 2. Insertion points of the missing ones.
  // Word boundaries of the output (the end of each word, and the end), outside placeholders.
  std::vector<std::size_t> boundaries;
  for (std::size_t i = 1, o = 0; i <= output.size(); ++i) {
    while (o < no && out[o].bytes.end <= i) ++o;
    const bool inside = o < no && out[o].bytes.begin < i && i < out[o].bytes.end;
    if (!inside && (i == output.size() || (is_space(output[i]) && !is_space(output[i - 1])))) boundaries.push_back(i);
  }
  boundaries.erase(std::remove_if(boundaries.begin(), boundaries.end(), [&](std::size_t i) { return i < fixed; }),
                   boundaries.end());
  for (const std::string& keep : given.keep_whole)  // not inside a glossary term
    for (std::size_t b = keep.empty() ? std::string_view::npos : output.find(keep); b != std::string_view::npos;
         b = output.find(keep, b + 1))
      boundaries.erase(std::remove_if(boundaries.begin(), boundaries.end(),
                                      [&](std::size_t i) { return b < i && i < b + keep.size(); }),
                       boundaries.end());
  std::size_t trimmed_end = output.size();  // before final spaces and punctuation
  while (trimmed_end > 0 && (is_space(output[trimmed_end - 1]) || is_punct(output[trimmed_end - 1]))) --trimmed_end;
  std::vector<bool> placed(ns, false);
  for (std::size_t j = 0; j < ns; ++j) placed[j] = match[j] != kNone;
  for (std::size_t j = 0; j < ns; ++j) {
    if (placed[j]) continue;
    const Placeholder& p = src[j];
    std::size_t pos = kNone;
    std::string gap_before, gap_after;  // the source's spaces and punctuation to the neighbour
    if (j > 0 && placed[j - 1] && blank_between(source, src[j - 1].bytes.end, p.bytes.begin)) {
      pos = at[j - 1].end;
      gap_before = source.substr(src[j - 1].bytes.end, p.bytes.begin - src[j - 1].bytes.end);
    } else if (j + 1 < ns && placed[j + 1] && blank_between(source, p.bytes.end, src[j + 1].bytes.begin)) {
      pos = at[j + 1].begin;
      gap_after = source.substr(p.bytes.end, src[j + 1].bytes.begin - p.bytes.end);
    }
    const bool by_neighbour = pos != kNone;
    if (pos == kNone) {
      if (blank_between(source, 0, p.bytes.begin)) {
        pos = 0;
      } else if (blank_between(source, p.bytes.end, source.size())) {
        pos = trimmed_end;
      } else {
        // The word boundary nearest the same share of the output.
        const double share = static_cast<double>(p.bytes.begin) / static_cast<double>(source.size());
        const std::size_t want = static_cast<std::size_t>(share * static_cast<double>(output.size()));
        const auto it = std::lower_bound(boundaries.begin(), boundaries.end(), want);
        pos = it == boundaries.end() ? output.size() : *it;
        if (it != boundaries.begin() && (it == boundaries.end() || want - *(it - 1) < *it - want)) pos = *(it - 1);
      }
    }
    pos = std::max(pos, fixed);  // never inside the prefix
    at[j] = {pos, pos};
    placed[j] = true;
    std::string t;
    const bool space_before = p.bytes.begin > 0 && is_space(source[p.bytes.begin - 1]);
    const bool space_after = p.bytes.end < source.size() && is_space(source[p.bytes.end]);
    if (by_neighbour) {
      t = gap_before;
      t += text_of(source, p);
      t += gap_after;
    } else {
      if (space_before && pos > 0) t += ' ';
      t += text_of(source, p);
      if (space_after && pos < output.size() && (pos == 0 || pos == trimmed_end || !is_space(output[pos]))) t += ' ';
    }
    insert_text[j] = std::move(t);
  }

  // The text each source placeholder gets at its place (its own, or in step 3 another tag's).
  std::vector<std::size_t> shown(ns);
  for (std::size_t j = 0; j < ns; ++j) shown[j] = j;

  // 3. Tag pairs nested as in the source.
  const std::vector<int> partner = pair_tags(src);
  const std::vector<int> parent = enclosing_tag(src, partner);
  std::vector<std::size_t> tags;  // paired source tags, in output order
  for (std::size_t j = 0; j < ns; ++j)  // the prefix's stay as they are
    if (partner[j] >= 0 && (match[j] == kNone || !in_prefix(match[j]))) tags.push_back(j);
  const std::vector<std::size_t> source_order = tags;
  std::stable_sort(tags.begin(), tags.end(), [&](std::size_t a, std::size_t b) {
    return at[a].begin != at[b].begin ? at[a].begin < at[b].begin : a < b;
  });
  bool nested = true;
  {
    std::vector<int> stack;
    for (std::size_t j : tags) {
      if (src[j].kind == PlaceholderKind::kTagOpen) {
        if ((stack.empty() ? -1 : stack.back()) != parent[j]) nested = false;
        stack.push_back(static_cast<int>(j));
      } else {
        if (stack.empty() || stack.back() != partner[j]) {
          nested = false;
          break;
        }
        stack.pop_back();
      }
    }
  }
  if (!nested)
    for (std::size_t k = 0; k < tags.size(); ++k) shown[tags[k]] = source_order[k];

  // The edits.
  for (std::size_t j = 0; j < ns; ++j) {
    const std::string_view want = text_of(source, src[shown[j]]);
    if (match[j] != kNone) {
      if (text_of(output, out[match[j]]) != want) edits.push_back({at[j].begin, at[j].end, std::string(want), j});
    } else {
      std::string t = insert_text[j];
      if (shown[j] != j) {
        const std::size_t k = t.find(text_of(source, src[j]));
        t.replace(k, src[j].bytes.end - src[j].bytes.begin, want);
      }
      edits.push_back({at[j].begin, at[j].begin, std::move(t), j});
    }
  }
  for (const TextRange& r : removed) edits.push_back({r.begin, r.end, std::string(), 0});
  if (edits.empty()) {
    if (repaired != nullptr) repaired->assign(output);
    return false;
  }
  if (repaired == nullptr) return true;
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    const bool ai = a.begin == a.end, bi = b.begin == b.end;
    if (ai != bi) return ai;  // insertions before a change at the same place
    return a.order < b.order;
  });
  std::string r;
  r.reserve(output.size() + 64);
  std::size_t i = 0;
  auto append = [&](std::string_view t) {
    if (!t.empty() && t.front() == ' ' && (r.empty() || is_space(r.back()))) t.remove_prefix(1);
    r += t;
  };
  for (const Edit& e : edits) {
    const std::size_t b = std::max(e.begin, i);
    if (b > i) append(output.substr(i, b - i));
    append(e.text);
    i = std::max(i, e.end);
  }
  if (i < output.size()) append(output.substr(i));
  *repaired = std::move(r);
  return true;
}

}  // namespace

bool repair_placeholders(std::string_view source, std::string_view output, std::string* repaired,
                         const RepairGiven& given) {
  std::string text;
  if (!repair_once(source, output, &text, given)) {
    if (repaired != nullptr) repaired->assign(output);
    return false;
  }
  // A removal or an insertion may join its neighbours into a new placeholder
  // ("{{%s}" less "%s" is "{{}"): again, a few times; then from the output
  // without the characters that start or end placeholders outside the
  // source's own, where only insertions remain to be made.
  for (int round = 0; round < 3; ++round) {
    std::string next;
    if (!repair_once(source, text, &next, given)) break;
    text = std::move(next);
  }
  if (repair_once(source, text, nullptr, given)) {
    // (Links keep theirs: a URL's "%C3" is an escape.)
    const std::size_t fixed = std::min(given.fixed_prefix, output.size());
    std::vector<TextRange> links;
    find_placeholders(output, &links);
    std::string bare(output.substr(0, fixed));
    std::size_t l = 0;
    for (std::size_t i = fixed; i < output.size(); ++i) {
      while (l < links.size() && links[l].end <= i) ++l;
      const char c = output[i];
      const bool in_link = l < links.size() && links[l].begin <= i;
      if (in_link || (c != '%' && c != '{' && c != '}' && c != '<' && c != '>' && c != '&')) bare += c;
    }
    repair_once(source, bare, &text, given);
  }
  if (repaired != nullptr) *repaired = std::move(text);
  return true;
}

bool placeholders_intact(std::string_view source, std::string_view output, const RepairGiven& given) {
  return !repair_once(source, output, nullptr, given);
}

}  // namespace softalign::internal
