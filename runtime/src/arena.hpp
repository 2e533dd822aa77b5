// A bump arena planned once: the layout code runs twice, first against a
// measuring arena (no memory, counts bytes), then against the reserved one.
// After that nothing in the numeric core allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace softalign::internal {

class Arena {
 public:
  static constexpr std::size_t kAlign = 64;
  // Every buffer is followed by this much readable slack (XNNPACK reads up to
  // XNN_EXTRA_BYTES past its inputs; 64 covers it).
  static constexpr std::size_t kSlack = 64;

  Arena() = default;  // measuring
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { std::free(base_); }

  // Reserves `bytes` (call after a measuring pass); false when out of memory.
  bool reserve(std::size_t bytes) {
    std::free(base_);
    base_ = static_cast<uint8_t*>(std::aligned_alloc(kAlign, round(bytes ? bytes : kAlign)));
    if (base_ == nullptr) return false;
    capacity_ = round(bytes ? bytes : kAlign);
    used_ = 0;
    return true;
  }

  // n elements of T, zeroed. Returns null in a measuring arena.
  template <typename T>
  T* take(std::size_t n) {
    const std::size_t bytes = round(n * sizeof(T) + kSlack);
    T* p = nullptr;
    if (base_ != nullptr) {
      p = reinterpret_cast<T*>(base_ + used_);
      std::memset(base_ + used_, 0, bytes);
    }
    used_ += bytes;
    return p;
  }

  std::size_t used() const { return used_; }
  std::size_t capacity() const { return capacity_; }
  void restart() { used_ = 0; }

 private:
  static std::size_t round(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }
  uint8_t* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

}  // namespace softalign::internal
