// aten::avg_pool2d.out and aten::_adaptive_avg_pool2d.out: window means
// accumulated in double. avg_pool2d's divisor is divisor_override, else the
// window size with padding (count_include_pad) or without; adaptive windows
// are [floor(i * in / out), ceil((i + 1) * in / out)).
#include <algorithm>
#include <optional>

#include "kernels/portable/pooling.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/pool.h"

namespace etr {
namespace {

constexpr int64_t kMaxOutputSize = INT32_MAX;

template <typename T>
void avg_pool_plane(const PoolGeom& g, bool count_include_pad, std::optional<int64_t> divisor,
                    const T* in, T* out) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    int64_t h0 = oh * g.sh - g.ph;
    int64_t h1 = std::min(h0 + g.kh, g.ih + g.ph);
    const int64_t pool_h = h1 - h0;
    h0 = std::max<int64_t>(h0, 0);
    h1 = std::min(h1, g.ih);
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      int64_t w0 = ow * g.sw - g.pw;
      int64_t w1 = std::min(w0 + g.kw, g.iw + g.pw);
      const int64_t pool_size = pool_h * (w1 - w0);
      w0 = std::max<int64_t>(w0, 0);
      w1 = std::min(w1, g.iw);
      if (h0 >= h1 || w0 >= w1) {
        out[oh * g.ow + ow] = T(0);
        continue;
      }
      double sum = 0;
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(in[h * g.iw + w]);
      }
      const int64_t div = divisor.has_value() ? *divisor
                          : count_include_pad ? pool_size
                                              : (h1 - h0) * (w1 - w0);
      out[oh * g.ow + ow] = convert<T>(sum / static_cast<double>(div));
    }
  }
}

template <typename T>
void adaptive_avg_plane(const PoolGeom& g, const T* in, T* out) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const int64_t h0 = (oh * g.ih) / g.oh;
    const int64_t h1 = ((oh + 1) * g.ih + g.oh - 1) / g.oh;
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t w0 = (ow * g.iw) / g.ow;
      const int64_t w1 = ((ow + 1) * g.iw + g.ow - 1) / g.ow;
      double sum = 0;
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(in[h * g.iw + w]);
      }
      out[oh * g.ow + ow] = convert<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
    }
  }
}

// Calls plane(g, in_plane, out_plane) for every N*C plane in self's dtype.
template <typename PlaneFn>
Error for_each_plane(const char* op, const Tensor& self, const PoolGeom& g, Tensor& out,
                     PlaneFn plane) {
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
    for (int64_t p = 0; p < g.planes; ++p) {
      plane(self.const_data_ptr<T>() + p * in_plane, out.data_ptr<T>() + p * out_plane);
    }
  });
  return check_dispatched(op, known, self.dtype());
}

}  // namespace

Error avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                         IntArrayRef stride, IntArrayRef padding, bool, bool,
                         std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out));
  ETR_CHECK_OR_FAIL(!divisor_override.has_value() || *divisor_override != 0, Error::InvalidArgument,
                    "%s: divisor_override must be non-zero", op);
  const int64_t one[1] = {1};
  return check_window(op, kernel_size, stride, padding, IntArrayRef(one, 1));
}

void avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g));
  const int64_t one[1] = {1};
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &g),
                   Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out));
  ETR_KERNEL_TRY(ctx, for_each_plane(op, self, g, out, [&](const auto* in, auto* o) {
                   avg_pool_plane(g, count_include_pad, divisor_override, in, o);
                 }));
}

Error adaptive_avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  IntArrayRef output_size, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out));
  ETR_CHECK_OR_FAIL(output_size.size() == 2, Error::InvalidArgument,
                    "%s: output_size must have 2 entries, got %zu", op, output_size.size());
  return Error::Ok;
}

void adaptive_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g));
  ETR_KERNEL_CHECK(ctx, output_size.size() == 2, Error::Internal,
                   "%s: malformed output_size (prepare refuses it)", op);
  // The sizes may be symbolic (computed by the program), so they are checked here.
  ETR_KERNEL_CHECK(ctx,
                   output_size[0] >= 0 && output_size[1] >= 0 && output_size[0] <= kMaxOutputSize &&
                       output_size[1] <= kMaxOutputSize,
                   Error::InvalidArgument, "%s: output_size [%lld,%lld] out of range", op,
                   static_cast<long long>(output_size[0]), static_cast<long long>(output_size[1]));
  g.oh = output_size[0];
  g.ow = output_size[1];
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out));
  ETR_KERNEL_TRY(ctx, for_each_plane(op, self, g, out, [&](const auto* in, auto* o) {
                   adaptive_avg_plane(g, in, o);
                 }));
}

}  // namespace etr
