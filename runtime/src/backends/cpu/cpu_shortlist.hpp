// The CPU engine's output layer over a shortlist (shortlist.hpp): the
// selected sentences' weight rows are copied, in storage type, into one
// packed matrix as long as they fit in a vocabulary's worth of rows (always
// for one sentence): contiguous rows run faster than rows read in place
// (measured: 10% of the CPU time of a greedy sentence). A sentence of a large
// batch that no longer fits reads its rows in place (a gathered product,
// kernels::matmat_gather).
//
// Where the kernels put many inputs in vector lanes (int8 with AVX-512), the
// packed rows are instead the union of the sentences' shortlists, and a step
// whose sentences have one row each (greedy search) runs one product over the
// union for all rows, then keeps each row's own columns: measured 0.65x the
// time of one product per sentence for 32 sentences (the union is about 3x
// one sentence's rows, but each weight is read once and the lanes kernel is
// 4x cheaper per row than one row at a time). Beam rows stay per sentence
// (with 4 rows each, the union measured 1.2-1.5x slower).
#pragma once

#include <cstdint>

#include "backends/cpu/linear.hpp"
#include "backends/shortlist.hpp"
#include "core/arena.hpp"
#include "kernels/kernels.hpp"

struct pthreadpool;

namespace softalign::internal {

class PackedOutputRows {
 public:
  // Takes the buffers from the arena for the output layer `w`, `bias` (the
  // whole vocabulary) and up to `sentences` sentences: none when `enabled` is false.
  void layout(Arena& a, bool enabled, const kernels::Matrix& w, const float* bias, int sentences);

  // Packs the rows of the n sentences `vocab` selected (when it is active).
  // pack_union: pack the union of the sentences' rows (int8 weights only).
  void pack(const SentenceVocabularies& vocab, int n, bool pack_union);

  // Sentence b's output layer (requires vocab.active()) for `rows` rows of x:
  // y[r * width(b) + i] = W[ids(b)[i]] · x_r + b[ids(b)[i]]. `full` is the
  // whole output layer; scratch as Linear::run's.
  void output_layer(const kernels::KernelTable& k, const SentenceVocabularies& vocab, const Linear& full, int b,
                    const float* x, int rows, float* y, int8_t* xq, float* xs, pthreadpool* pool) const;

  // Whether the output layer of `count` rows (row i of sentence row_sent[i],
  // a sentence's rows consecutive) is one product over the union: the union
  // is packed, the kernels take `count` inputs in lanes, every sentence has
  // one row and the union is at most 4x the rows' own columns.
  bool use_union(const kernels::KernelTable& k, const SentenceVocabularies& vocab, int count,
                 const int32_t* row_sent) const;
  // That product, then each row's own columns kept in order: y gets the same
  // blocks as output_layer per sentence (rows × width(b)), bit for bit.
  void union_output_layer(const kernels::KernelTable& k, const SentenceVocabularies& vocab, int count,
                          const int32_t* row_sent, const float* x, float* y, int8_t* xq, float* xs,
                          pthreadpool* pool) const;

 private:
  kernels::Matrix w_;             // the whole output layer
  const float* bias_ = nullptr;
  int vocab_ = 0;
  int32_t* first_ = nullptr;      // [sentences] a sentence's first packed row, -1: read in place
  int union_size_ = 0;            // > 0: rows_ holds the union of the sentences' rows
  int32_t* union_pos_ = nullptr;  // [vocab] an id's row in the packed union (-1: not in it)
  int32_t* gather_ids_ = nullptr; // [vocab] scratch: a sentence's rows in the packed union
  uint8_t* rows_ = nullptr;       // [vocab, cols] packed rows, storage type
  float* scales_ = nullptr;       // [vocab] their i8 scales
  float* packed_bias_ = nullptr;  // [vocab]
};

}  // namespace softalign::internal
