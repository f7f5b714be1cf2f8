// p-norm distances between rows: aten::_cdist_forward.out (every row of x1
// [*, P, M] against every row of x2 [*, R, M], batch dims broadcast, out
// [*, P, R]) and aten::_pdist_forward.out (every pair i < j of self's rows,
// [N, M] -> [N * (N - 1) / 2], in row-major order of (i, j)). p = 0 counts
// the differing coordinates, p = inf takes the largest difference, other p
// give (sum |x - y|^p)^(1/p). Float and Double, accumulated in that type.
// cdist's compute_mode only selects PyTorch's matmul shortcut for p = 2;
// the distances are computed directly here (equal up to rounding).
#include <cmath>
#include <cstdint>

#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

// The distance between a[0..m) and b[0..m) read with element strides sa, sb.
template <typename T>
T distance(const T* a, int64_t sa, const T* b, int64_t sb, int64_t m, double p) {
  T acc = 0;
  if (p == 0.0) {
    for (int64_t k = 0; k < m; ++k) acc += a[k * sa] != b[k * sb] ? T(1) : T(0);
    return acc;
  }
  if (std::isinf(p)) {
    for (int64_t k = 0; k < m; ++k) acc = std::fmax(acc, std::abs(a[k * sa] - b[k * sb]));
    return acc;
  }
  if (p == 1.0) {
    for (int64_t k = 0; k < m; ++k) acc += std::abs(a[k * sa] - b[k * sb]);
    return acc;
  }
  if (p == 2.0) {
    for (int64_t k = 0; k < m; ++k) {
      const T d = a[k * sa] - b[k * sb];
      acc += d * d;
    }
    return std::sqrt(acc);
  }
  const T tp = static_cast<T>(p);
  for (int64_t k = 0; k < m; ++k) acc += std::pow(std::abs(a[k * sa] - b[k * sb]), tp);
  return std::pow(acc, T(1) / tp);
}

Error check_p(const char* op, double p) {
  ETR_CHECK_OR_FAIL(p >= 0.0, Error::InvalidArgument, "%s: p must be a non-negative number, got %g",
                    op, p);
  return Error::Ok;
}

// The stride of batch dim b (of nb) of t, whose leading t.dim() - 2 dims are
// its batch dims, right-aligned; 0 where t lacks the dim or broadcasts it.
int64_t batch_stride(const Tensor& t, size_t b, size_t nb) {
  const size_t tb = t.dim() - 2;
  if (b + tb < nb) return 0;
  const size_t d = b + tb - nb;
  return t.size(d) == 1 ? 0 : t.stride(d);
}

template <typename T>
void cdist_compute(const Tensor& x1, const Tensor& x2, double p, Tensor& out) {
  const size_t nb = out.dim() - 2;
  const int64_t rows1 = out.size(nb);
  const int64_t rows2 = out.size(nb + 1);
  const int64_t m = x1.size(x1.dim() - 1);
  int64_t batches = 1;
  for (size_t b = 0; b < nb; ++b) batches *= out.size(b);
  const T* a = x1.const_data_ptr<T>();
  const T* c = x2.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  const int64_t r1 = x1.stride(x1.dim() - 2), k1 = x1.stride(x1.dim() - 1);
  const int64_t r2 = x2.stride(x2.dim() - 2), k2 = x2.stride(x2.dim() - 1);
  const int64_t oi = out.stride(nb), oj = out.stride(nb + 1);
  for (int64_t flat = 0; flat < batches; ++flat) {
    int64_t off1 = 0, off2 = 0, offo = 0;
    int64_t rest = flat;
    for (size_t b = nb; b-- > 0;) {
      const int64_t i = rest % out.size(b);
      rest /= out.size(b);
      off1 += i * batch_stride(x1, b, nb);
      off2 += i * batch_stride(x2, b, nb);
      offo += i * out.stride(b);
    }
    for (int64_t i = 0; i < rows1; ++i) {
      for (int64_t j = 0; j < rows2; ++j) {
        o[offo + i * oi + j * oj] = distance(a + off1 + i * r1, k1, c + off2 + j * r2, k2, m, p);
      }
    }
  }
}

}  // namespace

Error cdist_forward_prepare(KernelPrepareContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                            std::optional<int64_t> compute_mode, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "x1", x1.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "x2", x2, x1.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, x1.dtype()));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "x1", x1, 2, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "x2", x2, 2, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, x1.dim() > x2.dim() ? x1.dim() : x2.dim()));
  ETR_RETURN_IF_ERROR(check_p(op, p));
  ETR_CHECK_OR_FAIL(!compute_mode.has_value() || (*compute_mode >= 0 && *compute_mode <= 2),
                    Error::InvalidArgument, "%s: compute_mode must be None, 0, 1 or 2, got %lld",
                    op, static_cast<long long>(compute_mode.value_or(0)));
  return Error::Ok;
}

void cdist_forward_out(KernelContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                       std::optional<int64_t>, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, x1.dtype(), {&x2, &out}));
  const size_t rank = out.dim();
  ETR_KERNEL_CHECK(
      ctx, x1.dim() >= 2 && x2.dim() >= 2 && rank == (x1.dim() > x2.dim() ? x1.dim() : x2.dim()),
      Error::Internal, "%s: ranks not prepared", op);
  ETR_KERNEL_CHECK(ctx, x1.size(x1.dim() - 1) == x2.size(x2.dim() - 1), Error::InvalidArgument,
                   "%s: x1 %s and x2 %s must have the same number of columns", op,
                   ShapeText(x1).c_str(), ShapeText(x2).c_str());
  const size_t nb = rank - 2;
  int64_t sizes[kTensorMaxDim];
  for (size_t b = 0; b < nb; ++b) {
    const int64_t s1 = b + x1.dim() < rank ? 1 : x1.size(b + x1.dim() - rank);
    const int64_t s2 = b + x2.dim() < rank ? 1 : x2.size(b + x2.dim() - rank);
    ETR_KERNEL_CHECK(ctx, s1 == s2 || s1 == 1 || s2 == 1, Error::InvalidArgument,
                     "%s: batch dims of x1 %s and x2 %s do not broadcast", op,
                     ShapeText(x1).c_str(), ShapeText(x2).c_str());
    sizes[b] = s1 == 1 ? s2 : s1;
  }
  sizes[nb] = x1.size(x1.dim() - 2);
  sizes[nb + 1] = x2.size(x2.dim() - 2);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, rank)));
  if (out.numel() == 0) return;
  const bool known = dispatch_floating(
      x1.dtype(), [&](auto tag) { cdist_compute<typename decltype(tag)::type>(x1, x2, p, out); });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, x1.dtype()));
}

Error pdist_forward_prepare(KernelPrepareContext& ctx, const Tensor& self, double p, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "self", self, 2));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 1));
  return check_p(op, p);
}

void pdist_forward_out(KernelContext& ctx, const Tensor& self, double p, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_CHECK(ctx, self.dim() == 2 && out.dim() == 1, Error::Internal,
                   "%s: ranks not prepared", op);
  const int64_t n = self.size(0);
  const int64_t m = self.size(1);
  // n < 2^31, so n * (n - 1) / 2 fits.
  const int64_t sizes[1] = {n < 2 ? 0 : n * (n - 1) / 2};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, 1)));
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = self.const_data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t rs = self.stride(0), cs = self.stride(1), os = out.stride(0);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) {
        o[os * k++] = distance(x + i * rs, cs, x + j * rs, cs, m, p);
      }
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
}

}  // namespace etr
