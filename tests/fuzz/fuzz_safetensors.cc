// Fuzz target: the converter's input parsing. parse_safetensors on the bytes
// (8-byte header length, JSON header, data), then parse_config on the
// metadata's "config" when there is one, as softalign-convert does. A thrown
// std::exception is the converter's error path (main() prints it as one
// line); a crash, stack overflow, sanitizer report, timeout or out-of-memory
// is a finding. Seeds: the golden model.safetensors files.
#include <cstdint>
#include <exception>
#include <vector>

#include "config.h"
#include "safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sc = softalign::convert;
  try {
    sc::SafeTensors st = sc::parse_safetensors(std::vector<uint8_t>(data, data + size), "fuzz input");
    for (const auto& kv : st.tensors) {
      // What the converter reads of each tensor: its values as float32.
      if (kv.second.size_bytes <= (1u << 20)) (void)kv.second.to_f32();
    }
    auto it = st.metadata.find("config");
    if (it != st.metadata.end()) (void)sc::parse_config(it->second);
  } catch (const std::exception&) {
  }
  return 0;
}
