#include "kernels/cpu_math/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace etr {
namespace opt {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512_vnni = f.avx512f && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  // CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports has no "f16c").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  f.f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
#elif defined(__aarch64__)
  f.neon = true;
#endif
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace opt
}  // namespace etr
