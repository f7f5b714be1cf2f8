// aten::linear.out: out[..., n] = input[..., k] @ weight[n, k]^T (+ bias),
// integer (wrapping, see util/gemm.h), float or double in the default dim
// order.
#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/gemm.h"
#include "kernels/portable/util/shape_rules.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// y[m,n] += x[m,k] @ w[n,k]^T. With scratch for w^T the product runs in
// i-k-j order; without, it falls back to row dot products.
template <typename T>
void linear_acc(KernelContext& ctx, const T* x, const T* w, T* y, int64_t m, int64_t k, int64_t n) {
  T* wt = nullptr;
  size_t count = 0;
  size_t bytes = 0;
  if (m > 1 && checked_mul(static_cast<size_t>(k), static_cast<size_t>(n), &count) &&
      checked_mul(count, sizeof(T), &bytes)) {
    wt = static_cast<T*>(ctx.allocate_temp(bytes, alignof(T)));
  }
  if (wt != nullptr) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p) wt[p * n + j] = w[j * k + p];
    }
    gemm_acc(x, wt, y, m, k, n, T(1));
    return;
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      y[i * n + j] = add_wrap(y[i * n + j], dot_acc(x + i * k, w + j * k, k));
    }
  }
}

// y[m, n] = bias (broadcast; one element or n) or zeros.
template <typename T>
void init_rows(const Tensor* bias, T* y, int64_t m, int64_t n) {
  if (bias == nullptr) {
    zero_fill(y, m * n);
    return;
  }
  const T* b = bias->const_data_ptr<T>();
  const int64_t bstride = bias->numel() == 1 ? 0 : 1;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = b[j * bstride];
  }
}

}  // namespace

Error linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_matmul_operands(op, input, weight, out));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", input, 1, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, 2));
  if (bias == nullptr) return Error::Ok;
  ETR_RETURN_IF_ERROR(check_dtype(op, "bias", *bias, out.dtype()));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "bias", *bias));
  return check_rank_in(op, "bias", *bias, 0, 1);
}

void linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor* bias,
                Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, out.dtype(), {&input, &weight, bias}));
  const size_t r = input.dim();
  const int64_t k = input.size(r - 1);
  const int64_t n = weight.size(0);
  ETR_KERNEL_TRY(ctx, linear_resize_output(op, input, weight, bias, out));
  const int64_t m = k == 0 ? out.numel() / (n == 0 ? 1 : n) : input.numel() / k;
  const bool known = dispatch_real(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.data_ptr<T>();
    init_rows(bias, y, m, n);
    linear_acc(ctx, input.const_data_ptr<T>(), weight.const_data_ptr<T>(), y, m, k, n);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
