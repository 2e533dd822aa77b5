/* A stand-in for cpuinfo (the part of its API runtime/kernels/select.cpp
 * calls), used where Debian's libcpuinfo cannot be linked: the self-contained
 * build (SOFTALIGN_SELF_CONTAINED, the Java package's JNI library), which may
 * need no shared library but libc, libm, libstdc++ and libgcc, and Debian
 * ships cpuinfo only as a shared library. The answers come from the same
 * source cpuinfo reads: the compiler's CPUID check on x86 (which also asks
 * the OS whether it saves the AVX and AVX-512 registers) and the kernel's
 * HWCAP bits on ARM (getauxval). */
#ifndef SOFTALIGN_COMPAT_CPUINFO_H
#define SOFTALIGN_COMPAT_CPUINFO_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

bool cpuinfo_initialize(void);

#if defined(__x86_64__) || defined(__i386__)
bool cpuinfo_has_x86_avx2(void);
bool cpuinfo_has_x86_fma3(void);
bool cpuinfo_has_x86_f16c(void);
bool cpuinfo_has_x86_avx512f(void);
bool cpuinfo_has_x86_avx512bw(void);
bool cpuinfo_has_x86_avx512vl(void);
bool cpuinfo_has_x86_avx512vnni(void);
#endif

#if defined(__aarch64__) || defined(__arm__)
bool cpuinfo_has_arm_neon(void);
bool cpuinfo_has_arm_neon_fma(void);
bool cpuinfo_has_arm_vfpv4(void);
bool cpuinfo_has_arm_neon_dot(void);
#endif

#ifdef __cplusplus
}
#endif

#endif
