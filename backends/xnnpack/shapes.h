// Shape inference for bounded dynamic shapes. The exporter writes every
// value with its upper-bound dims; XNNPACK 2022 runtimes are static, so for
// other input shapes the delegate re-derives each node's output dims from
// its inputs (in node order) and builds runtimes for them.
#pragma once

#include <cstddef>

#include "backends/xnnpack/native_nodes.h"
#include "runtime/core/error.h"

namespace etr {
namespace xnnpack {

// `values` starts as the payload's values with the external inputs' dims
// replaced by the current ones; on return every node output has the dims
// its inputs imply. Fails (logged, naming node and value) for a node kind
// whose output cannot be derived or a value that would outgrow the
// payload's dims (its buffer is sized for those). `bounds` are the
// payload's values.
[[nodiscard]] Error infer_shapes(const Values& bounds, const std::vector<Node>& nodes,
                                 Values* values, size_t delegate_index);

}  // namespace xnnpack
}  // namespace etr
