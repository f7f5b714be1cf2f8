// The instruction sets the optimized kernels may use on this CPU, detected
// once (first call) and fixed for the process. Kernels pick their code path
// from it in prepare; the portable reference stays the fallback.
#pragma once

namespace etr {
namespace opt {

struct CpuFeatures {
  bool avx2_fma = false;  // x86-64: AVX2 and FMA3 (Haswell and later)
  bool avx512f = false;   // x86-64: AVX-512 Foundation
  // x86-64: AVX-512 F, BW, VL and VNNI together (vpdpbusd on 512-bit
  // registers; Ice Lake, Zen 4 and later).
  bool avx512_vnni = false;
  bool f16c = false;  // x86-64: fp16 <-> fp32 conversions (F16C)
  bool neon = false;  // AArch64: Advanced SIMD (always present there)
};

const CpuFeatures& cpu_features();

}  // namespace opt
}  // namespace etr
