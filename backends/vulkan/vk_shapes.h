// Shapes of a program exported with dynamic dims (bounded by the exporter:
// every tensor's serialized dims are its upper bounds). Given the graph
// inputs' current dims, propagate_shapes() recomputes, operator by operator
// in chain order, the current dims of every tensor an operator writes and
// the value of every SymInt (sym_size.int and the symbolic arithmetic the
// exporter emits). The backend then plans the operators again with the new
// dims (push constants, dispatch sizes, copy sizes) and records the command
// buffer again; buffers, descriptor sets and pipelines stay as made at init.
//
// Operators without a shape function here keep their outputs' shapes, and
// are refused (NotSupported, naming the operator) when one of their inputs
// left its exported shape.
#pragma once

#include "backends/vulkan/vk_graph.h"
#include "runtime/core/error.h"

namespace etr {
namespace vulkan {

// InvalidProgram naming the operator, value and field when a computed shape
// leaves its tensor's bounds or the operator's arguments disagree.
Error propagate_shapes(Graph* g);

// A SymInt input of the graph (a size computed by an earlier delegate or
// the CPU) is serialized without its value; for planning at the upper
// bounds, it takes the size it gives the first tensor it shapes (an entry of
// a view or expand size list, or a slice's end), as serialized.
void infer_symint_inputs(Graph* g);

}  // namespace vulkan
}  // namespace etr
