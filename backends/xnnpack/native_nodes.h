// Nodes the XNNPACK delegate runs itself: the node kinds the exporter emits
// for which Debian's XNNPACK (2022-02) has no define call (transpose,
// concatenate, slice, batch matmul, tanh, exp, log, gelu, sin, cos,
// reciprocal square root, copy) and the dynamically quantized linear
// layers (Convert fp32 -> qdint8, FullyConnected qdint8 x qcint8 / qcint4 /
// qbint4 -> fp32; dq_linear.h). They read and write the delegate's value buffers and split
// their work over the method's thread pool.
//
// Every function takes the value list whose dims are the shapes of the
// current run (the payload's dims, or those inferred for another input
// shape; see xnnpack_backend.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/xnnpack/dq_linear.h"
#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/error.h"

namespace etr {
class ThreadPool;
namespace xnnpack {

using Values = std::vector<Value>;

// What a native node prepares once at init (packed weights); empty for
// most kinds.
struct NativeState {
  DqLinearWeights dq;
  // fp32 Conv2d / FullyConnected on the optimized GEMM (is_float_gemm_node):
  // the filter as the GEMM's B operand [k, n], packed once at init into
  // `packed_storage` (`packed` is its 64-byte-aligned start).
  std::vector<float> packed_storage;
  const float* packed = nullptr;
  size_t gemm_k = 0;
  size_t gemm_n = 0;
  std::vector<float> gemm_bias;  // a constant bias, copied
  // fp32 DepthwiseConv2d (is_float_compute_node): the filter [kh, kw, C]
  // and bias copied to float alignment (the payload's may be unaligned).
  std::vector<float> dw_weights;
  std::vector<float> dw_bias;
  bool dwconv = false;
  // SiLU fused by fuse_silu: this convolution writes x * sigmoid(x) into
  // value `write_to` (the multiply's output) instead of x into its own
  // output; the sigmoid and multiply nodes it absorbed are `skipped`.
  bool silu = false;
  uint32_t write_to = kInvalidId;
  bool skipped = false;
  // A view (is_view_node): the output value shares the input's buffer and
  // running the node does nothing.
  bool view = false;
};

// True for a node whose output has the same bytes as its input: a reshape,
// a copy, or a transpose that moves only size-1 dims, of a non-constant
// value of a whole-byte datatype with equal quantization. The delegate runs
// it by giving the output the input's buffer (no copy, and no XNNPACK run).
bool is_view_node(const Values& values, const Node& n);

// Scratch bytes run_native_node may use for node `n` (0 for most kinds).
size_t native_scratch_bytes(const Values& values, const Node& n);

// True for an fp32 Conv2d (one group, explicit padding) or FullyConnected
// node with constant weights, which the delegate can run on the optimized
// library's GEMM (only in builds with the optimized kernels). Debian's 2022
// XNNPACK is markedly slower at these on x86 than our GEMM.
bool is_float_gemm_node(const Values& values, const Node& n);

// True for an fp32 node that our own kernels run faster than Debian's 2022
// XNNPACK: is_float_gemm_node, a depthwise convolution (multiplier 1,
// explicit padding, constant filter), a sigmoid, or a multiply of equal
// shapes or with one operand broadcast across the middle dims ([N|1, 1..,
// C] against [N, .., C], as in squeeze-and-excitation).
bool is_float_compute_node(const Values& values, const Node& n);

// True when node `n` is run by run_native_node (not by XNNPACK): its kind
// has no define call here, it reads or writes qdint8 values, or (with
// `float_compute`, the delegate's load option "native_fp32") is_float_compute_node.
bool is_native_node(const Values& values, const Node& n, bool float_compute = true);

// Checks that the node's value shapes and dtypes fit what run_native_node
// computes; logs and fails naming the node otherwise.
[[nodiscard]] Error check_native_node(const Values& values, const Node& n, size_t delegate_index);

// Builds the node's NativeState (after check_native_node passed).
[[nodiscard]] Error prepare_native_node(const Values& values, const Node& n, size_t delegate_index,
                                        NativeState* state);

// Checks that a node XNNPACK runs has operand shapes and dtypes that agree
// with its parameters (XNNPACK 2022 trusts them and would read or write out
// of bounds otherwise); logs and fails naming the node.
[[nodiscard]] Error check_xnnpack_node(const Values& values, const Node& n, size_t delegate_index);

// True when a node prepared into `state` keeps its own copy (packed or
// plain) of input `slot`'s constant data and never reads the original.
bool copies_constant_input(const NativeState& state, uint32_t slot);

// Finds convolution -> sigmoid -> multiply(x, sigmoid(x)) chains (SiLU as
// the exporter writes it) among native nodes (native[i] for node i) whose
// intermediate values nothing else reads and that clamp nothing, and fuses
// each into its convolution (NativeState::silu / write_to / skipped).
// Returns the number of chains fused.
size_t fuse_silu(const Values& values, const std::vector<Node>& nodes,
                 const std::vector<bool>& native, std::vector<NativeState>* states);

// Bytes of the buffer the delegate gives value `v` (qdint8 values carry
// their row parameters after the int8 data).
size_t value_buffer_bytes(const Value& v);

// Runs one native node. `buffers[id]` is value id's memory (constants: their data);
// `scratch` holds `scratch_bytes` (up to native_scratch_bytes; less only slows it down).
void run_native_node(const Values& values, const Node& n, const NativeState& state,
                     uint8_t* const* buffers, ThreadPool* pool, void* scratch,
                     size_t scratch_bytes);

}  // namespace xnnpack
}  // namespace etr
