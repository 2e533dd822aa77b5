// The AVX-512 VNNI kernel set: the AVX2 set with int8 products on
// vpdpbusd (Ice Lake, Zen 4 and later).
#pragma once

#include <cstdint>

namespace softalign::kernels {
struct KernelTable;
}

namespace softalign::kernels::avx512 {

void matvec_i8(const int8_t* w, const float* row_scales, int rows, int cols, const int8_t* xq, float x_scale,
               const float* bias, float* y);
void matmat_i8(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols, const int8_t* xq, const float* x_scales,
               int m, const float* bias, float* y, int ldy);

// The same products with the inputs in lanes (matmat_i8_lanes_avx512.cpp):
// faster from about 8 inputs on; for cols ≤ kLanesMaxCols (its packed inputs
// are on the stack).
constexpr int kLanesMaxCols = 2048;
constexpr int kLanesMinInputs = 8;
void matmat_i8_lanes(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols,
                     const int8_t* xq, const float* x_scales, int m, const float* bias, float* y, int ldy);

const KernelTable& table();

}  // namespace softalign::kernels::avx512
