// The vocabulary shortlist (softalign.fbs `Shortlist`): per sentence, the
// union of the model's frequent target ids and the listed translations of
// each source id; the output layer, log-softmax and top-k then run over
// that union only. The union lives in arena memory sized at prepare for the
// whole vocabulary, so selecting it allocates nothing.
#pragma once

#include <cstdint>

#include "arena.hpp"
#include "kernels/kernels.hpp"

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

// One translator's union for the current sentence.
class Shortlist {
 public:
  // Takes the buffers from the arena: none when `present` is false.
  // `rows`: the most hypotheses one step computes; `cols`: the output layer's input size.
  void layout(Arena& a, bool present, int vocab, int rows, int cols);

  // Makes the union of `src` (n ids) active when `use` and the table is
  // present, else switches the shortlist off. Returns the width of a logits
  // row: the union's size, or the whole vocabulary.
  int select(const ShortlistTable& table, bool use, const int32_t* src, int n, int eos);

  bool active() const { return active_; }
  int size() const { return active_ ? size_ : vocab_; }
  // The vocabulary id of column i of a logits row.
  int32_t token(int i) const { return active_ ? ids_[i] : i; }

  // The output layer over the union: y[r * size() + i] = W[id_i] · x_r + b[id_i]
  // for r < rows, x rows of w.cols floats. Each run of consecutive ids is one
  // matrix-vector product with the kernel of w's storage type.
  void output_layer(const kernels::KernelTable& k, const kernels::Matrix& w, const float* bias, const float* x,
                    int rows, float* y) const;

 private:
  int vocab_ = 0;
  int size_ = 0;
  int runs_ = 0;
  bool active_ = false;
  uint8_t* mark_ = nullptr;       // [vocab]
  int32_t* ids_ = nullptr;        // [vocab] the union, ascending
  int32_t* run_first_ = nullptr;  // [vocab] first id of each run of consecutive ids
  int32_t* run_len_ = nullptr;    // [vocab]
  int8_t* xq_ = nullptr;          // [rows, cols] quantized inputs (i8 weights)
  float* x_scale_ = nullptr;      // [rows]
};

}  // namespace softalign::internal
