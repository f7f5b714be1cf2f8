// Packing into the panel layout of gemm_internal.h, the whole-operand
// pack_a / pack_b of util/gemm.h, and the plain C++ micro-kernel.
#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/gemm_internal.h"
#include "kernels/cpu_math/vec_transpose.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace opt {
namespace internal {
namespace {

int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Bytes of `rows` rounded up to a multiple of `pad`, times k; 0 on overflow or bad sizes.
size_t padded_bytes(int64_t rows, int64_t k, int64_t pad) {
  if (rows < 0 || k < 0 || rows > INT64_MAX - pad) return 0;
  size_t elems = 0;
  size_t bytes = 0;
  if (!checked_mul(static_cast<size_t>(round_up(rows, pad)), static_cast<size_t>(k), &elems) ||
      !checked_mul(elems, sizeof(float), &bytes)) {
    return 0;
  }
  return bytes;
}

// v * scale, then + shift and clamped at 0 (when given): the multiply and
// the add rounded apart, as the optimized batch norm does.
struct KTransform {
  const float* scale;
  const float* shift;
  bool relu;
  float apply(float v, int64_t k) const {
    float y = v * scale[k];
    if (shift != nullptr) y = y + shift[k];
    return relu ? (y > 0.0f ? y : 0.0f) : y;
  }
};

// dst[c] = src[c] * ks (+ kb when kShift; then max with 0 when kRelu) for
// c < n, each step rounded as the separate kernels would; src may be dst.
// The portable path: where the CPU has AVX2, transform_b_rows_avx2 does
// this (the scalar loop cost ~1 ms per DenseNet-121 14x14 layer).
template <bool kShift, bool kRelu>
inline void scale_shift_relu_n(const float* src, float* dst, int n, float ks, float kb) {
  for (int c = 0; c < n; ++c) {
    float y = src[c] * ks;
    if (kShift) y = y + kb;
    dst[c] = kRelu ? (y > 0.0f ? y : 0.0f) : y;
  }
}

// One K row of the transformed B pack: `full` columns in whole panels
// (panel q at dst + q * panel_stride), then `tail` columns into the
// partial panel after them, its padding zeroed. src_in_panels: the source
// is the packed panels themselves (transformed in place).
template <bool kShift, bool kRelu>
void transform_b_row(const float* src, bool src_in_panels, float* dst, int64_t full, int tail,
                     int64_t panel_stride, float ks, float kb) {
  for (int64_t jp = 0; jp < full; jp += kGemmNr) {
    float* dp = dst + jp / kGemmNr * panel_stride;
    const float* sp = src_in_panels ? dp : src + jp;
    scale_shift_relu_n<kShift, kRelu>(sp, dp, kGemmNr, ks, kb);
  }
  if (tail != 0) {
    float* dt = dst + full / kGemmNr * panel_stride;
    const float* st = src_in_panels ? dt : src + full;
    scale_shift_relu_n<kShift, kRelu>(st, dt, tail, ks, kb);
    for (int c = tail; c < kGemmNr; ++c) dt[c] = 0.0f;
  }
}

}  // namespace

void pack_a_panels(MatrixView a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* dst,
                   const float* k_scale, const float* k_shift, bool k_relu) {
  const KTransform kt{k_scale, k_shift, k_relu};
  if (kc <= 0) return;
  for (int64_t ip = 0; ip < mc; ip += kGemmMr) {
    const int rows = static_cast<int>(std::min<int64_t>(kGemmMr, mc - ip));
    float* panel = dst + ip * kc;
    const float* src = a.data + (i0 + ip) * a.row_stride + p0 * a.col_stride;
    if (k_scale == nullptr && a.col_stride == 1) {
      static_assert(kGemmMr == 6, "transpose_6_f32 packs 6-row panels");
      // Rows contiguous along K: register transposes, padding rows zero.
      transpose_6_f32(src, a.row_stride, rows, panel, kc);
      continue;
    }
    if (rows < kGemmMr) {
      // Padding rows are zero (the micro-kernel never stores them).
      for (int64_t kk = 0; kk < kc; ++kk) {
        for (int r = rows; r < kGemmMr; ++r) panel[kk * kGemmMr + r] = 0.0f;
      }
    }
    if (k_scale != nullptr && (k_shift != nullptr || k_relu)) {
      // Each element through its K position's transform as it is copied.
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* s = src + kk * a.col_stride;
        for (int r = 0; r < rows; ++r) {
          panel[kk * kGemmMr + r] = kt.apply(s[r * a.row_stride], p0 + kk);
        }
      }
    } else if (k_scale != nullptr) {
      // Each element times its K position's scale as it is copied.
      const float* ks = k_scale + p0;
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* s = src + kk * a.col_stride;
        for (int r = 0; r < rows; ++r) panel[kk * kGemmMr + r] = s[r * a.row_stride] * ks[kk];
      }
    } else {
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* s = src + kk * a.col_stride;
        for (int r = 0; r < rows; ++r) panel[kk * kGemmMr + r] = s[r * a.row_stride];
      }
    }
  }
}

