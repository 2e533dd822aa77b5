// The exact set of tensors a config needs: names and shapes from
// models/WEIGHTS_FORMAT.md, computed from the config.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config.h"

namespace softalign::convert {

using Shape = std::vector<uint64_t>;

// name -> shape, for every tensor the variant reads (and no other).
std::map<std::string, Shape> expected_tensors(const ModelConfig& c);

std::string shape_to_string(const Shape& shape);

}  // namespace softalign::convert
