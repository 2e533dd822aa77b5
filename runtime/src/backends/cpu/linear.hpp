// A linear layer Y = X Wᵀ + b over several rows (encoder input projections over
// all positions, attention keys, the output layer over all beams).
//
// It runs the kernels' matmat straight on the weights as the file stores them
// (mapped: no copy, nothing to pack at prepare), split by blocks of output rows
// over the thread pool when the product is large enough. XNNPACK's f32
// fully-connected operator (use_xnnpack; f32 and f16 weights) runs the encoder
// input projections and attention keys of f32/f16 models, where it wins
// (prepare.cpp); the output layer stays on our kernels: there XNNPACK's
// operator gains only on f32 beams and would pack an f32 copy of the whole
// layer in every Translator (memory and load time), and Debian's XNNPACK has
// no int8 operator with float outputs for the int8 models that ship.
// `softalign_bench --linear` measures both (tests/bench/README.md).
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
  // The same over `count` of W's rows, row_ids[0, count) (a vocabulary
  // shortlist): Y[r * count + i] = W[row_ids[i]] X[r] + b[row_ids[i]].
  // Our kernels only (XNNPACK has no gathered product).
  void run_gather(const kernels::KernelTable& k, const int32_t* row_ids, int count, const float* x, int rows,
                  float* y, int8_t* xq, float* xs, pthreadpool* pool) const;
  bool uses_xnnpack() const { return op_ != nullptr; }
  const kernels::Matrix& weight() const { return w_; }

 private:
  // Our kernels over `out` output columns (W's rows, or row_ids' when not null).
  void run_kernels(const kernels::KernelTable& k, const int32_t* row_ids, int out, const float* x, int rows,
                   float* y, int8_t* xq, float* xs, pthreadpool* pool) const;

  kernels::Matrix w_;
  const float* bias_ = nullptr;
  // XNNPACK's operator holds its inputs between setup and run: a Linear that
  // has one is one translator's (cpu_weights.hpp), run by one thread at a time.
  xnn_operator* op_ = nullptr;
};

}  // namespace softalign::internal
