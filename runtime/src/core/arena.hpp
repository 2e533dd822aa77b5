// A bump arena planned once: the layout code runs twice, first against a
// measuring arena (no memory, counts bytes), then against the reserved one.
// After that nothing in the numeric core allocates.
//
// The reserved memory is a fresh anonymous mapping: the kernel hands its
// pages out zeroed on first touch, so reserving touches nothing. Zeroing the
// whole arena at prepare (~1,000 page faults for a 4 MB arena, 2.2 ms here)
// was most of prepare's time, while one sentence touches only a few hundred
// of those pages (the buffers are sized for the longest source and target).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdint>

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
  ~Arena() { release(); }

  // Reserves `bytes` (call after a measuring pass); false when out of memory.
  bool reserve(std::size_t bytes) {
    release();
    if (bytes > SIZE_MAX / 2) return false;
    const std::size_t size = round_page(bytes ? bytes : kAlign);
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    base_ = static_cast<uint8_t*>(p);  // page-aligned, so kAlign-aligned
    capacity_ = size;
    used_ = 0;
    handed_ = 0;
    overflowed_ = false;
    return true;
  }

  // n elements of T, zeroed. Returns null in a measuring arena, and null (with
  // overflowed() set) when the request does not fit: a size that overflows,
  // or more than a reserved arena holds. Callers check overflowed() once
  // after laying out all their buffers.
  template <typename T>
  T* take(std::size_t n) {
    if (n > (SIZE_MAX - kSlack - kAlign) / sizeof(T) - 1 || used_ > SIZE_MAX / 2) {
      overflowed_ = true;
      return nullptr;
    }
    const std::size_t bytes = round(n * sizeof(T) + kSlack);
    if (base_ != nullptr && bytes > capacity_ - used_) {
      overflowed_ = true;
      return nullptr;
    }
    T* p = nullptr;
    if (base_ != nullptr) {
      p = reinterpret_cast<T*>(base_ + used_);
      // Memory never handed out is still zero (fresh pages): only what was
      // handed out before a restart() is cleared.
      if (used_ < handed_) std::memset(base_ + used_, 0, std::min(bytes, handed_ - used_));
    }
    used_ += bytes;
    handed_ = std::max(handed_, used_);
    return p;
  }

  std::size_t used() const { return used_; }
  bool overflowed() const { return overflowed_; }
  std::size_t capacity() const { return capacity_; }
  void restart() { used_ = 0; }

 private:
  static std::size_t round(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }
  static std::size_t round_page(std::size_t b) {
    constexpr std::size_t kPage = 4096;  // any multiple of the page size does for mmap's length
    return (b + kPage - 1) / kPage * kPage;
  }
  void release() {
    if (base_ != nullptr) munmap(base_, capacity_);
    base_ = nullptr;
    capacity_ = 0;
  }
  uint8_t* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::size_t handed_ = 0;  // high-water mark of used_ since reserve
  bool overflowed_ = false;
};

}  // namespace softalign::internal
