// Selective build: compile-time filtering of the kernel libraries' tables.
//
// A build configured with ETR_SELECT_OPS or ETR_SELECT_OPS_FROM_PTE (see
// cmake/selective_build.cmake) compiles each library's table file with
// ETR_SELECTIVE_BUILD=1 and the generated header
// runtime/kernel/selected_operators.h, which lists the selected operator
// names. Every table keeps only those entries:
//
//   constexpr auto kAll = concat(...);   // not emitted: only read at compile time
//   constexpr auto kMine = select_kernels<count_selected(kAll)>(kAll);
//
// so the kernels of unselected operators are never referenced and the linker
// drops them. In other builds every entry is kept.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "runtime/kernel/kernel.h"

#if defined(ETR_SELECTIVE_BUILD) && ETR_SELECTIVE_BUILD
// Defines etr::internal::kSelectedOperatorList: the names, nullptr-terminated.
#include "runtime/kernel/selected_operators.h"
#endif

namespace etr {
namespace internal {

#if defined(ETR_SELECTIVE_BUILD) && ETR_SELECTIVE_BUILD
inline constexpr const char* const* kSelectedOperators = kSelectedOperatorList;
#else
// Null: every operator is selected.
inline constexpr const char* const* kSelectedOperators = nullptr;
#endif

constexpr bool same_op_name(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

// Whether `name` is in the nullptr-terminated list `selected` (null: all are).
constexpr bool operator_selected(const char* name, const char* const* selected) {
  if (selected == nullptr) return true;
  for (; *selected != nullptr; ++selected) {
    if (same_op_name(*selected, name)) return true;
  }
  return false;
}

}  // namespace internal

// How many entries of `table` (a KernelEntry array or std::array) are selected.
template <typename Table>
constexpr size_t count_selected(const Table& table,
                                const char* const* selected = internal::kSelectedOperators) {
  size_t n = 0;
  for (const KernelEntry& e : table) n += internal::operator_selected(e.name, selected) ? 1 : 0;
  return n;
}

// The selected entries of `table`, in order; M must be count_selected(table, selected).
template <size_t M, typename Table>
constexpr std::array<KernelEntry, M> select_kernels(
    const Table& table, const char* const* selected = internal::kSelectedOperators) {
  std::array<KernelEntry, M> out{};
  size_t at = 0;
  for (const KernelEntry& e : table) {
    if (internal::operator_selected(e.name, selected)) out[at++] = e;
  }
  return out;
}

}  // namespace etr
