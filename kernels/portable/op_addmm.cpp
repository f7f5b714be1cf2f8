// aten::addmm.out: out = beta * self + alpha * (mat1 @ mat2), self
// broadcast to the product's shape. beta == 0 ignores self (NaN and inf
// included), as PyTorch. Integer matrices wrap (util/gemm.h); for them
// beta and alpha are converted to the integer type first (a floating
// scalar truncates, so alpha=0.5 acts as 0, as in PyTorch).
#include <type_traits>

#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/gemm.h"

namespace etr {
namespace {

// Initialises c[m,n] with beta * self broadcast to [m,n] (zeros when beta == 0).
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
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = mul_wrap(beta, s[i * stride[0] + j * stride[1]]);
  }
}

// True when `self` (at most 2-D) broadcasts to [m, n].
bool broadcasts_to(const Tensor& self, int64_t m, int64_t n) {
  const int64_t target[2] = {m, n};
  for (size_t d = 0; d < self.dim(); ++d) {
    const int64_t s = self.size(d);
    const int64_t t = target[2 - self.dim() + d];
    if (s != 1 && s != t) return false;
  }
  return true;
}

}  // namespace

Error addmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat1,
                    const Tensor& mat2, Scalar, Scalar, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_matmul_operands(op, mat1, mat2, out));
  ETR_RETURN_IF_ERROR(check_dtype(op, "self", self, out.dtype()));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 0, 2));
  ETR_RETURN_IF_ERROR(check_rank(op, "mat1", mat1, 2));
  return check_rank(op, "mat2", mat2, 2);
}

void addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
               Scalar beta, Scalar alpha, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, out.dtype(), {&self, &mat1, &mat2}));
  ETR_KERNEL_CHECK(ctx, mat1.size(1) == mat2.size(0), Error::InvalidArgument,
                   "%s: inner dims differ: %s x %s", op, ShapeText(mat1).c_str(),
                   ShapeText(mat2).c_str());
  const int64_t sizes[2] = {mat1.size(0), mat2.size(1)};
  ETR_KERNEL_CHECK(ctx, broadcasts_to(self, sizes[0], sizes[1]), Error::InvalidArgument,
                   "%s: self %s does not broadcast to %s", op, ShapeText(self).c_str(),
                   ShapeText(Span<const int64_t>(sizes, 2)).c_str());
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 2)));
  const bool known = dispatch_real(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.data_ptr<T>();
    T b, a;
    if constexpr (std::is_integral<T>::value) {
      b = scalar_to<T>(beta);
      a = scalar_to<T>(alpha);
    } else {
      b = convert<T>(beta.to_double());
      a = convert<T>(alpha.to_double());
    }
    init_with_bias(self, b, c, sizes[0], sizes[1]);
    gemm_acc(mat1.const_data_ptr<T>(), mat2.const_data_ptr<T>(), c, sizes[0], mat1.size(1),
             sizes[1], a);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
