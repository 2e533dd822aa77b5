// The converter's one error type: a one-line message for the user.
#pragma once

#include <stdexcept>
#include <string>

namespace softalign::convert {

// Thrown for every bad input; main() prints what() as one line and exits 1.
struct Error : std::runtime_error {
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace softalign::convert
