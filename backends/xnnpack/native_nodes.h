// Nodes the XNNPACK delegate runs itself: the node kinds the exporter emits
// for which Debian's XNNPACK (2022-02) has no define call (transpose,
// concatenate, slice, batch matmul, tanh, exp, log, gelu, sin, cos,
// reciprocal square root, copy), the dynamically quantized linear
// layers (Convert fp32 -> qdint8, FullyConnected qdint8 x qcint8 / qcint4 /
// qbint4 -> fp32; dq_linear.h) and static int8 nodes with XNNPACK's
// arithmetic (convolutions, depthwise convolutions, linear layers, global
// average pooling, quantizing Convert, add, clamp; native_qdwconv.h,
// native_qs8_elementwise.h). They read and write the delegate's value buffers and split
// their work over the method's thread pool. Each kind's native code is
// reached through its descriptor's NativeHooks (node_kinds.h).
//
// Every function takes the value list whose dims are the shapes of the
// current run (the payload's dims, or those inferred for another input
// shape; see xnnpack_backend.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/xnnpack/dq_linear.h"
#include "backends/xnnpack/native_qdwconv.h"
#include "backends/xnnpack/node_kinds.h"
#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/error.h"

namespace etr {
class MemoryAllocator;
class ThreadPool;
namespace xnnpack {

// What a native node prepares once at init (packed weights); empty for
// most kinds. Every array lives in the method allocator (PrepareContext).
struct NativeState {
  DqLinearWeights dq;
  // fp32 Conv2d / FullyConnected on the optimized GEMM (is_float_gemm_node):
  // the filter as the GEMM's B operand [k, n], packed once at init
  // (64-byte aligned).
  const float* packed = nullptr;
  size_t gemm_k = 0;
  size_t gemm_n = 0;
  const float* gemm_bias = nullptr;  // a constant bias, copied (null: none or not constant)
  bool gemm_gathers = false;         // a convolution that gathers its rows (im2col)
  bool gemm_filter_kn = false;       // the filter is stored [k, n] (transposed fully connected)
  // A 1-D fp32 convolution (a [N, 1, W, C] input, a 1 x k filter, stride 1)
  // the 1-D Winograd kernel runs (cpu_math/conv_winograd1d.h): the filter
  // transformed and packed for output tiles of wino1d_tile, or null. Such a
  // node has no `packed` filter.
  const float* wino1d = nullptr;
  int64_t wino1d_tile = 0;
  // fp32 DepthwiseConv2d (is_float_compute_node): the filter [kh, kw, C]
  // and bias copied to float alignment (the payload's may be unaligned).
  const float* dw_weights = nullptr;
  const float* dw_bias = nullptr;
  bool dwconv = false;
  // Static int8 DepthwiseConv2d (native_qdwconv.h): the packed filter,
  // folded bias, scales and zero-point row; qdw.w is null for other nodes.
  QDwConvWeights qdw;
  // Bit k set: the node keeps its own copy (packed or plain) of constant
  // input k and never reads the original (release_copied_constants).
  uint32_t copied_inputs = 0;
  // SiLU fused by fuse_silu (fusion.h): this convolution writes x * sigmoid(x)
  // into value `write_to` (the multiply's output) instead of x into its own
  // output; the sigmoid and multiply nodes it absorbed are `skipped`.
  bool silu = false;
  uint32_t write_to = kInvalidId;
  bool skipped = false;
  // A view (is_view_node): the output value shares the input's buffer and
  // running the node does nothing.
  bool view = false;
  // A quantizing Convert (fp32 -> qint8) fused with the NCHW -> NHWC
  // transpose after it (fuse_quantize_transpose, fusion.h): it writes the
  // transposed codes into value `write_to`.
  bool to_nhwc = false;
};

// The calls below look the node's kind up in the descriptor table
// (node_kinds.h) and call its hooks.

// True for a node whose output has the same bytes as its input: a reshape,
// a copy, or a transpose that moves only size-1 dims, of a non-constant
// value of a whole-byte datatype with equal quantization. The delegate runs
// it by giving the output the input's buffer (no copy, and no XNNPACK run).
bool is_view_node(const Values& values, const Node& n);

// Scratch bytes run_native_node may use for node `n` (0 for most kinds).
size_t native_scratch_bytes(const Values& values, const Node& n);

// True for an fp32 Conv2d (one group, explicit padding) or FullyConnected
// node with constant weights, which the delegate runs on the CPU math
// library's GEMM. Debian's 2022 XNNPACK is markedly slower at these on x86.
bool is_float_gemm_node(const Values& values, const Node& n);

// True for an fp32 node that our own kernels run faster than Debian's 2022
// XNNPACK: is_float_gemm_node, a depthwise convolution (multiplier 1,
// explicit padding, constant filter), a sigmoid, a softmax, or a multiply
// or add of equal shapes or with one operand broadcast across the middle
// dims ([N|1, 1.., C] against [N, .., C], as in squeeze-and-excitation).
bool is_float_compute_node(const Values& values, const Node& n);

// Which operand of a Multiply or Add is broadcast across the middle dims (0 or 1),
// 2 for equal shapes, -1 for anything else.
int multiply_layout(const Values& values, const Node& n);

// True for a Convert fp32 -> qint8 (per tensor) that run_native_node runs.
bool is_static_quantize(const Values& values, const Node& n);

// For a Clamp node on int8 codes (qint8 input and output with equal
// quantization, which run_native_node runs): its code bounds as XNNPACK
// quantizes them, in *lo and *hi. False for any other node.
bool qs8_clamp_codes(const Values& values, const Node& n, int32_t* lo, int32_t* hi);

// For node `n` prepared into `state` as a native int8 convolution or linear
// layer (the GEMM or the depthwise kernel, which bound their codes when they
// requantize): narrows its output code bounds to [lo, hi] as well, so that
// it writes what a clamp to [lo, hi] after it would. False, and nothing
// changed, for other nodes or when the two ranges do not overlap.
bool narrow_qs8_output(const Node& n, NativeState* state, int32_t lo, int32_t hi);

// True when node `n` is run by run_native_node (not by XNNPACK): its kind
// has no define call here, it reads or writes qdint8 values, or (with
// `float_compute`, the delegate's load option "native_fp32") is_float_compute_node.
bool is_native_node(const Values& values, const Node& n, bool float_compute = true);

// Checks that the node's value shapes and dtypes fit what run_native_node
// computes; logs and fails naming the node otherwise.
[[nodiscard]] Error check_native_node(const Values& values, const Node& n, size_t delegate_index);

// Builds the node's NativeState (after check_native_node passed); what it
// keeps comes from `allocator` (null or exhausted: fails with
// DelegateMemoryAllocationFailed naming the node and what it allocates).
// Packing splits across `pool` (may be null); `cache` (may be null) gives
// or records the packed weights (weight_cache.h).
[[nodiscard]] Error prepare_native_node(const Values& values, const Node& n, size_t delegate_index,
                                        MemoryAllocator* allocator, NativeState* state,
                                        ThreadPool* pool = nullptr, WeightCache* cache = nullptr,
                                        const PackScope* shared = nullptr);

// Checks that a node XNNPACK runs has operand shapes and dtypes that agree
// with its parameters (XNNPACK 2022 trusts them and would read or write out
// of bounds otherwise); logs and fails naming the node.
[[nodiscard]] Error check_xnnpack_node(const Values& values, const Node& n, size_t delegate_index);

// True when a node prepared into `state` keeps its own copy (packed or
// plain) of input `slot`'s constant data and never reads the original.
inline bool copies_constant_input(const NativeState& state, uint32_t slot) {
  return slot < 32 && (state.copied_inputs >> slot & 1u) != 0;
}

// Bytes of the buffer the delegate gives value `v` (qdint8 values carry
// their row parameters after the int8 data).
size_t value_buffer_bytes(const Value& v);

// Runs one native node. `buffers[id]` is value id's memory (constants: their data);
// `scratch` holds `scratch_bytes` (up to native_scratch_bytes; less only slows it down).
// Fails (naming the delegate, node and kind) for a node its kind cannot run natively.
[[nodiscard]] Error run_native_node(const Values& values, const Node& n, const NativeState& state,
                                    uint8_t* const* buffers, ThreadPool* pool, void* scratch,
                                    size_t scratch_bytes, size_t delegate_index = 0);

}  // namespace xnnpack
}  // namespace etr
