// A linear layer Y = X Wᵀ + b over several rows (encoder input projections over
// all positions, attention keys, the output layer over all beams).
//
// It runs the kernels' matmat straight on the weights as the file stores them
// (mapped: no copy, nothing to pack at prepare), split by blocks of output rows
// over the thread pool when the product is large enough. XNNPACK's f32
// fully-connected operator (use_xnnpack; f32 and f16 weights) runs the encoder
// input projections and attention keys of f32/f16 models, where it wins
// (prepare.cpp); the output layer stays on our kernels. Measured with `softalign_bench --linear`
// on the trained 256-wide bahdanau model (8k target vocabulary), AVX-512 host:
//   f32 output layer, 1 row:  kernels 0.104 ms, XNNPACK 0.117 ms
//   f32 output layer, 4 rows: kernels 0.326 ms, XNNPACK 0.245 ms
//   f32 encoder W_ih, 30 rows: kernels 0.178 ms, XNNPACK 0.117 ms
//   XNNPACK create (packs an f32 copy): 10.7 ms and 8 MB for the output layer,
//   in every Translator; int8 (what ships): 0.045 / 0.116 / 0.086 ms, and
//   XNNPACK 2022 has no int8 operator with float outputs.
// The copies alone break "peak RSS <= file + 20 MB" and "load to first
// translation <= 10 ms", for a 1.3-1.5x gain on f32 beams only.
#pragma once

#include <cstdint>
#include <mutex>

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
  xnn_operator* op_ = nullptr;
  // An XNNPACK operator holds its inputs between setup and run: translators
  // sharing the layer (it belongs to the Model) take turns on it.
  mutable std::mutex xnn_mutex_;
};

}  // namespace softalign::internal
