// The XNNPACK delegate ("XnnpackBackend"): runs the payloads the official
// exporter's XnnpackPartitioner writes, on Debian's libXNNPACK (2022-02),
// with the nodes that XNNPACK version lacks run by our own code.
//
//   etr::register_xnnpack_backend();                 // the default registry
//   etr::register_xnnpack_backend(&my_registry);     // or a registry you pass in
//
// Registration is explicit (no static initializer). At init the payload is
// parsed and checked, the node list is split into XNNPACK runs and native
// nodes that share one set of value buffers, and one XNNPACK runtime is
// created per run on the method's thread pool (its native_handle() when the
// pool is extension/threadpool's PthreadPool: a pthreadpool shim onto the
// pool's own parallel_for, or a libpthreadpool; single-threaded otherwise).
//
// Node kinds: each XNNPACK node kind has one descriptor (node_kinds.h) that
// parses it, checks its shapes, derives its output shape and either defines
// it into an XNNPACK subgraph or runs it natively (or both: then the
// descriptor's runs_natively hook decides per node). A kind the table does
// not know, or one nothing here runs, fails init naming the delegate, node
// index and kind.
//
// fp32 convolutions (one group) and fully-connected layers with constant
// weights run as native nodes on the CPU math library's GEMM (Debian's 2022
// XNNPACK runs them about 1.7x slower on x86): the filter is packed once at
// init, a 1x1 stride-1 convolution multiplies its input directly and other
// windows gather rows (im2col) in tiles. fp32 depthwise convolutions
// (native_dwconv.h), sigmoid and multiply run natively too; a convolution
// followed by sigmoid and multiply (SiLU) is fused into the convolution
// (fusion.h). The load option {"native_fp32", false} (DelegateOptions for
// "XnnpackBackend") keeps all of them in XNNPACK.
//
// Memory, by where it comes from:
//   - BackendInitContext::method_allocator (the allocator the runtime gives
//     the delegate; fixed once init returns): the value buffers (at most
//     1 GiB per delegate; values that pass between runs share buffers when
//     their lifetimes, in runs, do not overlap), the native nodes' packed or
//     copied weights and biases (NativeState, DqLinearWeights) and their
//     scratch (at most 16 MiB). Value buffers and scratch hold nothing
//     between execute calls, so the delegates given one method allocator
//     (one method's delegates) place them in the same blocks: the method
//     needs about the largest delegate's buffers, not their sum, and those
//     delegates' execute calls are serialized by a lock (two methods given
//     one allocator never run them at once). A null or exhausted allocator
//     fails init with DelegateMemoryAllocationFailed naming the delegate and
//     what it was allocating; init logs (Info) how many bytes it took.
//   - The platform allocate hook (runtime/platform/platform.h): the
//     delegate object itself.
//   - The heap (operator new): small parse-time bookkeeping (the parsed
//     Graph's value and node lists, copies of per-channel scales, the run
//     list, the shared blocks' record), temporaries freed before init returns, and XNNPACK's own
//     allocations: its subgraphs and per-shape runtimes (packed weights,
//     internal tensors), through XNNPACK's default allocator.
// The payload and named-data buffers are kept while the delegate lives
// (XNNPACK may read static data after runtime creation), except named data
// that only native nodes read and that they copied (released after init).
//
// Shapes: the payload records each value with its exported (upper-bound)
// dims; an input may be smaller in any dim (bounded dynamic shapes; larger
// is refused naming the input, dim, size and bound). XNNPACK 2022 cannot
// reshape a runtime, so a new input shape costs one build: every value's
// dims are re-derived, the XNNPACK subgraphs defined and runtimes created
// (XNNPACK packs the weights and plans its memory again, i.e. it
// allocates). The runtimes of the last 4 input shapes are kept (least
// recently used dropped), so alternating among them allocates nothing;
// our value buffers are sized for the bounds once at init. Outputs are
// resized to the derived shape (their tensors must be DynamicBound).
//
// Dynamically quantized linear layers (qdint8 activations; per-channel
// qcint8 or qcint4, or block-wise qbint4 weights), which XNNPACK 2022
// lacks, run as native nodes with XNNPACK's numerics (dq_linear.h).
#pragma once

#include <cstddef>

#include "runtime/backend/backend.h"

namespace etr {

// The backend object (stateless; one instance serves every method).
const BackendInterface& xnnpack_backend();

// Registers "XnnpackBackend" in `registry` (null: the default registry).
[[nodiscard]] Error register_xnnpack_backend(BackendRegistry* registry = nullptr);

// Runtime sets built so far in this process (one per delegate init plus
// one per new input shape); lets tests see that a cached shape is reused.
size_t xnnpack_shape_builds();

}  // namespace etr
