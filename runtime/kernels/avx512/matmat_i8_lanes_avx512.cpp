// AVX-512 VNNI int8 products over many input vectors: the inputs in lanes.
//
// The row-wise kernel (matvec_i8_avx512.cpp) puts 64 columns of one weight row
// in a vector and ends every output with a horizontal sum and a scalar
// epilogue; that overhead is as large as the multiply-adds themselves on
// 256-wide models. Here a vector holds 4 columns of 16 input vectors (packed
// once per call), each weight row's 4 bytes are broadcast, and 16 weight rows × 16
// inputs accumulate in 16 registers with no horizontal sum. A 16 × 16
// transpose then gives, per input, 16 consecutive outputs for a vectorised
// epilogue. Measured (-O3, 16–128 inputs, Zen 4) 2.1–2.3× the row-wise
// kernel's throughput at 256 columns and 1.4–1.5× at 768–1024; below about
// 8 inputs the empty lanes cost more than they save, so matmat_i8 sends only
// larger groups here.
//
// Signs: vpdpbusd multiplies unsigned by signed bytes. The broadcast weight is
// the signed side; the inputs are offset to unsigned (x + 128, a byte xor),
// and Σ (x + 128) w = Σ x w + 128 Σ w, where Σ w (the row's sum) is computed
// once per row and call. Exact for every int8 weight and |x| ≤ 127, so the
// outputs are bit-identical to the reference's.
#include <immintrin.h>

#include <cstring>

