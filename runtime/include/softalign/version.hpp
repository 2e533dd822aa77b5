// softalign — library version.
#pragma once

namespace softalign {

constexpr int kVersionMajor = 0;
constexpr int kVersionMinor = 1;
constexpr int kVersionPatch = 0;
const char* version_string();  // "0.1.0"

}  // namespace softalign
