// Result<T>: a value or an Error. Invariant: ok() <=> error() == Error::Ok.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/error.h"

namespace etr {

template <typename T>
class [[nodiscard]] Result final {
 public:
  // An error. Passing Error::Ok is a programming mistake and becomes Internal.
  Result(Error error) : error_(error == Error::Ok ? Error::Internal : error) {}   // NOLINT
  Result(T&& value) : error_(Error::Ok) { new (&storage_) T(std::move(value)); }  // NOLINT
  Result(const T& value) : error_(Error::Ok) { new (&storage_) T(value); }        // NOLINT

  Result(Result&& other) noexcept : error_(other.error_) {
    if (ok()) new (&storage_) T(std::move(*other));
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (ok()) get()->~T();
  }

  bool ok() const { return error_ == Error::Ok; }
  Error error() const { return error_; }

  // Precondition: ok().
  T& operator*() & { return *get(); }
  T&& operator*() && { return std::move(*get()); }
  const T& operator*() const& { return *get(); }
  T* operator->() { return get(); }
  const T* operator->() const { return get(); }

 private:
  T* get() { return std::launder(reinterpret_cast<T*>(&storage_)); }
  const T* get() const { return std::launder(reinterpret_cast<const T*>(&storage_)); }

  Error error_;
  typename std::aligned_storage<sizeof(T), alignof(T)>::type storage_;
};

}  // namespace etr
