// The vocabulary shortlist (softalign.fbs `Shortlist`): per sentence, the
// union of the model's frequent target ids and the listed translations of
// each source id; the output layer, log-softmax and top-k then run over
// that union only. The union and its rows live in arena memory sized at
// prepare for the whole vocabulary, so selecting it allocates nothing.
#pragma once

#include <cstdint>

#include "arena.hpp"
#include "kernels/kernels.hpp"
#include "linear.hpp"

struct pthreadpool;

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

// One translator's union for the current sentence. Its rows of the output
// layer are copied, in storage type, into a packed matrix in the arena once
// per sentence; every decoder step then runs one linear layer (our kernels'
// matmat, over all hypotheses) on that matrix. Copying beats computing the
// rows in place: a union of ~1,500 ids of an 8k vocabulary falls into ~500
// runs of consecutive ids of ~3 rows, too short for the kernels.
class Shortlist {
 public:
  // Takes the buffers from the arena for the output layer `w`, `bias` (the
  // whole vocabulary): none when `enabled` is false.
  // Room for the vocabularies of up to `sentences` sentences decoded together.
  void layout(Arena& a, bool enabled, const kernels::Matrix& w, const float* bias, int sentences);
  // Whether layout reserved the buffers (a call may then use the shortlist).
  bool enabled() const { return mark_ != nullptr; }

  // Makes the union over the sources srcs[i] (lens[i] ids, i < n) active,
  // rows packed, when `use` and the table is present (requires enabled());
  // else switches the shortlist off. Returns the width of a logits row: the
  // union's size, or the vocabulary.
  int select(const ShortlistTable& table, bool use, const int32_t* const* srcs, const int* lens, int n, int eos);

  // With several sentences, each keeps its own vocabulary inside the union:
  // the columns of row `row` (of sentence b) outside sentence b's shortlist
  // become -inf, so its log-softmax and candidates are those of the sentence
  // translated alone.
  bool per_sentence() const { return active_ && sentences_ > 1; }
  void mask(int b, float* row) const;

  bool active() const { return active_; }
  // The vocabulary id of column i of a logits row.
  int32_t token(int i) const { return active_ ? ids_[i] : i; }

  // The output layer over the union: y[r * width + i] = W[id_i] · x_r + b[id_i]
  // for r < rows (x rows of w.cols floats). Scratch as Linear::run's.
  void output_layer(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq, float* xs,
                    pthreadpool* pool) const;

 private:
  kernels::Matrix w_;            // the whole output layer
  const float* bias_ = nullptr;
  int size_ = 0;
  bool active_ = false;
  uint8_t* mark_ = nullptr;      // [vocab]
  uint8_t* member_ = nullptr;    // [sentences, vocab] each sentence's own marks
  int sentences_ = 0;            // sentences of the current union
  int32_t* ids_ = nullptr;       // [vocab] the union, ascending
  uint8_t* rows_ = nullptr;      // [vocab, cols] packed rows, storage type
  float* scales_ = nullptr;      // [vocab] their i8 scales
  float* packed_bias_ = nullptr; // [vocab]
  Linear layer_;                 // on the packed rows (no XNNPACK: nothing allocated)
};

}  // namespace softalign::internal
