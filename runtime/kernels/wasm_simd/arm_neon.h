// <arm_neon.h> for the wasm_simd kernel set: the neon set's files compiled
// for WebAssembly SIMD128, their NEON intrinsics mapped by SIMDe
// (libsimde-dev, header-only) onto WASM SIMD. Only those files see this
// directory (runtime/CMakeLists.txt). WASM has no fused multiply-add, so
// SIMDe's vfmaq_f32 rounds twice: results are close to the neon set's, not
// bit-identical (tests/runtime/kernels_sets_test.cpp compares with the
// reference at a tolerance).
#pragma once
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>

// SIMDe 0.7.4 (Debian bookworm) has no vfmsq_f32: c − a·b, rounded twice as
// its vfmaq_f32 is on WASM.
#if !defined(vfmsq_f32)
static inline simde_float32x4_t softalign_vfmsq_f32(simde_float32x4_t a, simde_float32x4_t b, simde_float32x4_t c) {
  return simde_vsubq_f32(a, simde_vmulq_f32(b, c));
}
#define vfmsq_f32 softalign_vfmsq_f32
#endif
