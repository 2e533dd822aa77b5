// softalign — the kernel interface: a table of function pointers.
//
// The reference kernels (kernels/ref/, "ref") are plain loops, obviously
// correct, never tuned: they are the oracle every faster kernel set is tested
// against. Faster sets (per ISA, each file compiled with its own flags) fill
// the same table and are chosen once at prepare by CPU detection; the
// environment variable SOFTALIGN_KERNELS forces one ("ref", ...).
//
// All kernels are allocation-free; scratch memory comes from the caller.
#pragma once

#include <cstddef>
#include <cstdint>

#include "softalign/config.hpp"

namespace softalign::kernels {

// A row-major weight matrix [rows, cols] as stored in the model file.
// i8 matrices carry one scale per row (w = q * scale).
struct Matrix {
  WeightType type = WeightType::kF32;
  int rows = 0;
  int cols = 0;
  const void* data = nullptr;
  const float* scales = nullptr;  // i8 only

  // Rows [first, first + count) as a matrix of their own.
  Matrix slice_rows(int first, int count) const;
};

struct KernelTable {
  const char* name;
  // matmat_i8 puts the input vectors in vector lanes from this many on (0:
  // never), where a product costs per input about a quarter of one input's
  // alone (AVX-512): a caller may then prefer one larger product.
  int i8_lanes_min_inputs = 0;

  // y[r] = W[r,:]·x (+ bias[r] when bias is not null), r in [0, rows).
  void (*matvec_f32)(const float* w, int rows, int cols, const float* x, const float* bias, float* y);
  // fp16 weights, widened to f32 one element at a time; f32 accumulation.
  void (*matvec_f16)(const uint16_t* w, int rows, int cols, const float* x, const float* bias, float* y);
  // int8 weights with per-row scales times an int8 vector with one scale:
  // y[r] = row_scale[r] * x_scale * Σ_c w[r,c] xq[c] (int32 accumulation).
  void (*matvec_i8)(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq,
                    float x_scale, const float* bias, float* y);
  // The same products for m input vectors at once (each weight row read once
  // for all of them): Y[i*ldy + r] = W[r,:]·X[i*cols ...] (+ bias[r]), i < m.
  // i8: one scale per input vector, x_scales[i]. With row_ids (not null), row
  // r of the product is W's row row_ids[r] (its scale and bias too): a
  // gathered product, e.g. over a sentence's vocabulary shortlist.
  void (*matmat_f32)(const float* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y,
                     int ldy);
  void (*matmat_f16)(const uint16_t* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y,
                     int ldy);
  void (*matmat_i8)(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq,
                    const float* x_scales, int m, const float* bias, float* y, int ldy);
  // Symmetric per-vector quantization: scale = max|x| / 127, xq = round(x / scale);
  // returns the scale (0 and xq = 0 for an all-zero x).
  float (*quantize_i8)(const float* x, int n, int8_t* xq);

  // One row of a stored matrix as f32 (embedding lookup).
  void (*row_f16)(const uint16_t* src, int n, float* dst);
  void (*row_i8)(const int8_t* src, float scale, int n, float* dst);

  // PyTorch GRU cell from gi = W_ih x + b_ih and gh = W_hh h + b_hh (gate
  // blocks r, z, n of `hidden` each): r = σ(gi_r + gh_r), z = σ(gi_z + gh_z),
  // n = tanh(gi_n + r ⊙ gh_n), h_out = (1 − z) ⊙ n + z ⊙ h. h_out may alias h.
  void (*gru_cell)(const float* gi, const float* gh, const float* h, int hidden, float* h_out);
  // PyTorch LSTM cell from gi = W_ih x + b_ih and gh = W_hh h + b_hh (gate
  // blocks i, f, g, o of `hidden` each) and the cell state c: i = σ(gi_i + gh_i),
  // f = σ(gi_f + gh_f), g = tanh(gi_g + gh_g), o = σ(gi_o + gh_o),
  // c_out = f ⊙ c + i ⊙ g, h_out = o ⊙ tanh(c_out). c_out may alias c.
  void (*lstm_cell)(const float* gi, const float* gh, const float* c, int hidden, float* h_out, float* c_out);

  // Additive scores: scores[j] = Σ_k v[k] tanh(q[k] + keys[j*dim + k]), j < count.
  void (*additive_scores)(const float* q, const float* keys, const float* v, int count, int dim,
                          float* scores);
  // Dot scores: scores[j] = q · keys[j*dim ...], j < count.
  void (*dot_scores)(const float* q, const float* keys, int count, int dim, float* scores);
  // In-place softmax over x[0, n).
  void (*softmax)(float* x, int n);
  // y = log_softmax(x) over n entries (y may alias x).
  void (*log_softmax)(const float* x, int n, float* y);
  // c[k] = Σ_j a[j] h[j*dim + k], j < count.
  void (*weighted_sum)(const float* a, const float* h, int count, int dim, float* c);
  // t[k] = max(u[2k], u[2k+1]), k < l.
  void (*maxout2)(const float* u, int l, float* t);
  // The k largest of values[0, n) (ties: lower index first), written best
  // first to idx/val; returns min(k, n).
  int (*topk)(const float* values, std::size_t n, int k, int32_t* idx, float* val);
};

// The reference kernels.
const KernelTable& ref_kernels();

// The kernel set named `name` ("ref"; "" or "auto" = the best for this CPU,
// after the SOFTALIGN_KERNELS override), or null when unknown or not
// supported by this CPU.
const KernelTable* select_kernels(const char* name);

// The set `name` asks for: `name` itself, or when it is empty the
// SOFTALIGN_KERNELS environment variable, or "auto" (what select_kernels looks up).
const char* requested_kernels(const char* name);

// Every kernel set this CPU can run, the reference first (tests run them all).
// Returns the count; fills at most `max` entries of `out`.
int available_kernels(const KernelTable** out, int max);

// y = W x (+ bias), any storage type; `xq` is scratch of W.cols bytes (i8 only).
void matvec(const KernelTable& k, const Matrix& w, const float* x, const float* bias, float* y,
            int8_t* xq);
// Y[i*ldy + r] = W X[i] (+ bias) for i < m, any storage type, X already
// quantized for i8 (xq: m × W.cols bytes, x_scales: m), as floats otherwise.
void matmat(const KernelTable& k, const Matrix& w, const float* x, const int8_t* xq, const float* x_scales, int m,
            const float* bias, float* y, int ldy);
// The same over `count` gathered rows of W: Y[i*ldy + r] = W[row_ids[r]] X[i] (+ bias[row_ids[r]]).
void matmat_gather(const KernelTable& k, const Matrix& w, const int32_t* row_ids, int count, const float* x,
                   const int8_t* xq, const float* x_scales, int m, const float* bias, float* y, int ldy);
// dst = row `r` of W as f32 (W.cols values).
void get_row(const KernelTable& k, const Matrix& w, int r, float* dst);

// IEEE half → float, exact.
float half_to_float(uint16_t h);

}  // namespace softalign::kernels
