// The version comes from CMake's project(VERSION) as compile definitions of
// this file only (runtime/CMakeLists.txt), so a version bump rebuilds one file.
#include "softalign/version.hpp"

#if !defined(SOFTALIGN_VERSION_MAJOR) || !defined(SOFTALIGN_VERSION_MINOR) || !defined(SOFTALIGN_VERSION_PATCH)
#error "build softalign with CMake: it defines SOFTALIGN_VERSION_MAJOR/MINOR/PATCH from project(VERSION)"
#endif

#define SOFTALIGN_STR2(x) #x
#define SOFTALIGN_STR(x) SOFTALIGN_STR2(x)

namespace softalign {

const char* version() {
  return SOFTALIGN_STR(SOFTALIGN_VERSION_MAJOR) "." SOFTALIGN_STR(SOFTALIGN_VERSION_MINOR) "." SOFTALIGN_STR(
      SOFTALIGN_VERSION_PATCH);
}
int version_major() { return SOFTALIGN_VERSION_MAJOR; }
int version_minor() { return SOFTALIGN_VERSION_MINOR; }
int version_patch() { return SOFTALIGN_VERSION_PATCH; }

}  // namespace softalign
