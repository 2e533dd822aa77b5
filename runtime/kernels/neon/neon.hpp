// The NEON kernel sets (runtime/kernels/neon/): "neon" (AArch64, and 32-bit
// ARM with NEON + VFPv4) and "neon_dot" (AArch64 with the ARMv8.2 dot product:
// the neon set with the int8 products on sdot).
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels {
struct KernelTable;
}

namespace softalign::kernels::neon {

void matvec_f32(const float* w, int rows, int cols, const float* x, const float* bias, float* y);
void matvec_f16(const uint16_t* w, int rows, int cols, const float* x, const float* bias, float* y);
void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y);
void matmat_f32(const float* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy);
void matmat_f16(const uint16_t* w, const int32_t* row_ids, int rows, int cols, const float* x, int m, const float* bias, float* y, int ldy);
void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy);
float quantize_i8(const float* x, int n, int8_t* xq);
void row_f16(const uint16_t* src, int n, float* dst);
void row_i8(const int8_t* src, float scale, int n, float* dst);
void gru_cell(const float* gi, const float* gh, const float* h, int hidden, float* h_out);
void additive_scores(const float* q, const float* keys, const float* v, int count, int dim, float* scores);
void dot_scores(const float* q, const float* keys, int count, int dim, float* scores);
void softmax(float* x, int n);
void log_softmax(const float* x, int n, float* y);
void weighted_sum(const float* a, const float* h, int count, int dim, float* c);
void maxout2(const float* u, int l, float* t);
int topk(const float* values, std::size_t n, int k, int32_t* idx, float* val);

// int8 products on sdot (matvec_i8_dot.cpp, compiled for armv8.2-a+dotprod):
// call only where the CPU has the dot product.
void matvec_i8_dot(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
                   const float* bias, float* y);
void matmat_i8_dot(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq,
                   const float* x_scales, int m, const float* bias, float* y, int ldy);

// The tables (table_neon.cpp); callers check the CPU first.
const KernelTable& table();
const KernelTable& dot_table();

}  // namespace softalign::kernels::neon
