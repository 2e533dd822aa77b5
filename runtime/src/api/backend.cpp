// The backends' names (TranslatorOptions::backend).
#include "softalign/options.hpp"

namespace softalign {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::kAuto: return "auto";
    case Backend::kCpu: return "cpu";
    case Backend::kVulkan: return "vulkan";
  }
  return "auto";
}

bool backend_from_name(std::string_view name, Backend* out) {
  for (Backend b : {Backend::kAuto, Backend::kCpu, Backend::kVulkan})
    if (name == backend_name(b)) {
      *out = b;
      return true;
    }
  return false;
}

}  // namespace softalign
