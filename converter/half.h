// IEEE binary16 <-> binary32 conversion, bit-exact and portable.
#pragma once

#include <cstdint>
#include <cstring>

namespace softalign::convert {

inline float bits_to_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint32_t float_to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Exact widening (NaN payloads kept).
float half_to_float(uint16_t h);

// Round to nearest, ties to even; values of magnitude >= 65520 become
// infinity (the caller decides whether that is an error).
uint16_t float_to_half(float f);

}  // namespace softalign::convert
