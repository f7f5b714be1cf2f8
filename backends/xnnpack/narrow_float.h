// bf16 and fp16 values on an XNNPACK without a usable datatype for them
// (Debian's 2022 snapshot has no bf16, and its fp16 subgraph path is not
// one we can define): every bf16 or fp16 value of the payload is held as
// fp32 inside the delegate, so XNNPACK and the native nodes see an fp32
// graph. Both formats go the same way (NarrowFloat names which):
//
//   - Constants (weights, biases) are widened to fp32 once at init, exactly
//     (every bf16 and every fp16 is an fp32).
//   - External inputs arrive as bf16 / fp16 tensors and are widened into
//     the value's fp32 buffer before the run; external outputs are narrowed
//     back into the tensor after it, rounding to nearest even.
//   - Every node's narrow output is rounded to its format, as the official
//     runtime's XNNPACK rounds each bf16 / fp16 operator's output: a node
//     with such an output ends its XNNPACK run, so the value gets a buffer
//     of ours, and it is rounded in place after the run (the delegate's
//     outputs are narrowed when copied out). Rounding only at the
//     delegate's outputs is not enough: a bf16 linear layer followed by an
//     add in one payload (test/xnnpack/bf16_test.cpp) then differs from the
//     official output in 11 of its 48 elements, some by more than one bf16
//     step. The LLM exporter's bf16 partitions hold one operator between
//     external values, where both ways agree. fp32 graphs are not split.
//
// fp16 <-> fp32 conversions use F16C on x86-64 (narrow_float_avx2.cpp,
// where cpu_features() reports AVX2 and F16C), NEON on AArch64, and the
// portable scalar conversions of runtime/core/half.h elsewhere; all round
// to nearest even and agree bit for bit except in NaN payloads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/error.h"

namespace etr {
namespace xnnpack {

// "bf16", "fp16" or "none".
const char* to_string(NarrowFloat f);

// Turns every plain bf16 and fp16 value of `g` into fp32 (Value::narrowed
// set to its format) and widens those constants into Graph::widened; the
// named-data buffers only such constants read are released. Logs what it
// widened, one line per format. Does nothing to a graph without them.
[[nodiscard]] Error widen_narrow_values(Graph* g, size_t delegate);

// `n` elements of format `f` (bf16 or fp16) -> fp32 (exact).
void narrow_to_fp32(NarrowFloat f, const uint16_t* src, float* dst, size_t n);
// `n` fp32 elements -> format `f`, rounding to nearest even (NaN stays NaN;
// fp16: beyond 65504 rounds to infinity).
void fp32_to_narrow(NarrowFloat f, const float* src, uint16_t* dst, size_t n);
// Rounds `n` fp32 elements in place to the nearest value of format `f`
// (kept as fp32).
void round_to_narrow(NarrowFloat f, float* data, size_t n);

// The same for one format.
void bf16_to_fp32(const uint16_t* src, float* dst, size_t n);
void fp32_to_bf16(const float* src, uint16_t* dst, size_t n);
void round_to_bf16(float* data, size_t n);
void fp16_to_fp32(const uint16_t* src, float* dst, size_t n);
void fp32_to_fp16(const float* src, uint16_t* dst, size_t n);
void round_to_fp16(float* data, size_t n);

// The portable fp16 conversions (what fp16_to_fp32 and friends use where
// there is no F16C or NEON); exposed so tests compare both paths.
void fp16_to_fp32_scalar(const uint16_t* src, float* dst, size_t n);
void fp32_to_fp16_scalar(const float* src, uint16_t* dst, size_t n);
void round_to_fp16_scalar(float* data, size_t n);

}  // namespace xnnpack
}  // namespace etr
