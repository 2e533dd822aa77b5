// Picks the kernel set once, at prepare. Only the reference set exists so far;
// a per-ISA set (kernels/<isa>/, its files compiled with their own flags)
// adds itself to available_kernels() when cpuinfo says the CPU has its
// instructions, best last, and "auto" takes the last one.
#include <cstdlib>
#include <cstring>

#include "kernels/kernels.hpp"

namespace softalign::kernels {

int available_kernels(const KernelTable** out, int max) {
  const KernelTable* sets[] = {&ref_kernels()};
  const int n = static_cast<int>(sizeof sets / sizeof sets[0]);
  for (int i = 0; i < n && i < max; ++i) out[i] = sets[i];
  return n;
}

const KernelTable* select_kernels(const char* name) {
  if (name == nullptr || name[0] == '\0') {
    const char* env = std::getenv("SOFTALIGN_KERNELS");
    name = (env != nullptr && env[0] != '\0') ? env : "auto";
  }
  const KernelTable* sets[16];
  const int n = available_kernels(sets, 16);
  if (std::strcmp(name, "auto") == 0) return sets[(n < 16 ? n : 16) - 1];
  for (int i = 0; i < n && i < 16; ++i)
    if (std::strcmp(name, sets[i]->name) == 0) return sets[i];
  return nullptr;
}

}  // namespace softalign::kernels
