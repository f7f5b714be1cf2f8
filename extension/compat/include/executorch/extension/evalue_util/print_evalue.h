// Compatibility layer (extension/compat): `os << evalue` in PyTorch's style
// (None, True/False, integers, doubles with a trailing dot when integral,
// quoted strings, "tensor(sizes=[2, 3], [1., 2., ...])" with long lists
// elided) and the evalue_edge_items(n) stream manipulator (items printed at
// each end of a long list; default 3).
#pragma once

#include <ios>
#include <ostream>
// String streams too: the official headers bring them in transitively, and
// official apps (executor_runner.cpp) rely on that.
#include <executorch/runtime/core/evalue.h>

#include <sstream>

namespace executorch {
namespace runtime {
std::ostream& operator<<(std::ostream& os, const EValue& value);
}  // namespace runtime
}  // namespace executorch

namespace executorch {
namespace extension {

namespace internal {
// The stream slot (iword) that holds the edge item count.
inline int evalue_edge_items_xalloc() {
  static const int xalloc = std::ios_base::xalloc();
  return xalloc;
}
}  // namespace internal

class evalue_edge_items final {
 public:
  // Zero or negative: the default (3).
  explicit evalue_edge_items(long edge_items) : edge_items_(edge_items < 0 ? 0 : edge_items) {}

  friend std::ostream& operator<<(std::ostream& os, const evalue_edge_items& e) {
    os.iword(internal::evalue_edge_items_xalloc()) = e.edge_items_;
    return os;
  }

 private:
  const long edge_items_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::evalue_edge_items;
}  // namespace util
}  // namespace executor
}  // namespace torch
