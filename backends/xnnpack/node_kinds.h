// One descriptor per XNNPACK node kind, found through one table
// (node_kinds.cpp). A descriptor is a name and plain function pointers: how
// the kind is parsed from the payload, how its shapes and dtypes are
// checked, how its output shape follows from its inputs, and how it runs:
// defined into an XNNPACK subgraph, run by our own code (NativeHooks), or
// either (then NativeHooks::runs_natively decides per node). The backend
// calls through the descriptor and never switches over NodeKind itself.
//
// A real entry (node_kinds.cpp, where K is NodeKind): the transpose, which
// XNNPACK 2022 cannot define, so it has no check or define hook, only native
// hooks:
//
//   {K::StaticTranspose, "StaticTranspose", parse_transpose, nullptr, infer_transpose, nullptr,
//    &kTransposeNative},
//
// Adding a kind: write its hooks next to their family (parse in
// node_parse.cpp, checks in node_checks.cpp, shapes in shapes.cpp, XNNPACK
// definitions in xnn_define.cpp, native runs in native_nodes.cpp), declare
// them in node_hooks.h and add its one entry to the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/xnnpack/shared_packs.h"
#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/thread_pool.h"

struct xnn_subgraph;  // XNNPACK's subgraph (xnnpack.h)

namespace etr {
class MemoryAllocator;
class ThreadPool;
namespace xnnpack {

using Values = std::vector<Value>;
struct NativeState;

// Parsing one node from its flatbuffer table: the value ids are checked
// against the payload's values as they are added.
struct ParseContext {
  const Values& values;
  size_t delegate;

  // Appends input (output) `id` read from field `field`; fails naming the
  // node and field when it is not a value (an absent optional input is
  // kInvalidId).
  [[nodiscard]] Error input(Node* n, const char* field, uint32_t id, bool optional = false) const;
  [[nodiscard]] Error output(Node* n, const char* field, uint32_t id) const;
  // Fails naming the node: `what` is wrong with its parameters.
  [[nodiscard]] Error fail(const Node& n, const char* what) const;
};

// Re-deriving output dims for another input shape. `values` holds the dims
// of this shape (inputs set, node outputs filled in node order); `bounds`
// the payload's (upper-bound) values.
struct ShapeContext {
  const Values& bounds;
  Values& values;
  size_t delegate;

  // Fails naming the node: its output shape cannot be derived (`what`).
  [[nodiscard]] Error fail(const Node& n, const char* what) const;
};

// Defining one node into an XNNPACK subgraph; `xids` maps our value ids to
// the subgraph's.
struct DefineContext {
  xnn_subgraph* subgraph;
  const Values& values;
  const uint32_t* xids;
  size_t delegate;
};

class WeightCache;

// Preparing a native node at init: what it keeps (packed weights, copied
// biases) comes from `allocator` (the method allocator). Packing may split
// across `pool` (null: the calling thread); with a `cache`, packed weights
// come from it on a hit and are added to it on a miss (weight_cache.h).
struct PrepareContext {
  const Values& values;
  size_t delegate;
  MemoryAllocator* allocator;
  ThreadPool* pool = nullptr;
  WeightCache* cache = nullptr;
  // What the method's other delegates packed from named data (packs null:
  // nothing is shared).
  PackScope shared;
};

// Running a native node: `buffers[id]` is value id's memory (constants:
// their data); `scratch` holds `scratch_bytes` (up to the node's
// scratch_bytes hook; less only slows it down).
struct RunContext {
  const Values& values;
  uint8_t* const* buffers;
  ThreadPool* pool;
  void* scratch;
  size_t scratch_bytes;
};

using ParseFn = Error (*)(const ParseContext& ctx, const void* table, Node* n);
using CheckFn = Error (*)(const Values& values, const Node& n, size_t delegate);
using InferFn = Error (*)(const ShapeContext& ctx, const Node& n);
using DefineFn = Error (*)(const DefineContext& ctx, const Node& n);

// How a kind runs when the delegate runs it itself.
struct NativeHooks {
  // True when this node runs natively; `native_fp32` is the delegate's load
  // option (fp32 compute nodes on our kernels). Never null.
  bool (*runs_natively)(const Values& values, const Node& n, bool native_fp32);
  // Shape and dtype rules of the native code. Never null.
  CheckFn check;
  // True when the output has the input's bytes (the output then shares the
  // input's buffer and running does nothing). Null: never.
  bool (*is_view)(const Values& values, const Node& n);
  // Scratch bytes `run` may use. Null: none.
  size_t (*scratch_bytes)(const Values& values, const Node& n);
  // Builds the node's NativeState once at init (after `check`); it records
  // in NativeState::copied_inputs the constant inputs it keeps a copy of.
  // Null: nothing to prepare.
  Error (*prepare)(const PrepareContext& ctx, const Node& n, NativeState* state);
  // Runs the node. Never null.
  Error (*run)(const RunContext& ctx, const Node& n, const NativeState& state);
};

struct NodeKindDesc {
  NodeKind kind;
  const char* name;
  // Flatbuffer union table -> inputs, outputs and typed parameters.
  ParseFn parse;
  // Shape and dtype rules for XNNPACK's run of the node (XNNPACK 2022 trusts
  // the dims it is given); null with `define`.
  CheckFn check;
  // Output dims from the inputs' (bounded dynamic shapes); null: the kind
  // has static shapes only.
  InferFn infer;
  // Defines the node into an XNNPACK subgraph; null: XNNPACK cannot run it.
  DefineFn define;
  // Null: the delegate never runs the kind itself.
  const NativeHooks* native;
};

// The largest XNodeUnion type code the table knows.
constexpr uint32_t kMaxNodeKindCode = 47;

// The descriptor of XNodeUnion type code `code`; null for an unknown code.
const NodeKindDesc* find_node_kind(uint32_t code);
inline const NodeKindDesc* find_node_kind(NodeKind k) {
  return find_node_kind(static_cast<uint32_t>(k));
}

// Every descriptor, in type-code order (for tests).
Span<const NodeKindDesc> node_kind_table();

}  // namespace xnnpack
}  // namespace etr
