// The cpuinfo stand-in (cpuinfo.h beside this file): CPU features from
// CPUID (x86, through the compiler's __builtin_cpu_supports) or from the
// kernel's HWCAP bits (ARM).
#include "cpuinfo.h"

#if defined(__aarch64__) || defined(__arm__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

extern "C" {

#if defined(__x86_64__) || defined(__i386__)
bool cpuinfo_initialize(void) {
  __builtin_cpu_init();
  return true;
}
bool cpuinfo_has_x86_avx2(void) { return __builtin_cpu_supports("avx2"); }
bool cpuinfo_has_x86_fma3(void) { return __builtin_cpu_supports("fma"); }
bool cpuinfo_has_x86_f16c(void) { return __builtin_cpu_supports("f16c"); }
bool cpuinfo_has_x86_avx512f(void) { return __builtin_cpu_supports("avx512f"); }
bool cpuinfo_has_x86_avx512bw(void) { return __builtin_cpu_supports("avx512bw"); }
bool cpuinfo_has_x86_avx512vl(void) { return __builtin_cpu_supports("avx512vl"); }
bool cpuinfo_has_x86_avx512vnni(void) { return __builtin_cpu_supports("avx512vnni"); }
#elif defined(__aarch64__)
bool cpuinfo_initialize(void) { return true; }
bool cpuinfo_has_arm_neon(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0; }
bool cpuinfo_has_arm_neon_fma(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0; }  // part of ARMv8's SIMD
bool cpuinfo_has_arm_vfpv4(void) { return (getauxval(AT_HWCAP) & HWCAP_FP) != 0; }
bool cpuinfo_has_arm_neon_dot(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }
#elif defined(__arm__)
bool cpuinfo_initialize(void) { return true; }
bool cpuinfo_has_arm_neon(void) { return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0; }
bool cpuinfo_has_arm_neon_fma(void) { return (getauxval(AT_HWCAP) & HWCAP_VFPv4) != 0; }  // VFPv4 brings the NEON FMA
bool cpuinfo_has_arm_vfpv4(void) { return (getauxval(AT_HWCAP) & HWCAP_VFPv4) != 0; }
bool cpuinfo_has_arm_neon_dot(void) { return false; }  // no ARMv7 core has the dot product
#else
bool cpuinfo_initialize(void) { return false; }
#endif

}  // extern "C"
