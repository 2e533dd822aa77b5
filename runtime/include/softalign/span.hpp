// softalign — a minimal non-owning view of contiguous elements (std::span is C++20).
#pragma once

#include <cstddef>
#include <vector>

namespace softalign {

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, std::size_t size) : data_(data), size_(size) {}
  template <typename U, typename A>
  Span(const std::vector<U, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit by design
  template <typename U, typename A>
  Span(std::vector<U, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit by design

  constexpr T* data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](std::size_t i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace softalign
