// The F16C conversions of narrow_float.h (narrow_float_avx2.cpp, compiled
// with F16C by etr_isa_sources; called only where opt::cpu_features()
// reports AVX2 and F16C). Elsewhere they are never reached.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {
namespace xnnpack {
namespace f16c {

void fp16_to_fp32(const uint16_t* src, float* dst, size_t n);
void fp32_to_fp16(const float* src, uint16_t* dst, size_t n);
void round_to_fp16(float* data, size_t n);

}  // namespace f16c
}  // namespace xnnpack
}  // namespace etr
