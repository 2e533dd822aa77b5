// float <-> float16 conversion: exact widening, round to nearest even.
#include <cmath>
#include <cstring>
#include <random>

#include <doctest/doctest.h>

#include "half.h"

using softalign::convert::bits_to_float;
using softalign::convert::float_to_bits;
using softalign::convert::float_to_half;
using softalign::convert::half_to_float;

TEST_CASE("fp16: every half value widens and narrows back to itself") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(uint16_t(h));
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    if (nan) {
      CHECK(std::isnan(f));
      CHECK(std::isnan(half_to_float(float_to_half(f))));
    } else {
      REQUIRE_MESSAGE(float_to_half(f) == h, h);
    }
  }
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_to_float(0xc000) == -2.0f);
}

// The oracle: between the two neighbouring halves, the nearer one, ties to the
// one with an even mantissa.
static uint16_t nearest_half(float f) {
  if (std::fabs(f) >= 65520.0f) return f > 0 ? 0x7c00 : 0xfc00;
  // Candidates: all finite halves of f's sign near f (binary search over the
  // ordered magnitudes 0x0000..0x7bff).
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const float a = std::fabs(f);
  uint16_t lo = 0, hi = 0x7bff;
  while (hi - lo > 1) {
    const uint16_t mid = uint16_t((lo + hi) / 2);
    if (half_to_float(mid) <= a) lo = mid; else hi = mid;
  }
  if (half_to_float(hi) <= a) lo = hi;
  if (lo == 0x7bff || half_to_float(lo) == a) return sign | lo;
  const double dl = a - double(half_to_float(lo)), dh = double(half_to_float(uint16_t(lo + 1))) - a;
  if (dl < dh) return sign | lo;
  if (dh < dl) return sign | uint16_t(lo + 1);
  return sign | ((lo & 1) ? uint16_t(lo + 1) : lo);
}

TEST_CASE("fp16: rounding matches round-to-nearest-even on random and edge floats") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    // Random exponents across the fp16 range and beyond, random mantissas.
    const uint32_t b = (bits(rng) & 0x807fffffu) | (((bits(rng) % 48) + 95) << 23);
    const float f = bits_to_float(b);
    REQUIRE_MESSAGE(float_to_half(f) == nearest_half(f), f);
  }
  // Exact ties (a float halfway between two halves) at several binades.
  for (uint16_t h : {uint16_t(0x0001), uint16_t(0x0002), uint16_t(0x03ff), uint16_t(0x0400), uint16_t(0x3c00),
                     uint16_t(0x3c01), uint16_t(0x7bfe)}) {
    const float mid = float((double(half_to_float(h)) + double(half_to_float(uint16_t(h + 1)))) / 2);
    CHECK(float_to_half(mid) == ((h & 1) ? h + 1 : h));
  }
  CHECK(float_to_half(65519.99f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);
  CHECK(float_to_half(-1e10f) == 0xfc00);
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);           // tie to even zero
  CHECK(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  CHECK(float_to_half(1e-30f) == 0x0000);
  CHECK(float_to_half(-0.0f) == 0x8000);
}

#if defined(__FLT16_MAX__) && defined(__x86_64__)
TEST_CASE("fp16: agrees with the compiler's _Float16 conversion") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 1000000; ++i) {
    const float f = bits_to_float(bits(rng));
    if (std::isnan(f)) continue;
    const _Float16 h = static_cast<_Float16>(f);
    uint16_t hb;
    std::memcpy(&hb, &h, 2);
    REQUIRE_MESSAGE(float_to_half(f) == hb, f);
  }
}
#endif
