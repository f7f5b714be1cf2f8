// Compatibility layer (extension/compat): the official Result<T>, a value or
// an Error. ok() <=> error() == Error::Ok; building one from Error::Ok gives
// Error::Internal, as in the official runtime.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/assert.h>

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

  // Precondition: ok(). Reading the value of an error aborts (ET_CHECK), as
  // in the official runtime.
  T& get() { return checked(); }
  const T& get() const { return checked(); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return checked(); }
  T&& operator*() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }

 private:
  T& checked() {
    ET_CHECK(value_.has_value());
    return *value_;
  }
  const T& checked() const {
    ET_CHECK(value_.has_value());
    return *value_;
  }

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

// ET_UNWRAP(result [, format, ...]): the value of a Result, or return its
// error from the enclosing function (logging the message if given). A GNU
// statement expression, as in the official header.
#define ET_UNWRAP(...)                                                                 \
  ET_COMPAT_PICK_(__VA_ARGS__, ET_COMPAT_UNWRAP_MSG_, ET_COMPAT_UNWRAP_MSG_,           \
                  ET_COMPAT_UNWRAP_MSG_, ET_COMPAT_UNWRAP_MSG_, ET_COMPAT_UNWRAP_MSG_, \
                  ET_COMPAT_UNWRAP_MSG_, ET_COMPAT_UNWRAP_MSG_, ET_COMPAT_UNWRAP_MSG_, \
                  ET_COMPAT_UNWRAP_MSG_, ET_COMPAT_UNWRAP_)                            \
  (__VA_ARGS__)
#define ET_COMPAT_UNWRAP_(result__) \
  ({                                \
    auto et_result__ = (result__);  \
    if (!et_result__.ok()) {        \
      return et_result__.error();   \
    }                               \
    std::move(*et_result__);        \
  })
#define ET_COMPAT_UNWRAP_MSG_(result__, message__, ...) \
  ({                                                    \
    auto et_result__ = (result__);                      \
    if (!et_result__.ok()) {                            \
      ET_LOG(Error, message__, ##__VA_ARGS__);          \
      return et_result__.error();                       \
    }                                                   \
    std::move(*et_result__);                            \
  })

// ET_ASSIGN_OR_RETURN(var, result [, format, ...]): declares `var` from the
// value of a Result, or returns its error (logging the message if given).
#define ET_ASSIGN_OR_RETURN(...)                                                       \
  ET_COMPAT_PICK_(__VA_ARGS__, ET_COMPAT_ASSIGN_MSG_, ET_COMPAT_ASSIGN_MSG_,           \
                  ET_COMPAT_ASSIGN_MSG_, ET_COMPAT_ASSIGN_MSG_, ET_COMPAT_ASSIGN_MSG_, \
                  ET_COMPAT_ASSIGN_MSG_, ET_COMPAT_ASSIGN_MSG_, ET_COMPAT_ASSIGN_MSG_, \
                  ET_COMPAT_ASSIGN_, ET_COMPAT_ASSIGN_NONE_)                           \
  (__VA_ARGS__)
#define ET_COMPAT_ASSIGN_NONE_(x) static_assert(false, "ET_ASSIGN_OR_RETURN needs 2 arguments")
#define ET_COMPAT_ASSIGN_(var__, result__)    \
  auto et_assign_result_##var__ = (result__); \
  if (!et_assign_result_##var__.ok()) {       \
    return et_assign_result_##var__.error();  \
  }                                           \
  auto var__ = std::move(*et_assign_result_##var__)
#define ET_COMPAT_ASSIGN_MSG_(var__, result__, message__, ...) \
  auto et_assign_result_##var__ = (result__);                  \
  if (!et_assign_result_##var__.ok()) {                        \
    ET_LOG(Error, message__, ##__VA_ARGS__);                   \
    return et_assign_result_##var__.error();                   \
  }                                                            \
  auto var__ = std::move(*et_assign_result_##var__)
