// A linear layer Y = X Wᵀ + b over several rows (encoder input projections over
// all positions, attention keys, the output layer over all beams). f32 weights
// go through an XNNPACK fully-connected operator created at prepare (it packs
// its own copy of the weights); f16 and i8 weights loop the kernel matvec.
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

  // use_xnnpack: allowed to use XNNPACK (f32 weights only).
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
