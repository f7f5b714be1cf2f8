// Node fusion in the XNNPACK delegate: a pattern over the parsed node list,
// applied after the nodes are split into XNNPACK runs and native nodes.
#pragma once

#include <cstddef>
#include <vector>

#include "backends/xnnpack/native_nodes.h"

namespace etr {
namespace xnnpack {

// Finds convolution -> sigmoid -> multiply(x, sigmoid(x)) chains (SiLU as
// the exporter writes it) among native nodes (native[i] for node i) whose
// intermediate values nothing else reads and that clamp nothing, and fuses
// each into its convolution: the convolution's state gets silu and
// write_to (the multiply's output), the sigmoid's and multiply's states
// get skipped. A convolution qualifies when it was prepared for the GEMM or
// the depthwise kernel (states[i].packed or .dwconv). Returns the number of
// chains fused.
size_t fuse_silu(const Values& values, const std::vector<Node>& nodes,
                 const std::vector<bool>& native, std::vector<NativeState>* states);

// Finds int8 clamps run natively (qs8_clamp_codes) whose input only they
// read, written by a native int8 convolution or linear layer
// (narrow_qs8_output), and folds each into that layer: its output bounds
// narrow to the clamp's, it writes the clamp's output (write_to), and the
// clamp's state is skipped. Returns the number of clamps folded.
size_t fuse_qs8_clamps(const Values& values, const std::vector<Node>& nodes,
                       const std::vector<bool>& native, std::vector<NativeState>* states);

// Finds quantizing Converts (is_static_quantize) of an NCHW image [N, C, H, W]
// with C <= 4 whose output only a native transpose to NHWC (perm 0, 2, 3, 1;
// no view) reads, and fuses each pair: the Convert writes the transposed
// codes into the transpose's output (to_nhwc, write_to), the transpose's
// state is skipped. Returns the number of pairs fused.
size_t fuse_quantize_transpose(const Values& values, const std::vector<Node>& nodes,
                               const std::vector<bool>& native, std::vector<NativeState>* states);

}  // namespace xnnpack
}  // namespace etr
