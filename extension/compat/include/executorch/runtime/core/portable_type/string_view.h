// Compatibility layer (extension/compat): the deprecated string_view alias
// (std::string_view in C++17).
#pragma once

#include <executorch/runtime/platform/compiler.h>

#include <string_view>

namespace executorch {
namespace runtime {
namespace etensor {
using string_view ET_DEPRECATED = std::string_view;
}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using string_view ET_DEPRECATED = std::string_view;
}  // namespace executor
}  // namespace torch
