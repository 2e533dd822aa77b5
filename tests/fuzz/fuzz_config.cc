// Fuzz target: the converter's config parser (parse_config) on arbitrary JSON
// text. A thrown std::exception is the converter's error path; a crash, stack
// overflow, sanitizer report, timeout or out-of-memory is a finding. Seeds:
// the "config" metadata of each golden model.safetensors.
#include <cstdint>
#include <exception>
#include <string>

#include "config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)softalign::convert::parse_config(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception&) {
  }
  return 0;
}
