// Damaged model files for tests: a file's bytes, where a tensor's data and
// scales lie in them, and a float written over them.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "golden_util.hpp"
#include "softalign_format.h"

namespace damaged {

inline std::vector<uint8_t> read_file(const golden::fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), p.string());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Byte offsets of a tensor's data and scales inside the file.
struct TensorBytes {
  std::size_t data = 0, data_size = 0, scales = 0, scale_count = 0;
};

inline TensorBytes locate(const std::vector<uint8_t>& file, const char* name) {
  std::string err;
  const softalign::fb::Model* m = softalign::format::verify_model(file.data(), file.size(), &err);
  REQUIRE_MESSAGE(m != nullptr, err);
  const softalign::fb::Tensor* t = softalign::format::find_tensor(*m, name);
  REQUIRE_MESSAGE(t != nullptr, name);
  TensorBytes b;
  b.data = static_cast<std::size_t>(t->data()->data() - file.data());
  b.data_size = t->data()->size();
  if (t->scales() != nullptr) {
    b.scales = static_cast<std::size_t>(reinterpret_cast<const uint8_t*>(t->scales()->data()) - file.data());
    b.scale_count = t->scales()->size();
  }
  return b;
}

inline void put_float(std::vector<uint8_t>& file, std::size_t at, float v) { std::memcpy(&file[at], &v, 4); }

}  // namespace damaged
