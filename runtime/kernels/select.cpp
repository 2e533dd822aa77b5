// Picks the kernel set once, at prepare. Only the reference set exists so far;
// per-ISA sets register here, chosen by cpuinfo, with SOFTALIGN_KERNELS forcing one.
#include <cstdlib>
#include <cstring>

#include "kernels/kernels.hpp"

namespace softalign::kernels {

const KernelTable* select_kernels(const char* name) {
  if (name == nullptr || name[0] == '\0') {
    const char* env = std::getenv("SOFTALIGN_KERNELS");
    name = (env != nullptr && env[0] != '\0') ? env : "auto";
  }
  if (std::strcmp(name, "auto") == 0 || std::strcmp(name, "ref") == 0) return &ref_kernels();
  return nullptr;
}

}  // namespace softalign::kernels
