// Nodes the XNNPACK delegate runs itself: the node kinds the exporter emits
// for which Debian's XNNPACK (2022-02) has no define call (transpose,
// concatenate, slice, batch matmul, tanh, exp, log, gelu, sin, cos,
// reciprocal square root, copy). They read and write the delegate's value
// buffers and split their work over the method's thread pool.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/error.h"

namespace etr {
class ThreadPool;
namespace xnnpack {

// True when `kind` is run by run_native_node (not by XNNPACK).
bool is_native_node(NodeKind kind);

// Checks at init that the node's value shapes and dtypes fit what
// run_native_node computes; logs and fails naming the node otherwise.
[[nodiscard]] Error check_native_node(const Graph& g, const Node& n, size_t delegate_index);

// Checks at init that a node XNNPACK runs has operand shapes and dtypes
// that agree with its parameters (XNNPACK 2022 trusts them and would read
// or write out of bounds otherwise); logs and fails naming the node.
[[nodiscard]] Error check_xnnpack_node(const Graph& g, const Node& n, size_t delegate_index);

// Runs one native node. `buffers[id]` is value id's memory (constants: their data).
void run_native_node(const Graph& g, const Node& n, uint8_t* const* buffers, ThreadPool* pool);

}  // namespace xnnpack
}  // namespace etr
