// Σ of n signed bytes by vpdpbusd (ones as the unsigned side): the offset
// terms of both AVX-512 int8 products. Internal linkage, like row_ptrs.hpp:
// only files built with the AVX-512 flags include it.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace softalign::kernels::avx512 {
namespace {

inline int32_t sum_i8(const int8_t* x, int n) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i acc = _mm512_setzero_si512();
  for (int c = 0; c < n; c += 64) {
    const __mmask64 mask = n - c >= 64 ? ~__mmask64(0) : (__mmask64(1) << (n - c)) - 1;
    acc = _mm512_dpbusd_epi32(acc, ones, _mm512_maskz_loadu_epi8(mask, x + c));
  }
  return _mm512_reduce_add_epi32(acc);
}

}  // namespace
}  // namespace softalign::kernels::avx512
