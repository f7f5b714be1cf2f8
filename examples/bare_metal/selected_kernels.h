// A kernel table holding only the portable kernels a model calls, chosen at compile
// time from the family tables: with -ffunction-sections and --gc-sections the other
// kernels are not linked. A name missing from the tables fails to compile.
#pragma once

#include <array>
#include <cstddef>

#include "runtime/kernel/kernel.h"

namespace etr_example {

constexpr bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// Not constexpr: reaching it during constant evaluation is a compile error.
inline void operator_not_in_the_given_tables() {}

template <size_t M, size_t... N>
constexpr std::array<etr::KernelEntry, M> select_kernels(const char* const (&names)[M],
                                                         const etr::KernelEntry (&... tables)[N]) {
  std::array<etr::KernelEntry, M> out{};
  for (size_t i = 0; i < M; ++i) {
    bool found = false;
    auto look = [&](const etr::KernelEntry* table, size_t n) {
      for (size_t k = 0; k < n && !found; ++k) {
        if (same_name(table[k].name, names[i])) {
          out[i] = table[k];
          found = true;
        }
      }
    };
    (look(tables, N), ...);
    if (!found) operator_not_in_the_given_tables();
  }
  return out;
}

}  // namespace etr_example
