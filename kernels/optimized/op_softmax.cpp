// aten::_softmax.out / _log_softmax.out over the last dim of a
// default-layout Float tensor: per row max, exp(x - max) with its sum, then
// a division (softmax) or x - max - log(sum) (log_softmax). Rows run on the
// thread pool.
#include <cmath>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/normalization.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

constexpr size_t kGrainElements = 65536;

template <bool kLog>
void softmax_rows(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const int64_t cols = self.size(self.dim() - 1);
  if (cols == 0 || self.numel() == 0) return;
  const size_t n = static_cast<size_t>(cols);
  const size_t rows = static_cast<size_t>(self.numel() / cols);
  const float* x = self.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  const size_t grain = n >= kGrainElements ? 1 : kGrainElements / n;
  parallel_for(ctx.thread_pool(), rows, grain, [&](size_t begin, size_t end) {
    opt::BinaryParams sub;
    sub.kind = opt::BinaryKind::kSub;
    opt::BinaryParams div;
    div.kind = opt::BinaryKind::kDiv;
    for (size_t r = begin; r < end; ++r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      const float m = opt::max(xr, n);
      const float sum = opt::exp_shift_sum(xr, m, yr, n);
      if (kLog) {
        const float log_sum = static_cast<float>(std::log(static_cast<double>(sum)));
        opt::binary(sub, xr, 1, &m, 0, yr, n);
        opt::binary(sub, yr, 1, &log_sum, 0, yr, n);
      } else {
        opt::binary(div, yr, 1, &sum, 0, yr, n);
      }
    }
  });
}

}  // namespace

Error opt_softmax_prepare(KernelPrepareContext&, const Tensor& self, int64_t dim,
                          bool half_to_float, Tensor& out) {
  const int64_t rank = static_cast<int64_t>(self.dim());
  const bool last_dim = rank >= 1 && (dim == -1 || dim == rank - 1);
  if (half_to_float || !last_dim || self.dtype() != ScalarType::Float ||
      out.dtype() != ScalarType::Float || !opt::has_default_dim_order(self) ||
      !opt::has_default_dim_order(out)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_softmax_out(KernelContext& ctx, const Tensor& self, int64_t, bool, Tensor& out) {
  softmax_rows<false>(ctx, self, out);
}

void opt_log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t, bool, Tensor& out) {
  softmax_rows<true>(ctx, self, out);
}

}  // namespace etr
