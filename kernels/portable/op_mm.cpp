// Matrix products: aten::mm.out, aten::bmm.out, aten::addmm.out, aten::linear.out.
//
// All four reduce to "C += A @ B" on row-major matrices, computed in i-k-j
// order so the innermost loop walks a row of B and a row of C contiguously
// (vectorizable, cache friendly). Float and double only.
#include <cstring>

#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// c[m,n] += alpha * a[m,k] @ b[k,n]; all row-major and contiguous.
template <typename T>
void gemm_acc(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, T alpha) {
  for (int64_t i = 0; i < m; ++i) {
    T* __restrict crow = c + i * n;
    const T* arow = a + i * k;
    for (int64_t p = 0; p < k; ++p) {
      const T av = alpha * arow[p];
      const T* __restrict brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
    }
  }
}

template <typename T>
void zero_fill(T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = T(0);
}

// Validation shared by every product: float dtype, same dtype everywhere,
// default layout. `what` names the op for messages.
bool check_float_operands(KernelContext& ctx, const char* what, const Tensor& a, const Tensor& b,
                          const Tensor& out) {
  const ScalarType t = out.dtype();
  if (t != ScalarType::Float && t != ScalarType::Double) {
    ETR_LOG(Error, "%s: unsupported dtype %s (float and double only)", what, to_string(t));
    ctx.fail(Error::InvalidType);
    return false;
  }
  if (a.dtype() != t || b.dtype() != t) {
    ETR_LOG(Error, "%s: dtypes differ: %s, %s, out %s", what, to_string(a.dtype()),
            to_string(b.dtype()), to_string(t));
    ctx.fail(Error::InvalidType);
    return false;
  }
  if (!is_default_layout(a) || !is_default_layout(b)) {
    ETR_LOG(Error, "%s: inputs must have the default (contiguous) dim order", what);
    ctx.fail(Error::NotSupported);
    return false;
  }
  return true;
}

bool check_out_layout(KernelContext& ctx, const char* what, const Tensor& out) {
  if (!is_default_layout(out)) {
    ETR_LOG(Error, "%s: out must have the default (contiguous) dim order", what);
    ctx.fail(Error::NotSupported);
    return false;
  }
  return true;
}

}  // namespace

void mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  constexpr const char* kOp = "aten::mm.out";
  if (!check_float_operands(ctx, kOp, self, mat2, out)) return;
  ETR_KERNEL_CHECK(ctx, self.dim() == 2 && mat2.dim() == 2, Error::InvalidArgument,
                   "%s: expected 2-D matrices, got %s x %s", kOp, shape_str(self).c_str(),
                   shape_str(mat2).c_str());
  ETR_KERNEL_CHECK(ctx, self.size(1) == mat2.size(0), Error::InvalidArgument,
                   "%s: inner dims differ: %s x %s", kOp, shape_str(self).c_str(),
                   shape_str(mat2).c_str());
  const int64_t sizes[2] = {self.size(0), mat2.size(1)};
  ETR_KERNEL_CHECK_OK(ctx, resize_to(out, sizes, 2), "%s: cannot resize out to %s", kOp,
                      shape_str(Span<const int64_t>(sizes, 2)).c_str());
  if (!check_out_layout(ctx, kOp, out)) return;
  dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.data_ptr<T>();
    zero_fill(c, out.numel());
    gemm_acc(self.const_data_ptr<T>(), mat2.const_data_ptr<T>(), c, sizes[0], self.size(1),
             sizes[1], T(1));
  });
}

void bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  constexpr const char* kOp = "aten::bmm.out";
  if (!check_float_operands(ctx, kOp, self, mat2, out)) return;
  ETR_KERNEL_CHECK(ctx, self.dim() == 3 && mat2.dim() == 3, Error::InvalidArgument,
                   "%s: expected 3-D batches, got %s x %s", kOp, shape_str(self).c_str(),
                   shape_str(mat2).c_str());
  ETR_KERNEL_CHECK(ctx, self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1),
                   Error::InvalidArgument, "%s: batch or inner dims differ: %s x %s", kOp,
                   shape_str(self).c_str(), shape_str(mat2).c_str());
  const int64_t sizes[3] = {self.size(0), self.size(1), mat2.size(2)};
  ETR_KERNEL_CHECK_OK(ctx, resize_to(out, sizes, 3), "%s: cannot resize out to %s", kOp,
                      shape_str(Span<const int64_t>(sizes, 3)).c_str());
  if (!check_out_layout(ctx, kOp, out)) return;
  const int64_t m = sizes[1], k = self.size(2), n = sizes[2];
  dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.data_ptr<T>();
    zero_fill(c, out.numel());
    const T* a = self.const_data_ptr<T>();
    const T* b = mat2.const_data_ptr<T>();
    for (int64_t bi = 0; bi < sizes[0]; ++bi) {
      gemm_acc(a + bi * m * k, b + bi * k * n, c + bi * m * n, m, k, n, T(1));
    }
  });
}

namespace {

// Initialises c[m,n] with beta * self broadcast to [m,n] (zeros when beta == 0,
// so NaN/inf in self are ignored as in PyTorch).
template <typename T>
void init_with_bias(const Tensor& self, T beta, T* c, int64_t m, int64_t n) {
  if (beta == T(0)) {
    zero_fill(c, m * n);
    return;
  }
  // Right-aligned broadcast strides of self onto [m, n].
  int64_t stride[2] = {0, 0};
  const size_t r = self.dim();
  for (size_t d = 0; d < r; ++d) {
    const size_t od = 2 - r + d;
    if (self.size(d) != 1) stride[od] = self.stride(d);
  }
  const T* s = self.const_data_ptr<T>();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = beta * s[i * stride[0] + j * stride[1]];
  }
}

