#include "expected_tensors.h"

#include "softalign_tensors.h"

namespace softalign::convert {

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::map<std::string, Shape> expected_tensors(const ModelConfig& c) {
  std::map<std::string, Shape> t;
  for (const format::TensorSpec& s : format::tensor_specs(c)) t[s.name] = Shape(s.shape.begin(), s.shape.end());
  return t;
}

}  // namespace softalign::convert
