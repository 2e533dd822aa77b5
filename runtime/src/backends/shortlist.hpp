// The vocabulary shortlist (softalign.fbs `Shortlist`): per sentence, the
// union of the model's frequent target ids and the listed translations of
// each source id; the output layer, log-softmax and top-k then run over
// those ids only. This file holds what the shortlist is, for every backend:
// the file's table and each sentence's ids. How a backend computes its
// output layer over them is its own (the CPU's packed rows: cpu_shortlist.hpp;
// Vulkan: the ids and masks it copies to the device).
#pragma once

#include <cstdint>

#include "core/arena.hpp"

namespace softalign::fb {
struct Model;
}

namespace softalign::internal {

// The file's shortlist, viewed in place (empty when the file has none).
struct ShortlistTable {
  const uint32_t* offsets = nullptr;  // src_vocab + 1 row starts into ids
  const uint32_t* ids = nullptr;      // target ids, per source id
  const uint32_t* frequent = nullptr; // always in the union
  int frequent_count = 0;
  bool present() const { return offsets != nullptr; }
};

// The shortlist of a file that format::verify_model accepted (its rules
// guarantee every id is a target id and the rows are well-formed).
ShortlistTable view_shortlist(const fb::Model& model);

// One sentence's vocabulary: marks[v] = 1 for the frequent ids, EOS and the
// listed translations of each source id, 0 elsewhere (marks: vocab bytes).
void mark_shortlist(const ShortlistTable& table, const int32_t* src, int len, int eos, int vocab, uint8_t* marks);

// The vocabularies of the sentences a translator decodes together: each
// sentence's own shortlist as ascending ids (so a column's order is its id's
// order, and top-k ties stay "lower id first"), or the whole vocabulary for
// every sentence. In arena memory sized at prepare: selecting allocates nothing.
class SentenceVocabularies {
 public:
  // Takes the buffers for up to `sentences` sentences of a `vocab`-id
  // vocabulary: none when `enabled` is false (the whole vocabulary only).
  void layout(Arena& a, bool enabled, int vocab, int sentences);
  // Whether layout reserved the buffers (a call may then use the shortlist).
  bool enabled() const { return ids_ != nullptr; }

  // Makes the shortlists of the sources srcs[b] (lens[b] ids, b < n) active
  // when `use` and the table is present (requires enabled()); else every
  // sentence has the whole vocabulary.
  void select(const ShortlistTable& table, bool use, const int32_t* const* srcs, const int* lens, int n, int eos);

  bool active() const { return active_; }
  int vocab() const { return vocab_; }
  // Sentence b's vocabulary: width(b) ids, ids(b)[i] the id of column i (null: column i is id i).
  int width(int b) const { return active_ ? size_[b] : vocab_; }
  const int32_t* ids(int b) const { return active_ ? ids_ + static_cast<std::size_t>(b) * vocab_ : nullptr; }

  // The union of the ids of sentences[0..count) (null: sentences 0..count),
  // ascending (requires active()): column[v] = id v's column in it, -1 when
  // none of them has v (column: vocab ints). Returns the union's size.
  int union_columns(const int32_t* sentences, int count, int32_t* column) const;

 private:
  int vocab_ = 0;
  bool active_ = false;
  uint8_t* mark_ = nullptr;  // [vocab] scratch
  int32_t* ids_ = nullptr;   // [sentences, vocab]
  int32_t* size_ = nullptr;  // [sentences]
};

}  // namespace softalign::internal
