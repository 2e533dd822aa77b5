// The public API's exception boundary: no exception crosses it. Every public
// C++ and C entry point runs its body through guarded(), which turns whatever
// escapes (std::bad_alloc, std::system_error from std::thread, a dependency's
// own exceptions) into a Status.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "softalign/status.hpp"

namespace softalign::internal {

// The exception being handled, as a Status. Call only inside a catch block.
// Allocates nothing it cannot do without: out of memory gives a message short
// enough for std::string's inline buffer.
inline Status current_exception_status() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    try {
      return Status(StatusCode::kInternal, std::string("unexpected exception: ") + e.what());
    } catch (...) {
      return Status(StatusCode::kInternal, std::string());
    }
  } catch (...) {
    return Status(StatusCode::kInternal, std::string());
  }
}

// Runs `body` (returning a Status) so that no exception leaves it.
template <typename F>
Status guarded(F&& body) noexcept {
  try {
    return std::forward<F>(body)();
  } catch (...) {
    return current_exception_status();
  }
}

}  // namespace softalign::internal
