// aten::_softmax.out / _log_softmax.out over the last dim of a
// default-layout Float tensor: per row max, exp(x - max) with its sum, then
// a product by 1 / sum (softmax) or x - max - log(sum) (log_softmax). Rows run on the
// thread pool. etr::safe_softmax.fused (fusion_rules.cpp) is the softmax
// with rows that are -inf throughout written as zeros.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/normalization.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// Elements per chunk of rows (exp at ~0.5 ns per element on Zen 4: ~4 us of
// work): the decoder's [4, 64, 64] scores split over 2 threads.
constexpr size_t kGrainElements = 8192;

enum class Flavor { kSoftmax, kLogSoftmax, kSafeSoftmax };

template <Flavor kFlavor>
void softmax_rows(KernelContext& ctx, const Tensor& self, Tensor& out) {
  constexpr bool kLog = kFlavor == Flavor::kLogSoftmax;
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
    for (size_t r = begin; r < end; ++r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      const float m = opt::max(xr, n);
      if (kFlavor == Flavor::kSafeSoftmax && m == -std::numeric_limits<float>::infinity()) {
        // Every element is -inf (a NaN would have made m NaN): a masked row.
        std::memset(yr, 0, n * sizeof(float));
        continue;
      }
      // m is the row's max (or NaN): every exp argument is <= 0 or NaN.
      const float sum = opt::exp_shift_sum_nonpositive(xr, m, yr, n);
      if (kLog) {
        const float log_sum = static_cast<float>(std::log(static_cast<double>(sum)));
        opt::binary(sub, xr, 1, &m, 0, yr, n);
        opt::binary(sub, yr, 1, &log_sum, 0, yr, n);
      } else {
        // One reciprocal and a product per element (within 1 ulp of the
        // division).
        opt::affine(yr, 1.0f / sum, 0.0f, yr, n);
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
  softmax_rows<Flavor::kSoftmax>(ctx, self, out);
}

void opt_log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t, bool, Tensor& out) {
  softmax_rows<Flavor::kLogSoftmax>(ctx, self, out);
}

Error opt_safe_softmax_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                               bool half_to_float, int64_t any_dim, Tensor&, Tensor& out) {
  // The any() must reduce the softmax's dim: the last one.
  const int64_t rank = static_cast<int64_t>(self.dim());
  if (!(any_dim == -1 || any_dim == rank - 1)) return Error::NotSupported;
  return opt_softmax_prepare(ctx, self, dim, half_to_float, out);
}

void opt_safe_softmax_out(KernelContext& ctx, const Tensor& self, int64_t, bool, int64_t,
                          Tensor& scratch, Tensor& out) {
  // Rows run in place when out is self; a partial overlap (a memory plan
  // that put the result across x, dead after the chain's eq) goes through
  // the softmax's own output, which the loader checked is apart from x.
  if (!opt::share_memory(out, self) || out.const_data() == self.const_data()) {
    softmax_rows<Flavor::kSafeSoftmax>(ctx, self, out);
    return;
  }
  softmax_rows<Flavor::kSafeSoftmax>(ctx, self, scratch);
  if (ctx.failure_state() != Error::Ok) return;
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  std::memmove(out.mutable_data(), scratch.const_data(), out.nbytes());
}

Error opt_softmax_guard_prepare(KernelPrepareContext&, const Tensor& x, const Tensor& s,
                                int64_t any_dim, Tensor& out) {
  const int64_t rank = static_cast<int64_t>(x.dim());
  if (rank < 1 || !(any_dim == -1 || any_dim == rank - 1) || x.dtype() != ScalarType::Float ||
      s.dtype() != ScalarType::Float || out.dtype() != ScalarType::Float ||
      !opt::has_default_dim_order(x) || !opt::has_default_dim_order(s) ||
      !opt::has_default_dim_order(out)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_softmax_guard_out(KernelContext& ctx, const Tensor& x, const Tensor& s, int64_t,
                           Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx, x.dim() == s.dim(), Error::InvalidArgument,
                   "%s: scores and softmax have %zu and %zu dims", op, x.dim(), s.dim());
  for (size_t d = 0; d < x.dim(); ++d) {
    ETR_KERNEL_CHECK(ctx, x.size(d) == s.size(d), Error::InvalidArgument,
                     "%s: scores and softmax differ in dim %zu (%lld vs %lld)", op, d,
                     static_cast<long long>(x.size(d)), static_cast<long long>(s.size(d)));
  }
  ETR_KERNEL_TRY(ctx, resize_output(op, out, s.sizes()));
  const int64_t cols = x.size(x.dim() - 1);
  if (s.numel() == 0 || cols == 0) return;
  const size_t n = static_cast<size_t>(cols);
  const size_t rows = static_cast<size_t>(s.numel() / cols);
  const float* xp = x.const_data_ptr<float>();
  const float* sp = s.const_data_ptr<float>();
  float* yp = out.data_ptr<float>();
  // Row r of x is read before row r of the result is written. The memory
  // plan may put the result over x (dead after the eq), never over s (read
  // by the where): rows then run towards the side where the result starts,
  // so no row of x is overwritten before it was read.
  const bool backwards = reinterpret_cast<uintptr_t>(yp) > reinterpret_cast<uintptr_t>(xp);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < rows; ++i) {
    const size_t r = backwards ? rows - 1 - i : i;
    const float* xr = xp + r * n;
    size_t j = 0;
    while (j < n && xr[j] == neg_inf) ++j;
    if (j == n) {
      std::memset(yp + r * n, 0, n * sizeof(float));
    } else if (yp != sp) {
      std::memmove(yp + r * n, sp + r * n, n * sizeof(float));
    }
  }
}

}  // namespace etr
