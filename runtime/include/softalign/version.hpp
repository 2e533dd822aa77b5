// softalign — library version. The one place the version is written is the
// top-level CMakeLists.txt (project(softalign VERSION ...)); the library is
// compiled with it, so these report the library actually linked or loaded.
#pragma once

#include "softalign/export.h"

namespace softalign {

SOFTALIGN_API const char* version();  // "MAJOR.MINOR.PATCH", e.g. "0.1.0"
SOFTALIGN_API int version_major();
SOFTALIGN_API int version_minor();
SOFTALIGN_API int version_patch();

}  // namespace softalign
