// Compatibility layer (extension/compat): the official Result<T>, a value or
// an Error. ok() <=> error() == Error::Ok; building one from Error::Ok gives
// Error::Internal, as in the official runtime.
#pragma once

#include <executorch/runtime/core/error.h>

#include <optional>
#include <type_traits>
#include <utility>

namespace executorch {
namespace runtime {

template <typename T>
class Result final {
 public:
  using value_type = T;

  /* implicit */ Result(Error error) : error_(error == Error::Ok ? Error::Internal : error) {}
  /* implicit */ Result(T&& value) : value_(std::move(value)), error_(Error::Ok) {}
  /* implicit */ Result(const T& value) : value_(value), error_(Error::Ok) {}

  bool ok() const { return error_ == Error::Ok; }
  Error error() const { return error_; }

  // Precondition: ok().
  T& get() { return *value_; }
  const T& get() const { return *value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Error error_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Result;
}  // namespace executor
}  // namespace torch
