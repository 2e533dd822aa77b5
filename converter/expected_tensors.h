// The exact set of tensors a config needs, by name: the tensor contract
// (runtime/schema/softalign_tensors.h, shared with the runtime) as a map.
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