void pack_b_panels(MatrixView b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* dst,
                   const float* k_scale, const float* k_shift, bool k_relu) {
  if (kc <= 0) return;
  if (k_scale != nullptr && (k_shift != nullptr || k_relu)) {
    // Each element through its K position's transform as it is copied
    // (padding columns stay zero); other layouts are packed first, then
    // transformed in place.
    if (b.col_stride != 1) pack_b_panels(b, p0, kc, j0, nc, dst);
    const int64_t full = nc / kGemmNr * kGemmNr;
    const int tail = static_cast<int>(nc - full);
    const bool in_panels = b.col_stride != 1;
    if (cpu_features().avx2_fma) {
      transform_b_rows_avx2(b.data + p0 * b.row_stride + j0, b.row_stride, in_panels, dst, kc, full,
                            tail, kGemmNr * kc, k_scale + p0,
                            k_shift == nullptr ? nullptr : k_shift + p0, k_relu);
      return;
    }
    auto* row = k_shift != nullptr
                    ? (k_relu ? &transform_b_row<true, true> : &transform_b_row<true, false>)
                    : &transform_b_row<false, true>;
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float* s = b.data + (p0 + kk) * b.row_stride + j0;
      const float kb = k_shift != nullptr ? k_shift[p0 + kk] : 0.0f;
      row(s, in_panels, dst + kk * kGemmNr, full, tail, kGemmNr * kc, k_scale[p0 + kk], kb);
    }
    return;
  }
  if (k_scale != nullptr && b.col_stride == 1) {
    // As below, each row times its K position's scale as it is copied.
    const int64_t full = nc / kGemmNr * kGemmNr;
    const int tail = static_cast<int>(nc - full);
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float* s = b.data + (p0 + kk) * b.row_stride + j0;
      const float ks = k_scale[p0 + kk];
      float* d = dst + kk * kGemmNr;
      for (int64_t jp = 0; jp < full; jp += kGemmNr) {
        float* dp = d + jp * kc;
        for (int c = 0; c < kGemmNr; ++c) dp[c] = s[jp + c] * ks;
      }
      if (tail != 0) {
        float* dt = d + full * kc;
        for (int c = 0; c < tail; ++c) dt[c] = s[full + c] * ks;
        for (int c = tail; c < kGemmNr; ++c) dt[c] = 0.0f;
      }
    }
    return;
  }
  if (k_scale != nullptr) {
    // Other layouts: packed as usual, then each panel row (one K position)
    // scaled.
    pack_b_panels(b, p0, kc, j0, nc, dst, nullptr);
    const int64_t panels = (nc + kGemmNr - 1) / kGemmNr;
    for (int64_t q = 0; q < panels; ++q) {
      float* panel = dst + q * kGemmNr * kc;
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float s = k_scale[p0 + kk];
        for (int c = 0; c < kGemmNr; ++c) panel[kk * kGemmNr + c] *= s;
      }
    }
    return;
  }
  if (b.col_stride == 1) {
    // Rows contiguous along N: read each row once, front to back (one
    // 16-float copy per panel), so the source streams through the cache.
    const int64_t full = nc / kGemmNr * kGemmNr;
    const int tail = static_cast<int>(nc - full);
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float* s = b.data + (p0 + kk) * b.row_stride + j0;
      float* d = dst + kk * kGemmNr;
      for (int64_t jp = 0; jp < full; jp += kGemmNr) {
        std::memcpy(d + jp * kc, s + jp, kGemmNr * sizeof(float));
      }
      if (tail != 0) {
        float* dt = d + full * kc;
        for (int c = 0; c < tail; ++c) dt[c] = s[full + c];
        for (int c = tail; c < kGemmNr; ++c) dt[c] = 0.0f;
      }
    }
    return;
  }
  for (int64_t jp = 0; jp < nc; jp += kGemmNr) {
    const int cols = static_cast<int>(std::min<int64_t>(kGemmNr, nc - jp));
    float* panel = dst + jp * kc;
    const float* src = b.data + p0 * b.row_stride + (j0 + jp) * b.col_stride;
    if (b.row_stride == 1 && cols == kGemmNr) {
      // Columns contiguous along K (B stored transposed, as filters are):
      // transpose 8 x 16 blocks, reading 16 short runs and writing 8 whole
      // panel rows, so both sides stay in L1.
      int64_t kk = 0;
      for (; kk + 8 <= kc; kk += 8) {
        float block[kGemmNr][8];
        for (int c = 0; c < kGemmNr; ++c)
          std::memcpy(block[c], src + c * b.col_stride + kk, sizeof block[c]);
        for (int r = 0; r < 8; ++r) {
          float* d = panel + (kk + r) * kGemmNr;
          for (int c = 0; c < kGemmNr; ++c) d[c] = block[c][r];
        }
      }
      for (; kk < kc; ++kk) {
        for (int c = 0; c < kGemmNr; ++c) panel[kk * kGemmNr + c] = src[c * b.col_stride + kk];
      }
      continue;
    }
    for (int c = 0; c < cols; ++c) {
      const float* s = src + c * b.col_stride;
      for (int64_t kk = 0; kk < kc; ++kk) panel[kk * kGemmNr + c] = s[kk * b.row_stride];
    }
    for (int64_t kk = 0; kk < kc; ++kk) {
      for (int c = cols; c < kGemmNr; ++c) panel[kk * kGemmNr + c] = 0.0f;
    }
  }
}

