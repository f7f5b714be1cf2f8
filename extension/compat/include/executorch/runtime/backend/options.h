// Compatibility layer (extension/compat): backend options (a key and a
// bool, int or string value) and a fixed-capacity set of them.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/span.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <variant>

namespace executorch {
namespace runtime {

static constexpr size_t kMaxOptionKeyLength = 64;
static constexpr size_t kMaxOptionValueLength = 256;

using OptionValue = std::variant<bool, int, std::array<char, kMaxOptionValueLength>>;

struct BackendOption {
  char key[kMaxOptionKeyLength]{};
  OptionValue value;
};

template <size_t MaxCapacity>
class BackendOptions {
 public:
  BackendOptions() : size_(0) {}
  BackendOptions(const BackendOptions& other) : size_(other.size_) {
    for (size_t i = 0; i < size_; ++i) options_[i] = other.options_[i];
  }
  BackendOptions& operator=(const BackendOptions& other) {
    if (this != &other) {
      size_ = other.size_;
      for (size_t i = 0; i < size_; ++i) options_[i] = other.options_[i];
    }
    return *this;
  }

  executorch::runtime::Span<BackendOption> view() {
    return executorch::runtime::Span<BackendOption>(options_, size_);
  }

  // Sets (or replaces) an option. InvalidArgument when all slots are used.
  template <size_t N>
  Error set_option(const char (&key)[N], bool value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    return set_impl(key, OptionValue(value));
  }
  template <size_t N>
  Error set_option(const char (&key)[N], int value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    return set_impl(key, OptionValue(value));
  }
  template <size_t N>
  Error set_option(const char (&key)[N], const char* value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    std::array<char, kMaxOptionValueLength> text{};
    std::strncpy(text.data(), value, kMaxOptionValueLength - 1);
    return set_impl(key, OptionValue(text));
  }

  // The value stored under `key`: NotFound when absent, InvalidArgument when
  // it has another type.
  template <typename T, size_t KeyLen>
  Error get_option(const char (&key)[KeyLen], T& out) const {
    static_assert(KeyLen <= kMaxOptionKeyLength, "Option key is too long");
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(options_[i].key, key) != 0) continue;
      if constexpr (std::is_same_v<T, const char*>) {
        if (auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&options_[i].value)) {
          out = text->data();
          return Error::Ok;
        }
      } else if (auto* v = std::get_if<T>(&options_[i].value)) {
        out = *v;
        return Error::Ok;
      }
      return Error::InvalidArgument;
    }
    return Error::NotFound;
  }

 private:
  Error set_impl(const char* key, const OptionValue& value) {
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(options_[i].key, key) == 0) {
        options_[i].value = value;
        return Error::Ok;
      }
    }
    if (size_ == MaxCapacity) return Error::InvalidArgument;
    BackendOption& o = options_[size_++];
    const size_t len = std::min(std::strlen(key), kMaxOptionKeyLength - 1);
    std::memcpy(o.key, key, len);
    o.key[len] = '\0';
    o.value = value;
    return Error::Ok;
  }

  BackendOption options_[MaxCapacity]{};
  size_t size_;
};

}  // namespace runtime
}  // namespace executorch
