// Writing a file so that it either appears complete or not at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace softalign::convert {

// Writes to a temporary file beside `path`, then renames it over `path`.
// On any failure the temporary is removed, `path` is untouched, and Error
// says "cannot write PATH: reason".
void write_file_atomically(const std::string& path, const uint8_t* data, size_t size);

}  // namespace softalign::convert