void store_tile(const MicroTile& t, const float (*acc)[kGemmNr]) {
  for (int r = 0; r < t.mr; ++r) {
    float* c = t.c + r * t.ldc;
    for (int j = 0; j < t.nr; ++j) {
      float v = acc[r][j];
      if (t.alpha != 1.0f) v *= t.alpha;
      if (!t.first) {
        v += c[j];
      } else if (t.beta != 0.0f) {
        v += t.beta * c[j];
      }
      if (t.last) {
        if (t.row_bias != nullptr) v += t.row_bias[r];
        if (t.col_bias != nullptr) v += t.col_bias[j];
        // Written so that NaN stays NaN, like the AVX2 path.
        if (t.clamp) v = v < t.lo ? t.lo : (v > t.hi ? t.hi : v);
      }
      c[j] = v;
    }
  }
}

void f32_gemm_ukernel__generic_6x16(const MicroTile& t) {
  float acc[kGemmMr][kGemmNr] = {};
  for (int64_t k = 0; k < t.kc; ++k) {
    const float* a = t.a + k * kGemmMr;
    const float* b = t.b + k * kGemmNr;
    for (int r = 0; r < kGemmMr; ++r) {
      for (int c = 0; c < kGemmNr; ++c) acc[r][c] += a[r] * b[c];
    }
  }
  store_tile(t, acc);
}

}  // namespace internal

size_t packed_a_bytes(int64_t m, int64_t k) {
  return internal::padded_bytes(m, k, internal::kGemmMr);
}

size_t packed_b_bytes(int64_t k, int64_t n) {
  return internal::padded_bytes(n, k, internal::kGemmNr);
}

PackedMatrix pack_a(MatrixView a, int64_t m, int64_t k, float* dst) {
  internal::pack_a_panels(a, 0, m, 0, k, dst);
  return PackedMatrix{dst, m, k};
}

PackedMatrix pack_b(MatrixView b, int64_t k, int64_t n, float* dst) {
  internal::pack_b_panels(b, 0, k, 0, n, dst);
  return PackedMatrix{dst, k, n};
}

// The least output a thread packs (1 MiB): below it waking the pool costs
// more than the split saves, and most layers pack on the calling thread.
constexpr int64_t kPackGrainFloats = int64_t{1} << 18;

PackedMatrix pack_a(MatrixView a, int64_t m, int64_t k, float* dst, ThreadPool* pool) {
  // Panel ip (a multiple of kGemmMr) starts at dst + ip * k.
  const int64_t panels = (m + internal::kGemmMr - 1) / internal::kGemmMr;
  const int64_t panel_floats = std::max<int64_t>(1, k) * internal::kGemmMr;
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, kPackGrainFloats / panel_floats));
  parallel_for(pool, static_cast<size_t>(panels), grain, [&](size_t begin, size_t end) {
    const int64_t i0 = static_cast<int64_t>(begin) * internal::kGemmMr;
    const int64_t i1 = std::min<int64_t>(m, static_cast<int64_t>(end) * internal::kGemmMr);
    internal::pack_a_panels(a, i0, i1 - i0, 0, k, dst + i0 * k);
  });
  return PackedMatrix{dst, m, k};
}

PackedMatrix pack_b(MatrixView b, int64_t k, int64_t n, float* dst, ThreadPool* pool) {
  // Panel jp (a multiple of kGemmNr) starts at dst + jp * k, so each chunk
  // of whole panels packs on its own.
  const int64_t panels = (n + internal::kGemmNr - 1) / internal::kGemmNr;
  const int64_t panel_floats = std::max<int64_t>(1, k) * internal::kGemmNr;
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, kPackGrainFloats / panel_floats));
  parallel_for(pool, static_cast<size_t>(panels), grain, [&](size_t begin, size_t end) {
    const int64_t j0 = static_cast<int64_t>(begin) * internal::kGemmNr;
    const int64_t j1 = std::min<int64_t>(n, static_cast<int64_t>(end) * internal::kGemmNr);
    internal::pack_b_panels(b, 0, k, j0, j1 - j0, dst + j0 * k);
  });
  return PackedMatrix{dst, k, n};
}

}  // namespace opt
}  // namespace etr
