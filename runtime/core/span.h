// Span<T>: a non-owning view of a contiguous array. Does not take ownership;
// the viewed memory must outlive the span.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace etr {

template <typename T>
class Span final {
 public:
  constexpr Span() : data_(nullptr), size_(0) {}
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT
  // Span<const T> from Span<T>.
  template <typename U, typename = std::enable_if_t<std::is_same<const U, T>::value>>
  constexpr Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}  // NOLINT

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T& back() const { return data_[size_ - 1]; }

 private:
  T* data_;
  size_t size_;
};

template <typename T>
using ArrayRef = Span<const T>;

// A non-owning string view; not necessarily NUL-terminated.
class StringView final {
 public:
  constexpr StringView() : data_(""), size_(0) {}
  constexpr StringView(const char* data, size_t size) : data_(data), size_(size) {}
  StringView(const char* cstr) : data_(cstr), size_(cstr ? std::strlen(cstr) : 0) {}  // NOLINT

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool operator==(StringView o) const {
    return size_ == o.size_ && (size_ == 0 || std::memcmp(data_, o.data_, size_) == 0);
  }
  bool operator!=(StringView o) const { return !(*this == o); }

 private:
  const char* data_;
  size_t size_;
};

}  // namespace etr