#include "kernels/avx512/avx512.hpp"
#include "kernels/avx512/sum_i8.hpp"
#include "kernels/row_ptrs.hpp"

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace softalign::kernels::avx512 {

namespace {

constexpr int kLanes = 16;
// The packed inputs live on the stack: 32 KB, as many 16-input tiles as fit.
constexpr int kPackBytes = 32 * 1024;

// Columns [4g, 4g + 4) of a row as one int32 (bytes past `cols` are zero: the
// last group of a row whose width is not a multiple of 4 never reads past it).
inline int32_t group_of(const int8_t* row, int g, int cols) {
  int32_t v = 0;
  const int c = 4 * g;
  std::memcpy(&v, row + c, static_cast<std::size_t>(cols - c < 4 ? cols - c : 4));
  return v;
}

// Packs inputs [0, mi) of a tile: xp[16 g + l] = bytes 4g..4g+3 of input l,
// each + 128 (as unsigned); lanes past mi and bytes past cols are 0 so that
// they add nothing.
void pack_tile(const int8_t* xq, int cols, int mi, int groups, int32_t* xp) {
  for (int g = 0; g < groups; ++g) {
    const int valid = cols - 4 * g < 4 ? cols - 4 * g : 4;
    const uint32_t flip = valid == 4 ? 0x80808080u : (0x80808080u >> (8 * (4 - valid)));
    for (int l = 0; l < kLanes; ++l)
      xp[kLanes * g + l] = l < mi ? static_cast<int32_t>(static_cast<uint32_t>(group_of(xq + static_cast<std::size_t>(l) * cols, g, cols)) ^ flip) : 0;
  }
}

// acc[a] lane l = Σ_c (x_l[c] + 128) w_a[c] over the tile's full groups and
// the last, partial one.
inline void tile_products(const int8_t* const* w, int cols, int groups, const int32_t* xp, __m512i* acc) {
  // Unrolled, so that the 16 accumulators stay in registers.
#pragma GCC unroll 16
  for (int a = 0; a < kLanes; ++a) acc[a] = _mm512_setzero_si512();
  const int full = cols / 4;
  for (int g = 0; g < full; ++g) {
    const __m512i xv = _mm512_load_si512(xp + kLanes * g);
#pragma GCC unroll 16
    for (int a = 0; a < kLanes; ++a) {
      int32_t wv;
      std::memcpy(&wv, w[a] + 4 * g, 4);
      acc[a] = _mm512_dpbusd_epi32(acc[a], xv, _mm512_set1_epi32(wv));
    }
  }
  if (full < groups) {
    const __m512i xv = _mm512_load_si512(xp + kLanes * full);
#pragma GCC unroll 16
    for (int a = 0; a < kLanes; ++a) acc[a] = _mm512_dpbusd_epi32(acc[a], xv, _mm512_set1_epi32(group_of(w[a], full, cols)));
  }
}

// In-place transpose of a 16 × 16 int32 block held in 16 registers.
inline void transpose16(__m512i* v) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(v[i], v[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(v[i], v[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    v[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    v[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    v[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    v[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  // Now v[4b + j] holds, in each 128-bit lane q, element j of rows 4q'..: the
  // 4 × 4 blocks are transposed; move the 128-bit blocks into place.
  for (int i = 0; i < 4; ++i) {
    const __m512i a = _mm512_shuffle_i32x4(v[i], v[i + 4], 0x88);       // blocks 0, 2 of each
    const __m512i b = _mm512_shuffle_i32x4(v[i], v[i + 4], 0xdd);       // blocks 1, 3
    const __m512i c = _mm512_shuffle_i32x4(v[i + 8], v[i + 12], 0x88);
    const __m512i d = _mm512_shuffle_i32x4(v[i + 8], v[i + 12], 0xdd);
    t[i] = _mm512_shuffle_i32x4(a, c, 0x88);
    t[i + 8] = _mm512_shuffle_i32x4(a, c, 0xdd);
    t[i + 4] = _mm512_shuffle_i32x4(b, d, 0x88);
    t[i + 12] = _mm512_shuffle_i32x4(b, d, 0xdd);
  }
  for (int i = 0; i < 16; ++i) v[i] = t[i];
}

}  // namespace

void matmat_i8_lanes(const int8_t* w, const int32_t* row_ids, const float* row_scales, int rows, int cols,
                     const int8_t* xq, const float* x_scales, int m, const float* bias, float* y, int ldy) {
  const int groups = (cols + 3) / 4;
  alignas(64) int32_t xp[kPackBytes / 4];
  const int tile_words = kLanes * groups;
  const int tiles_per_chunk = kPackBytes / 4 / tile_words;  // ≥ 1: callers keep cols ≤ kLanesMaxCols
  for (int i0 = 0; i0 < m; i0 += tiles_per_chunk * kLanes) {
    const int chunk = m - i0 < tiles_per_chunk * kLanes ? m - i0 : tiles_per_chunk * kLanes;
    const int tiles = (chunk + kLanes - 1) / kLanes;
    for (int t = 0; t < tiles; ++t) {
      const int mi = chunk - t * kLanes < kLanes ? chunk - t * kLanes : kLanes;
      pack_tile(xq + static_cast<std::size_t>(i0 + t * kLanes) * cols, cols, mi, groups, xp + t * tile_words);
    }
    for (int r0 = 0; r0 < rows; r0 += kLanes) {
      const int nr = rows - r0 < kLanes ? rows - r0 : kLanes;
      const __mmask16 row_mask = static_cast<__mmask16>((1u << nr) - 1);
      // The tile's rows (a short last tile repeats its first row: computed, never stored).
      const int8_t* wr[kLanes];
      alignas(64) int32_t ids[kLanes], sums[kLanes];
      for (int a = 0; a < kLanes; ++a) {
        ids[a] = row_id(row_ids, r0 + (a < nr ? a : 0));
        wr[a] = w + static_cast<std::size_t>(ids[a]) * cols;
        sums[a] = a < nr ? 128 * sum_i8(wr[a], cols) : 0;
      }
      const __m512i idv = _mm512_load_si512(ids);
      const __m512i offset = _mm512_load_si512(sums);
      const __m512 scale = _mm512_i32gather_ps(idv, row_scales, 4);
      const __m512 bias_v = bias ? _mm512_i32gather_ps(idv, bias, 4) : _mm512_setzero_ps();
      for (int t = 0; t < tiles; ++t) {
        const int mi = chunk - t * kLanes < kLanes ? chunk - t * kLanes : kLanes;
        __m512i acc[kLanes];
        tile_products(wr, cols, groups, xp + t * tile_words, acc);
        transpose16(acc);  // acc[l]: input l's sums over the 16 rows
        for (int l = 0; l < mi; ++l) {
          const int i = i0 + t * kLanes + l;
          const __m512 sums_f = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[l], offset));
          __m512 v = _mm512_mul_ps(sums_f, _mm512_mul_ps(scale, _mm512_set1_ps(x_scales[i])));
          if (bias) v = _mm512_add_ps(v, bias_v);
          _mm512_mask_storeu_ps(y + static_cast<std::size_t>(i) * ldy + r0, row_mask, v);
        }
      }
    }
  }
}

}  // namespace softalign::kernels::avx512
