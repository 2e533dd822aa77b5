// Picks the kernel set once, at prepare. A per-ISA set (kernels/<isa>/, its
// files compiled with their own flags) is listed only when cpuinfo says the
// CPU has its instructions, best last; "auto" takes the last one.
#include <cpuinfo.h>

#include <cstdlib>
#include <cstring>

#include "kernels/kernels.hpp"
#if SOFTALIGN_HAVE_X86_KERNELS
#include "kernels/avx2/avx2.hpp"
#include "kernels/avx512/avx512.hpp"
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
