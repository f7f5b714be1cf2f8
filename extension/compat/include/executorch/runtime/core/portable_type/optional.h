// Compatibility layer (extension/compat): the deprecated optional aliases
// (std::optional in C++17).
#pragma once

#include <executorch/runtime/platform/compiler.h>

#include <optional>

namespace executorch {
namespace runtime {
namespace etensor {
template <typename T>
using optional ET_DEPRECATED = std::optional<T>;
using nullopt_t ET_DEPRECATED = std::nullopt_t;
ET_DEPRECATED inline constexpr std::nullopt_t nullopt{std::nullopt};
}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
template <typename T>
using optional ET_DEPRECATED = std::optional<T>;
using nullopt_t ET_DEPRECATED = std::nullopt_t;
ET_DEPRECATED inline constexpr std::nullopt_t nullopt{std::nullopt};
}  // namespace executor
}  // namespace torch
