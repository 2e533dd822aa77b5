#include "backends/shortlist.hpp"

#include <algorithm>
#include <cstring>

#include "softalign_format.h"

namespace softalign::internal {

ShortlistTable view_shortlist(const fb::Model& model) {
  ShortlistTable t;
  if (const fb::Shortlist* sl = model.shortlist()) {
    t.offsets = sl->offsets()->data();
    t.ids = sl->ids()->data();
    t.frequent = sl->frequent()->data();
    t.frequent_count = static_cast<int>(sl->frequent()->size());
  }
  return t;
}

void mark_shortlist(const ShortlistTable& table, const int32_t* src, int len, int eos, int vocab, uint8_t* marks) {
  std::memset(marks, 0, static_cast<std::size_t>(vocab));
  for (int i = 0; i < table.frequent_count; ++i) marks[table.frequent[i]] = 1;
  marks[eos] = 1;  // a hypothesis must always be able to finish
  for (int j = 0; j < len; ++j)
    for (uint32_t i = table.offsets[src[j]]; i < table.offsets[src[j] + 1]; ++i) marks[table.ids[i]] = 1;
}

void SentenceVocabularies::layout(Arena& a, bool enabled, int vocab, int sentences) {
  vocab_ = vocab;
  active_ = false;
  if (!enabled) return;
  mark_ = a.take<uint8_t>(static_cast<std::size_t>(vocab));
  ids_ = a.take<int32_t>(static_cast<std::size_t>(sentences) * vocab);
  size_ = a.take<int32_t>(static_cast<std::size_t>(sentences));
}

void SentenceVocabularies::select(const ShortlistTable& table, bool use, const int32_t* const* srcs, const int* lens,
                                  int n, int eos) {
  active_ = use && table.present() && enabled();
  if (!active_) return;
  for (int b = 0; b < n; ++b) {
    mark_shortlist(table, srcs[b], lens[b], eos, vocab_, mark_);
    int32_t* ids = ids_ + static_cast<std::size_t>(b) * vocab_;
    int size = 0;
    for (int v = 0; v < vocab_; ++v)
      if (mark_[v]) ids[size++] = v;
    size_[b] = size;
  }
}

int SentenceVocabularies::union_columns(const int32_t* sentences, int count, int32_t* column) const {
  std::fill(column, column + vocab_, -1);
  for (int k = 0; k < count; ++k) {
    const int b = sentences != nullptr ? sentences[k] : k;
    for (int i = 0; i < width(b); ++i) column[ids(b)[i]] = 0;
  }
  int size = 0;
  for (int v = 0; v < vocab_; ++v)
    if (column[v] >= 0) column[v] = size++;
  return size;
}

}  // namespace softalign::internal
