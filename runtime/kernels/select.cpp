// Picks the kernel set once, at prepare. A per-ISA set (kernels/<isa>/, its
// files compiled with their own flags) is listed only when cpuinfo says the
// CPU has its instructions, best last; "auto" takes the last one.
#if SOFTALIGN_HAVE_X86_KERNELS || SOFTALIGN_HAVE_NEON_KERNELS
#include <cpuinfo.h>
#endif

#include <cstdlib>
#include <cstring>

#include "kernels/kernels.hpp"
#if SOFTALIGN_HAVE_X86_KERNELS
#include "kernels/avx2/avx2.hpp"
#include "kernels/avx512/avx512.hpp"
#endif
#if SOFTALIGN_HAVE_NEON_KERNELS
#include "kernels/neon/neon.hpp"
#endif
#if SOFTALIGN_HAVE_WASM_SIMD_KERNELS
#include "kernels/wasm_simd/wasm_simd.hpp"
#endif
#if SOFTALIGN_HAVE_WASM_SIMD128_KERNELS
#include "kernels/wasm_simd128/wasm_simd128.hpp"
#endif

namespace softalign::kernels {

int available_kernels(const KernelTable** out, int max) {
  const KernelTable* sets[4];
  int n = 0;
  sets[n++] = &ref_kernels();
#if SOFTALIGN_HAVE_X86_KERNELS
  if (cpuinfo_initialize()) {
    const bool avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3() && cpuinfo_has_x86_f16c();
    if (avx2) sets[n++] = &avx2::table();
    if (avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
        cpuinfo_has_x86_avx512vnni())
      sets[n++] = &avx512::table();
  }
#endif
#if SOFTALIGN_HAVE_NEON_KERNELS
  // cpuinfo reads the features from the kernel's HWCAP bits (getauxval),
  // which qemu-user sets from its -cpu model too.
  if (cpuinfo_initialize()) {
#if defined(__aarch64__)
    const bool neon = cpuinfo_has_arm_neon() && cpuinfo_has_arm_neon_fma();  // baseline of ARMv8-A
#else
    const bool neon = cpuinfo_has_arm_neon() && cpuinfo_has_arm_neon_fma() && cpuinfo_has_arm_vfpv4();
#endif
    if (neon) sets[n++] = &neon::table();
#if SOFTALIGN_HAVE_NEON_DOT_KERNELS
    if (neon && cpuinfo_has_arm_neon_dot()) sets[n++] = &neon::dot_table();
#endif
  }
#endif
#if SOFTALIGN_HAVE_WASM_SIMD_KERNELS
  // WebAssembly: SIMD is decided when the module is built (an engine without
  // SIMD128 would not load the module at all).
  sets[n++] = &wasm_simd::table();
#endif
#if SOFTALIGN_HAVE_WASM_SIMD128_KERNELS
  sets[n++] = &wasm_simd128::table();  // written for WASM: the best there
#endif
  for (int i = 0; i < n && i < max; ++i) out[i] = sets[i];
  return n;
}

const char* requested_kernels(const char* name) {
  if (name != nullptr && name[0] != '\0') return name;
  const char* env = std::getenv("SOFTALIGN_KERNELS");
  return (env != nullptr && env[0] != '\0') ? env : "auto";
}

const KernelTable* select_kernels(const char* name) {
  name = requested_kernels(name);
  const KernelTable* sets[16];
  const int n = available_kernels(sets, 16);
  if (std::strcmp(name, "auto") == 0) return sets[(n < 16 ? n : 16) - 1];
  for (int i = 0; i < n && i < 16; ++i)
    if (std::strcmp(name, sets[i]->name) == 0) return sets[i];
  return nullptr;
}

}  // namespace softalign::kernels
