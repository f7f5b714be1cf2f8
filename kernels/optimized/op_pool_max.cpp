// Optimized aten::max_pool2d_with_indices.out (Float, default dim order):
// planes split over the thread pool; output columns whose window lies inside
// the input take the AVX2 row kernel (stride 1 or 2; groups of 8, the last
// one overlapping the one before), the rest the scalar
// loop, which follows the portable kernel (NaN wins, padding never does,
// indices are flattened H*W positions).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/pool_max.h"
#include "kernels/optimized/pooling.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/pool.h"

namespace etr {
namespace {

constexpr int64_t kMaxParam = INT32_MAX;

struct MaxPoolState {
  bool avx2 = false;
};

// Range [lo, hi) of outputs o in [0, count) whose window [o*s - p, o*s - p + span) is inside [0,
// n).
void inside_range(int64_t count, int64_t s, int64_t p, int64_t span, int64_t n, int64_t* lo,
                  int64_t* hi) {
  *lo = std::min(count, (p + s - 1) / s);
  const int64_t top = n - span + p;  // o * s <= top
  *hi = top < 0 ? 0 : std::min(count, top / s + 1);
  if (*hi < *lo) *hi = *lo;
}

void pool_plane(const PoolGeom& g, bool vector_ok, const float* in, float* out, int64_t* idx) {
  int64_t y_lo, y_hi, x_lo, x_hi;
  inside_range(g.oh, g.sh, g.ph, (g.kh - 1) * g.dh + 1, g.ih, &y_lo, &y_hi);
  inside_range(g.ow, g.sw, g.pw, (g.kw - 1) * g.dw + 1, g.iw, &x_lo, &x_hi);
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    float* o = out + oh * g.ow;
    int64_t* ix = idx + oh * g.ow;
    int64_t x = 0;
    if (vector_ok && oh >= y_lo && oh < y_hi) {
      for (; x < x_lo; ++x) max_window(g, in, oh, x, o + x, ix + x);
      x += opt::max_pool_row_avx2(in, g.iw, oh * g.sh - g.ph, x, x_hi - x, g.kh, g.kw, g.sw, g.pw,
                                  g.dh, g.dw, o + x, ix + x);
      // The inside outputs left over (fewer than a group of 8): one more
      // group ending at x_hi, overlapping outputs already written (with the
      // same values: each output depends on its window alone).
      if (x < x_hi && x_hi - x_lo >= 8) {
        const int64_t x0 = x_hi - 8;
        x = x0 + opt::max_pool_row_avx2(in, g.iw, oh * g.sh - g.ph, x0, 8, g.kh, g.kw, g.sw, g.pw,
                                        g.dh, g.dw, o + x0, ix + x0);
      }
    }
    for (; x < g.ow; ++x) max_window(g, in, oh, x, o + x, ix + x);
  }
}

}  // namespace

Error opt_max_pool2d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                          IntArrayRef kernel_size, IntArrayRef stride,
                                          IntArrayRef padding, IntArrayRef dilation, bool,
                                          Tensor& out, Tensor& indices) {
  if (self.dtype() != ScalarType::Float || out.dtype() != ScalarType::Float ||
      indices.dtype() != ScalarType::Long || (self.dim() != 3 && self.dim() != 4) ||
      !is_default_layout(self) || !is_default_layout(out) || !is_default_layout(indices)) {
    return Error::NotSupported;
  }
  PoolGeom g;
  if (!read_window(kernel_size, stride, padding, dilation, &g)) return Error::NotSupported;
  const bool ok = g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0 &&
                  g.ph >= 0 && g.pw >= 0 &&
                  std::max({g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.ph, g.pw}) <= kMaxParam &&
                  g.ph <= g.kh / 2 && g.pw <= g.kw / 2;
  if (!ok) return Error::NotSupported;
  MaxPoolState* st = ctx.make_state<MaxPoolState>();
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the pooling state", ctx.op_name());
  st->avx2 = opt::cpu_features().avx2_fma;
  ctx.set_state(st);
  return Error::Ok;
}

void opt_max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self,
                                     IntArrayRef kernel_size, IntArrayRef stride,
                                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                     Tensor& out, Tensor& indices) {
  const char* op = ctx.op_name();
  const MaxPoolState* st = ctx.state<MaxPoolState>();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g));
  ETR_KERNEL_CHECK(ctx, st != nullptr && read_window(kernel_size, stride, padding, dilation, &g),
                   Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, indices));
  if (g.planes == 0) return;
  // The vector kernel keeps indices in int32.
  const bool vector_ok =
      st->avx2 && (g.sw == 1 || g.sw == 2) && g.ih * g.iw <= static_cast<int64_t>(INT32_MAX);
  const float* in = self.const_data_ptr<float>();
  float* o = out.data_ptr<float>();
  int64_t* ix = indices.data_ptr<int64_t>();
  const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  // About 16K window taps per chunk.
  const int64_t work = std::max<int64_t>(1, out_plane * g.kh * g.kw);
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 16384 / work));
  parallel_for(
      ctx.thread_pool(), static_cast<size_t>(g.planes), grain, [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) {
          const int64_t pi = static_cast<int64_t>(p);
          pool_plane(g, vector_ok, in + pi * in_plane, o + pi * out_plane, ix + pi * out_plane);
        }
      });
}

}  // namespace etr
