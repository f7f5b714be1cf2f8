// bf16 values on an XNNPACK without a bf16 datatype (Debian's 2022
// snapshot): every bf16 value of the payload is held as fp32 inside the
// delegate, so XNNPACK and the native nodes see an fp32 graph.
//
//   - Constants (weights, biases) are widened to fp32 once at init, exactly
//     (every bf16 is an fp32).
//   - External inputs arrive as bf16 tensors and are widened into the
//     value's fp32 buffer before the run; external outputs are narrowed back
//     into the bf16 tensor after it, rounding to nearest even.
//   - Every node's bf16 output is rounded to bf16, as the official
//     runtime's XNNPACK rounds each bf16 operator's output: a node with a
//     bf16 output ends its XNNPACK run, so the value gets a buffer of ours,
//     and it is rounded in place after the run (the delegate's outputs are
//     narrowed when copied out). Rounding only at the delegate's outputs
//     is not enough: a bf16 linear layer followed by an add in one payload
//     (test/xnnpack/bf16_test.cpp) then differs from the official output
//     in 11 of its 48 elements, some by more than one bf16 step. The
//     LLM exporter's bf16 partitions hold one operator between external
//     values, where both ways agree. fp32 graphs are not split.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/error.h"

namespace etr {
namespace xnnpack {

// Turns every plain bf16 value of `g` into fp32 (Value::widened_bf16 set)
// and widens the bf16 constants into Graph::widened; the named-data buffers
// only bf16 constants read are released. Logs what it widened. Does nothing
// to a graph without bf16 values.
[[nodiscard]] Error widen_bf16_values(Graph* g, size_t delegate);

// `n` bf16 elements -> fp32 (exact).
void bf16_to_fp32(const uint16_t* src, float* dst, size_t n);
// `n` fp32 elements -> bf16, rounding to nearest even (NaN stays NaN).
void fp32_to_bf16(const float* src, uint16_t* dst, size_t n);
// Rounds `n` fp32 elements in place to the nearest bf16 (kept as fp32).
void round_to_bf16(float* data, size_t n);

}  // namespace xnnpack
}  // namespace etr
