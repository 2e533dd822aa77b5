#include "half.h"

#include <cmath>

namespace softalign::convert {

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return bits_to_float(float_to_bits(v) | sign);
  }
  if (exp == 31) return bits_to_float(sign | 0x7f800000u | (mant << 13));  // inf, nan
  return bits_to_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t float_to_half(float f) {
  const uint32_t x = float_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u)  // inf or nan (nan stays a quiet nan)
    return sign | 0x7c00 | (a > 0x7f800000u ? 0x200 | ((a >> 13) & 0x3ff) : 0);
  if (a >= 0x477ff000u) return sign | 0x7c00;  // >= 65520 rounds to infinity
  const uint32_t e = a >> 23;
  if (e < 113) {  // below 2^-14: a half subnormal (or zero), units of 2^-24
    const uint32_t shift = 126 - e;
    if (shift >= 25) return sign;  // below 2^-25 (or exactly it: tie to even 0)
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) ++q;  // may carry into the smallest normal
    return sign | static_cast<uint16_t>(q);
  }
  uint32_t h = ((e - 112) << 10) | ((a & 0x7fffffu) >> 13);
  const uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // carry into the exponent is correct
  return sign | static_cast<uint16_t>(h);
}

}  // namespace softalign::convert
