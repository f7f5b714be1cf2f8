// The portable half of gemv.h: the panel layout's size and packing (run at
// prepare; the product itself is in gemv_avx2.cpp).
#include "kernels/cpu_math/gemv.h"

#include <cstring>

namespace etr {
namespace opt {

size_t gemv_panels_floats(int64_t m, int64_t k) {
  if (m <= 0 || k <= 0) return 0;
  const uint64_t panels = static_cast<uint64_t>((m + kGemvPanelRows - 1) / kGemvPanelRows);
  uint64_t floats = 0;
  if (__builtin_mul_overflow(panels, static_cast<uint64_t>(k) * kGemvPanelRows, &floats) ||
      floats > SIZE_MAX / sizeof(float)) {
    return 0;
  }
  return static_cast<size_t>(floats);
}

void gemv_pack_panels(const float* w, int64_t m, int64_t k, float* dst) {
  const int64_t panels = (m + kGemvPanelRows - 1) / kGemvPanelRows;
  for (int64_t p = 0; p < panels; ++p) {
    float* d = dst + p * k * kGemvPanelRows;
    const int64_t r0 = p * kGemvPanelRows;
    const int64_t rows = m - r0 < kGemvPanelRows ? m - r0 : kGemvPanelRows;
    if (rows < kGemvPanelRows) {
      std::memset(d, 0, static_cast<size_t>(k * kGemvPanelRows) * sizeof(float));
    }
    for (int64_t r = 0; r < rows; ++r) {
      const float* src = w + (r0 + r) * k;
      for (int64_t j = 0; j < k; ++j) d[j * kGemvPanelRows + r] = src[j];
    }
  }
}

}  // namespace opt
}  // namespace etr
