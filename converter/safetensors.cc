#include "safetensors.h"

#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "bounded_json.h"
#include "error.h"
#include "half.h"

namespace softalign::convert {

namespace {

using json = nlohmann::json;

uint64_t read_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_string(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

SourceTensor parse_entry(const std::string& name, const json& e, const uint8_t* data,
                         uint64_t data_size, const std::string& what) {
  const std::string where = what + ": tensor \"" + name + "\"";
  if (!e.is_object()) throw Error(where + ": header entry is not a JSON object");
  SourceTensor t;
  t.name = name;

  auto dt = e.find("dtype");
  if (dt == e.end() || !dt->is_string()) throw Error(where + ": header entry has no \"dtype\" string");
  const std::string dtype = dt->get<std::string>();
  if (dtype == "F32") {
    t.dtype = SourceDType::F32;
  } else if (dtype == "F16") {
    t.dtype = SourceDType::F16;
  } else {
    throw Error(where + " has dtype " + dtype + "; only F32 and F16 are accepted");
  }

  auto sh = e.find("shape");
  if (sh == e.end() || !sh->is_array()) throw Error(where + ": header entry has no \"shape\" array");
  uint64_t count = 1;
  for (const json& d : *sh) {
    if (!d.is_number_unsigned()) throw Error(where + ": shape " + sh->dump() + " is not a list of non-negative integers");
    uint64_t v = d.get<uint64_t>();
    if (v != 0 && count > std::numeric_limits<uint64_t>::max() / 8 / v)
      throw Error(where + ": shape " + sh->dump() + " is too large");
    count *= v;
    t.shape.push_back(v);
  }

  auto off = e.find("data_offsets");
  if (off == e.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    throw Error(where + ": header entry has no \"data_offsets\" [begin, end]");
  const uint64_t begin = (*off)[0].get<uint64_t>(), end = (*off)[1].get<uint64_t>();
  if (begin > end) throw Error(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] are reversed");
  if (end > data_size)
    throw Error(what + " is truncated: tensor \"" + name + "\" ends at data byte " + std::to_string(end) +
                " but the data section has " + std::to_string(data_size) + " bytes");
  const uint64_t esize = t.dtype == SourceDType::F32 ? 4 : 2;
  if (end - begin != count * esize)
    throw Error(where + ": " + std::to_string(end - begin) + " data bytes for shape " + shape_string(t.shape) +
                " " + dtype + " (needs " + std::to_string(count * esize) + ")");
  t.data = data + begin;
  t.size_bytes = end - begin;
  return t;
}

}  // namespace

uint64_t SourceTensor::element_count() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::vector<float> SourceTensor::to_f32() const {
  const uint64_t n = element_count();
  std::vector<float> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* p = data + i * (dtype == SourceDType::F32 ? 4 : 2);
    if (dtype == SourceDType::F32) {
      uint32_t bits = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
      out[i] = bits_to_float(bits);
    } else {
      out[i] = half_to_float(uint16_t(p[0] | p[1] << 8));
    }
  }
  return out;
}

SafeTensors parse_safetensors(std::vector<uint8_t> bytes, const std::string& what) {
  SafeTensors st;
  st.bytes = std::move(bytes);
  const uint64_t size = st.bytes.size();
  if (size < 8)
    throw Error(what + " is truncated: " + std::to_string(size) + " bytes, less than the 8-byte header length");
  const uint64_t header_len = read_u64_le(st.bytes.data());
  if (header_len > size - 8)
    throw Error(what + ": header length " + std::to_string(header_len) + " goes beyond the end of the file (" +
                std::to_string(size) + " bytes); not a safetensors file or truncated");

  const char* text = reinterpret_cast<const char*>(st.bytes.data()) + 8;
  const json header = parse_bounded_json(text, text + header_len, "the safetensors header of " + what);
  if (!header.is_object()) throw Error(what + ": the safetensors header is not a JSON object");

  const uint8_t* data = st.bytes.data() + 8 + header_len;
  const uint64_t data_size = size - 8 - header_len;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) throw Error(what + ": \"__metadata__\" is not a JSON object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) throw Error(what + ": metadata value \"" + m.key() + "\" is not a string");
        st.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    st.tensors[it.key()] = parse_entry(it.key(), *it, data, data_size, what);
  }
  return st;
}

SafeTensors read_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error("cannot read " + path);
  in.seekg(0, std::ios::beg);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) throw Error("cannot read " + path);
  return parse_safetensors(std::move(bytes), path);
}

}  // namespace softalign::convert
