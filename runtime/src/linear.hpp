// A linear layer Y = X Wᵀ + b over several rows (encoder input projections over
// all positions, attention keys, the output layer over all beams). f32 and f16
// weights go through an XNNPACK f32 fully-connected operator created at
// prepare (it packs its own f32 copy of the weights, so f16 is widened once
// there, exactly); i8 weights loop the kernel matvec (XNNPACK's per-channel
// int8 operator quantizes its output to int8, too coarse for logits).
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

  // use_xnnpack: allowed to use XNNPACK (f32 and f16 weights).
  Status init(const kernels::Matrix& w, const float* bias, bool use_xnnpack);
  // Y[r] = W X[r] + b for r < rows; X rows have w.cols floats (and readable
  // slack after the last), Y rows w.rows floats; xq: scratch of w.cols bytes.
  void run(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq,
           pthreadpool* pool) const;
  bool uses_xnnpack() const { return op_ != nullptr; }
  const kernels::Matrix& weight() const { return w_; }

 private:
  kernels::Matrix w_;
  const float* bias_ = nullptr;
  xnn_operator* op_ = nullptr;
};

}  // namespace softalign::internal
