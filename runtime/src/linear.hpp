// A linear layer Y = X Wᵀ + b over several rows (encoder input projections over
// all positions, attention keys, the output layer over all beams).
//
// By default it runs our kernels' matmat straight on the weights as the file
// stores them (mmapped: no copy, nothing to pack at prepare), split by blocks
// of output rows over the thread pool. XNNPACK's f32 fully-connected operator
// is kept as an option (use_xnnpack) for f32 and f16 weights: it packs its own
// f32 copy of the weights in every Translator. Measured on a 256-wide bahdanau
// model with 8k vocabularies (tests/bench), the kernels' matmat is as fast as
// XNNPACK for the output layer at 1–4 rows (the decode step: memory-bound
// either way) and the copies cost ~10 MB and ~35 ms of prepare per Translator,
// so the runtime does not use XNNPACK; see prepare.cpp.
#pragma once

#include <cstdint>

#include "kernels/kernels.hpp"
#include "softalign/status.hpp"

struct xnn_operator;
struct pthreadpool;

namespace softalign::internal {

class Linear {
 public:
  Linear() = default;
  ~Linear();
  Linear(const Linear&) = delete;
  Linear& operator=(const Linear&) = delete;

  // use_xnnpack: use XNNPACK's operator (f32 and f16 weights only).
  Status init(const kernels::Matrix& w, const float* bias, bool use_xnnpack);
  // Y[r] = W X[r] + b for r < rows; X rows have w.cols floats (and readable
  // slack after the last), Y rows w.rows floats. Scratch for i8 weights:
  // xq of rows × w.cols bytes, xs of rows floats. pool may be null.
  void run(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq, float* xs,
           pthreadpool* pool) const;
  bool uses_xnnpack() const { return op_ != nullptr; }
  const kernels::Matrix& weight() const { return w_; }

 private:
  kernels::Matrix w_;
  const float* bias_ = nullptr;
  xnn_operator* op_ = nullptr;
};

}  // namespace softalign::internal
