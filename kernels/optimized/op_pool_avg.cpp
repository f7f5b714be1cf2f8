// Optimized aten::avg_pool2d.out (Float, default dim order): planes split
// over the thread pool. Each output is the portable kernel's arithmetic in
// the same order (the window's sum in double, rows then columns, divided by
// divisor_override, the padded window size or the clipped one), so results
// are bit-identical to it. The 2x2, stride-2, unpadded window of DenseNet's
// transition layers (every window inside the input) takes four outputs per
// AVX2 step (opt::avg_pool_2x2_row_avx2, the same arithmetic).
#include <algorithm>
#include <optional>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/pool_avg.h"
#include "kernels/optimized/pooling.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/pool.h"

namespace etr {
namespace {

constexpr int64_t kMaxParam = INT32_MAX;

struct AvgPoolState {
  bool avx2 = false;
};

// Outputs [x0, ow) of one output row of the 2x2 stride-2 window from input
// rows r0 and r1 (the same arithmetic as opt::avg_pool_2x2_row_avx2).
void row_2x2(const float* r0, const float* r1, int64_t x0, int64_t ow, double div, float* out) {
  for (int64_t x = x0; x < ow; ++x) {
    double sum = 0.0;
    sum += static_cast<double>(r0[2 * x]);
    sum += static_cast<double>(r0[2 * x + 1]);
    sum += static_cast<double>(r1[2 * x]);
    sum += static_cast<double>(r1[2 * x + 1]);
    out[x] = static_cast<float>(sum / div);
  }
}

// True when every window is a whole 2x2 block of the input at stride 2.
bool whole_2x2_blocks(const PoolGeom& g) {
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 &&
         2 * g.oh <= g.ih && 2 * g.ow <= g.iw;
}

void pool_plane(const PoolGeom& g, bool count_include_pad, std::optional<int64_t> divisor,
                bool avx2, const float* in, float* out) {
  if (whole_2x2_blocks(g)) {
    // A whole window's divisor is 4 with or without padding counted.
    const double div = divisor.has_value() ? static_cast<double>(*divisor) : 4.0;
    for (int64_t y = 0; y < g.oh; ++y) {
      const float* r0 = in + 2 * y * g.iw;
      const float* r1 = r0 + g.iw;
      float* row = out + y * g.ow;
      const int64_t x = avx2 ? opt::avg_pool_2x2_row_avx2(r0, r1, g.ow, div, row) : 0;
      row_2x2(r0, r1, x, g.ow, div, row);
    }
    return;
  }
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const AvgWindow wh = avg_window(oh, g.sh, g.ph, g.kh, g.ih);
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const AvgWindow ww = avg_window(ow, g.sw, g.pw, g.kw, g.iw);
      float& dst = out[oh * g.ow + ow];
      if (wh.lo >= wh.hi || ww.lo >= ww.hi) {
        dst = 0.0f;
        continue;
      }
      double sum = 0;
      for (int64_t h = wh.lo; h < wh.hi; ++h) {
        const float* row = in + h * g.iw;
        for (int64_t w = ww.lo; w < ww.hi; ++w) sum += static_cast<double>(row[w]);
      }
      const double div = divisor.has_value() ? static_cast<double>(*divisor)
                         : count_include_pad
                             ? static_cast<double>(wh.padded) * static_cast<double>(ww.padded)
                             : static_cast<double>((wh.hi - wh.lo) * (ww.hi - ww.lo));
      dst = static_cast<float>(sum / div);
    }
  }
}

}  // namespace

Error opt_avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                             IntArrayRef stride, IntArrayRef padding, bool, bool,
                             std::optional<int64_t> divisor_override, Tensor& out) {
  if (self.dtype() != ScalarType::Float || out.dtype() != ScalarType::Float ||
      (self.dim() != 3 && self.dim() != 4) || !is_default_layout(self) || !is_default_layout(out) ||
      (divisor_override.has_value() && *divisor_override == 0)) {
    return Error::NotSupported;
  }
  PoolGeom g;
  const int64_t one[1] = {1};
  if (!read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &g)) {
    return Error::NotSupported;
  }
  const bool ok = g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.ph >= 0 && g.pw >= 0 &&
                  std::max({g.kh, g.kw, g.sh, g.sw, g.ph, g.pw}) <= kMaxParam && g.ph <= g.kh / 2 &&
                  g.pw <= g.kw / 2;
  if (!ok) return Error::NotSupported;
  AvgPoolState* st = ctx.make_state<AvgPoolState>();
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the pooling state", ctx.op_name());
  st->avx2 = opt::cpu_features().avx2_fma;
  ctx.set_state(st);
  return Error::Ok;
}

void opt_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                        IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                        bool count_include_pad, std::optional<int64_t> divisor_override,
                        Tensor& out) {
  const char* op = ctx.op_name();
  const AvgPoolState* st = ctx.state<AvgPoolState>();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g));
  const int64_t one[1] = {1};
  ETR_KERNEL_CHECK(
      ctx, st != nullptr && read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &g),
      Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out));
  if (g.planes == 0 || g.oh == 0 || g.ow == 0) return;
  const float* in = self.const_data_ptr<float>();
  float* o = out.data_ptr<float>();
  const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  // About 16K window taps per chunk.
  const int64_t work = std::max<int64_t>(1, out_plane * g.kh * g.kw);
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 16384 / work));
  parallel_for(ctx.thread_pool(), static_cast<size_t>(g.planes), grain,
               [&](size_t begin, size_t end) {
                 for (size_t p = begin; p < end; ++p) {
                   const int64_t pi = static_cast<int64_t>(p);
                   pool_plane(g, count_include_pad, divisor_override, st->avx2, in + pi * in_plane,
                              o + pi * out_plane);
                 }
               });
}

}  // namespace etr
