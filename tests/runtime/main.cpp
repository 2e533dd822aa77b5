// doctest's main, after one check: when SOFTALIGN_KERNELS names a kernel set
// this CPU cannot run (ctest runs the golden tests once per set), the test
// binary reports "skipped" (exit 77) instead of failing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

#include "kernels/kernels.hpp"

int main(int argc, char** argv) {
  const char* forced = std::getenv("SOFTALIGN_KERNELS");
  if (forced != nullptr && forced[0] != '\0' && softalign::kernels::select_kernels(forced) == nullptr) {
    std::printf("kernel set \"%s\" is not available on this CPU: skipped\n", forced);
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
