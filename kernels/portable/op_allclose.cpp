// aten::allclose.out (the official custom_ops.yaml op): writes into a
// one-element Bool out whether every broadcast pair of elements is close,
// as torch.allclose: a == b, or both NaN with equal_nan, or
// |a - b| <= atol + |rtol * b| with a finite |a - b|, computed in the
// inputs' floating dtype (integers and bool are converted to Float first).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/comparison.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

template <typename T>
bool is_close(T a, T b, double rtol, double atol, bool equal_nan) {
  if (a == b) return true;
  if constexpr (std::is_floating_point<T>::value) {
    if (equal_nan && std::isnan(a) && std::isnan(b)) return true;
  }
  if (rtol == 0.0 && atol == 0.0) return false;
  using CT = std::conditional_t<std::is_floating_point<T>::value, T, float>;
  const CT fa = convert<CT>(a);
  const CT fb = convert<CT>(b);
  const CT diff = std::abs(fa - fb);
  const CT allowed = convert<CT>(atol) + std::abs(convert<CT>(rtol) * fb);
  return std::isfinite(diff) && diff <= allowed;
}

template <typename T>
bool all_close(const Tensor& self, const Tensor& other, Span<const int32_t> sizes, double rtol,
               double atol, bool equal_nan) {
  int64_t strides[2][kTensorMaxDim];
  broadcast_strides(self, sizes, strides[0]);
  broadcast_strides(other, sizes, strides[1]);
  const T* a = self.const_data_ptr<T>();
  const T* b = other.const_data_ptr<T>();
  bool all = true;
  for_each_offset<2>(sizes, strides, [&](const int64_t* off) {
    if (all && !is_close(read_elem(a, off[0]), read_elem(b, off[1]), rtol, atol, equal_nan))
      all = false;
  });
  return all;
}

}  // namespace

Error allclose_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, double,
                       double, bool, bool, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype(op, "other", other, self.dtype()));
  return check_dtype(op, "out", out, ScalarType::Bool);
}

void allclose_out(KernelContext& ctx, const Tensor& self, const Tensor& other, double rtol,
                  double atol, bool equal_nan, bool /*dummy_param*/, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&other}));
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Bool, {&out}));
  ETR_KERNEL_CHECK(ctx, out.numel() == 1, Error::InvalidArgument,
                   "%s: out must have one element, got %s", op, ShapeText(out).c_str());
  const Tensor* ins[] = {&self, &other};
  int64_t sizes64[kTensorMaxDim];
  size_t dim = 0;
  ETR_KERNEL_CHECK(ctx, broadcast_sizes(ins, sizes64, &dim), Error::InvalidArgument,
                   "%s: cannot broadcast %s with %s", op, ShapeText(self).c_str(),
                   ShapeText(other).c_str());
  int32_t sizes[kTensorMaxDim];
  for (size_t d = 0; d < dim; ++d) sizes[d] = static_cast<int32_t>(sizes64[d]);
  bool result = true;
  const bool known = dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    result = all_close<typename decltype(tag)::type>(self, other, Span<const int32_t>(sizes, dim),
                                                     rtol, atol, equal_nan);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
  *static_cast<uint8_t*>(out.mutable_data()) = result ? 1 : 0;
}

}  // namespace etr
