// Reading a .safetensors file: an 8-byte little-endian header length N, N
// bytes of JSON header, then the tensor data. The header maps each tensor name
// to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
// data section) and may hold "__metadata__", an object of strings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace softalign::convert {

enum class SourceDType { F32, F16 };

struct SourceTensor {
  std::string name;
  SourceDType dtype = SourceDType::F32;
  std::vector<uint64_t> shape;
  const uint8_t* data = nullptr;  // into SafeTensors::bytes; little-endian
  uint64_t size_bytes = 0;

  uint64_t element_count() const;
  // The values as float32 (f16 widened exactly).
  std::vector<float> to_f32() const;
};

struct SafeTensors {
  std::vector<uint8_t> bytes;                      // the whole file
  std::map<std::string, std::string> metadata;     // "__metadata__"
  std::map<std::string, SourceTensor> tensors;     // by name
};

// Reads and validates `path`; throws Error with one line naming the problem
// (truncated file, header length beyond the file, bad JSON, unsupported
// dtype, offsets outside the data, size not matching the shape, ...).
SafeTensors read_safetensors(const std::string& path);

// The same from bytes already in memory (`what` names them in messages).
SafeTensors parse_safetensors(std::vector<uint8_t> bytes, const std::string& what);

}  // namespace softalign::convert
