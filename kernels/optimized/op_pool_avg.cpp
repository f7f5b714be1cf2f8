// Optimized aten::avg_pool2d.out for the 2x2, stride-2, unpadded window of
// DenseNet's transition layers (Float, default dim order, ceil_mode off, so
// every window lies inside the input): planes split over the thread pool,
// four outputs per AVX2 step. Each mean is formed as the portable kernel
// forms it (util/pool.cpp): the four taps summed in double, row by row,
// divided by the divisor (divisor_override, else 4) in double and rounded
// to float once, so the outputs are the portable kernel's bit for bit.
// Prepare declines (NotSupported) every other window, dtype and layout,
// which the portable kernel runs.
#include <algorithm>
#include <optional>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/pool_avg.h"
#include "kernels/optimized/pooling.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/pool.h"


namespace etr {
namespace {

struct AvgPoolState {
  bool avx2 = false;
};

bool is_2x2_stride2(IntArrayRef v) { return v.size() == 2 && v[0] == 2 && v[1] == 2; }
bool is_zero_pad(IntArrayRef v) {
  return v.empty() || (v.size() == 1 && v[0] == 0) || (v.size() == 2 && v[0] == 0 && v[1] == 0);
}

// Outputs [x0, ow) of one output row from input rows r0 and r1 (the same
// arithmetic as opt::avg_pool_2x2_row_avx2).
void row_scalar(const float* r0, const float* r1, int64_t x0, int64_t ow, double div, float* out) {
  for (int64_t x = x0; x < ow; ++x) {
    double sum = 0.0;
    sum += static_cast<double>(r0[2 * x]);
    sum += static_cast<double>(r0[2 * x + 1]);
    sum += static_cast<double>(r1[2 * x]);
    sum += static_cast<double>(r1[2 * x + 1]);
    out[x] = static_cast<float>(sum / div);
  }
}


}  // namespace

Error opt_avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self,
                             IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             bool ceil_mode, bool, std::optional<int64_t> divisor_override,
                             Tensor& out) {
  if (self.dtype() != ScalarType::Float || out.dtype() != ScalarType::Float ||
      (self.dim() != 3 && self.dim() != 4) || !is_default_layout(self) ||
      !is_default_layout(out) || ceil_mode || !is_2x2_stride2(kernel_size) ||
      !is_2x2_stride2(stride) || !is_zero_pad(padding) ||
      (divisor_override.has_value() && *divisor_override == 0)) {
    return Error::NotSupported;
  }
  AvgPoolState* st = ctx.make_state<AvgPoolState>();
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the pooling state", ctx.op_name());
  st->avx2 = opt::cpu_features().avx2_fma;
  ctx.set_state(st);
  return Error::Ok;
}

void opt_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                        IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool,
                        std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  const AvgPoolState* st = ctx.state<AvgPoolState>();
  ETR_KERNEL_CHECK(ctx,
                   st != nullptr && !ceil_mode && is_2x2_stride2(kernel_size) &&
                       is_2x2_stride2(stride) && is_zero_pad(padding),
                   Error::Internal, "%s: window other than 2x2 stride 2 (prepare refuses it)", op);
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, 2));
  const int64_t one[1] = {1};
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &g, 2),
                   Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, false, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, 2));
  if (g.planes == 0) return;
  const double div =
      divisor_override.has_value() ? static_cast<double>(*divisor_override) : 4.0;
  const float* in = self.const_data_ptr<float>();
  float* o = out.data_ptr<float>();
  const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  const bool avx2 = st->avx2;
  // About 64K outputs per chunk.
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 65536 / std::max<int64_t>(out_plane, 1)));
  parallel_for(ctx.thread_pool(), static_cast<size_t>(g.planes), grain,
               [&](size_t begin, size_t end) {
                 for (size_t p = begin; p < end; ++p) {
                   const float* plane = in + static_cast<int64_t>(p) * in_plane;
                   float* dst = o + static_cast<int64_t>(p) * out_plane;
                   for (int64_t y = 0; y < g.oh; ++y) {
                     const float* r0 = plane + 2 * y * g.iw;
                     const float* r1 = r0 + g.iw;
                     float* row = dst + y * g.ow;
                     int64_t x = 0;
                     // The vector step reads 8 columns from 2x: x + 4 <= ow
                     // keeps them inside the 2 * ow <= iw columns.
                     if (avx2) x = opt::avg_pool_2x2_row_avx2(r0, r1, g.ow, div, row);
                     row_scalar(r0, r1, x, g.ow, div, row);
                   }
                 }
               });
}

}  // namespace etr
