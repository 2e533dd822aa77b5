// JSON from an untrusted file, parsed within bounds: nlohmann's dump() and
// the messages built from values recurse, so a header nested 10^5 deep would
// overflow the stack; and a header of gigabytes would take as much memory.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace softalign::convert {

constexpr int kMaxJsonDepth = 32;                        // objects and arrays inside each other
constexpr std::size_t kMaxJsonBytes = std::size_t{100} << 20;  // the safetensors format's own limit

// Parses [first, last); throws Error naming `what` for bad JSON, too deep a
// nesting or too many bytes.
nlohmann::json parse_bounded_json(const char* first, const char* last, const std::string& what);

}  // namespace softalign::convert
