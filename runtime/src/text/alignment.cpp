#include "text/alignment.hpp"

#include <algorithm>

namespace softalign {

namespace internal {

std::vector<AlignmentLink> hard_alignment(const float* att, std::size_t target_rows, std::size_t source_len,
                                          std::size_t source_cols) {
  std::vector<AlignmentLink> links;
  if (source_cols == 0) return links;
  for (std::size_t i = 0; i < target_rows; ++i) {
    const float* row = att + i * source_len;
    std::size_t best = 0;
    for (std::size_t j = 1; j < source_cols; ++j)
      if (row[j] > row[best]) best = j;
    links.push_back({static_cast<int>(best), static_cast<int>(i)});
  }
  return links;
}

std::vector<int> word_index(const std::vector<std::string>& pieces) {
  std::vector<int> words;
  int w = -1;
  for (const std::string& p : pieces) {
    if (w < 0 || p.rfind("\xE2\x96\x81", 0) == 0) ++w;
    words.push_back(w);
  }
  return words;
}

std::vector<AlignmentLink> word_alignment(const std::vector<AlignmentLink>& piece_links,
                                          const std::vector<int>& src_words, const std::vector<int>& tgt_words) {
  std::vector<AlignmentLink> out;
  for (const AlignmentLink& l : piece_links) {
    if (l.source < 0 || static_cast<std::size_t>(l.source) >= src_words.size() || l.target < 0 ||
        static_cast<std::size_t>(l.target) >= tgt_words.size())
      continue;
    out.push_back({src_words[l.source], tgt_words[l.target]});
  }
  std::sort(out.begin(), out.end(), [](const AlignmentLink& a, const AlignmentLink& b) {
    return a.source != b.source ? a.source < b.source : a.target < b.target;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const AlignmentLink& a, const AlignmentLink& b) {
                          return a.source == b.source && a.target == b.target;
                        }),
            out.end());
  return out;
}

}  // namespace internal

std::string to_pharaoh(const std::vector<AlignmentLink>& links) {
  std::string out;
  for (const AlignmentLink& l : links) {
    if (!out.empty()) out += ' ';
    out += std::to_string(l.source) + "-" + std::to_string(l.target);
  }
  return out;
}

}  // namespace softalign