// True when `self` broadcasts to [m, n].
bool broadcasts_to(const Tensor& self, int64_t m, int64_t n) {
  if (self.dim() > 2) return false;
  const int64_t target[2] = {m, n};
  for (size_t d = 0; d < self.dim(); ++d) {
    const int64_t s = self.size(d);
    const int64_t t = target[2 - self.dim() + d];
    if (s != 1 && s != t) return false;
  }
  return true;
}

}  // namespace

void addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
               Scalar beta, Scalar alpha, Tensor& out) {
  constexpr const char* kOp = "aten::addmm.out";
  if (!check_float_operands(ctx, kOp, mat1, mat2, out)) return;
  ETR_KERNEL_CHECK(ctx, self.dtype() == out.dtype(), Error::InvalidType,
                   "%s: self dtype %s differs from out dtype %s", kOp, to_string(self.dtype()),
                   to_string(out.dtype()));
  ETR_KERNEL_CHECK(ctx, mat1.dim() == 2 && mat2.dim() == 2, Error::InvalidArgument,
                   "%s: expected 2-D matrices, got %s x %s", kOp, shape_str(mat1).c_str(),
                   shape_str(mat2).c_str());
  ETR_KERNEL_CHECK(ctx, mat1.size(1) == mat2.size(0), Error::InvalidArgument,
                   "%s: inner dims differ: %s x %s", kOp, shape_str(mat1).c_str(),
                   shape_str(mat2).c_str());
  const int64_t sizes[2] = {mat1.size(0), mat2.size(1)};
  ETR_KERNEL_CHECK(ctx, broadcasts_to(self, sizes[0], sizes[1]), Error::InvalidArgument,
                   "%s: self %s does not broadcast to %s", kOp, shape_str(self).c_str(),
                   shape_str(Span<const int64_t>(sizes, 2)).c_str());
  ETR_KERNEL_CHECK_OK(ctx, resize_to(out, sizes, 2), "%s: cannot resize out to %s", kOp,
                      shape_str(Span<const int64_t>(sizes, 2)).c_str());
  if (!check_out_layout(ctx, kOp, out)) return;
  dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.data_ptr<T>();
    init_with_bias(self, convert_value<T>(beta.to_double()), c, sizes[0], sizes[1]);
    gemm_acc(mat1.const_data_ptr<T>(), mat2.const_data_ptr<T>(), c, sizes[0], mat1.size(1),
             sizes[1], convert_value<T>(alpha.to_double()));
  });
}

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
      const T* xr = x + i * k;
      const T* wr = w + j * k;
      T acc = T(0);
      for (int64_t p = 0; p < k; ++p) acc += xr[p] * wr[p];
      y[i * n + j] += acc;
    }
  }
}

}  // namespace

void linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor* bias,
                Tensor& out) {
  constexpr const char* kOp = "aten::linear.out";
  if (!check_float_operands(ctx, kOp, input, weight, out)) return;
  ETR_KERNEL_CHECK(ctx, input.dim() >= 1 && weight.dim() == 2, Error::InvalidArgument,
                   "%s: expected input [*, in] and weight [out, in], got %s and %s", kOp,
                   shape_str(input).c_str(), shape_str(weight).c_str());
  const size_t r = input.dim();
  const int64_t k = input.size(r - 1);
  const int64_t n = weight.size(0);
  ETR_KERNEL_CHECK(ctx, weight.size(1) == k, Error::InvalidArgument,
                   "%s: inner dims differ: input %s, weight %s", kOp, shape_str(input).c_str(),
                   shape_str(weight).c_str());
  if (bias != nullptr) {
    ETR_KERNEL_CHECK(ctx, bias->dtype() == out.dtype() && is_default_layout(*bias),
                     Error::InvalidType, "%s: bias must be contiguous %s", kOp,
                     to_string(out.dtype()));
    ETR_KERNEL_CHECK(ctx, bias->dim() <= 1 && (bias->numel() == n || bias->numel() == 1),
                     Error::InvalidArgument, "%s: bias %s does not match %lld output features", kOp,
                     shape_str(*bias).c_str(), static_cast<long long>(n));
  }
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d + 1 < r; ++d) sizes[d] = input.size(d);
  sizes[r - 1] = n;
  ETR_KERNEL_CHECK_OK(ctx, resize_to(out, sizes, r), "%s: cannot resize out to %s", kOp,
                      shape_str(Span<const int64_t>(sizes, r)).c_str());
  if (!check_out_layout(ctx, kOp, out)) return;
  const int64_t m = k == 0 ? out.numel() / (n == 0 ? 1 : n) : input.numel() / k;
  dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.data_ptr<T>();
    if (bias == nullptr) {
      zero_fill(y, out.numel());
    } else {
      const T* b = bias->const_data_ptr<T>();
      const int64_t bstride = bias->numel() == 1 ? 0 : 1;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) y[i * n + j] = b[j * bstride];
      }
    }
    linear_acc(ctx, input.const_data_ptr<T>(), weight.const_data_ptr<T>(), y, m, k, n);
  });
}

}  // namespace etr
