// Complex-dtype kernels: aten::view_as_real_copy.out (each complex element
// as its (real, imaginary) pair along a new last dim) and
// aten::_conj_physical.out (the imaginary part negated; a plain copy for
// real and bool dtypes, as in PyTorch). ComplexFloat stores two floats and
// ComplexDouble two doubles per element. ComplexHalf is not supported.
#include <cstdint>

#include "kernels/portable/copy.h"
#include "kernels/portable/shape.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

constexpr DtypeSet kComplexTypes =
    DtypeSet::of(ScalarType::ComplexFloat, ScalarType::ComplexDouble);

// The real dtype of a ComplexFloat/ComplexDouble element's parts.
ScalarType real_part_type(ScalarType t) {
  return t == ScalarType::ComplexDouble ? ScalarType::Double : ScalarType::Float;
}

template <typename T>
void conj_copy(const Tensor& self, Tensor& out) {
  int64_t strides[2][kTensorMaxDim];
  for (size_t d = 0; d < self.dim(); ++d) {
    strides[0][d] = out.stride(d);
    strides[1][d] = self.stride(d);
  }
  T* o = static_cast<T*>(out.mutable_data());
  const T* s = static_cast<const T*>(self.const_data());
  for_each_offset<2>(self.sizes(), strides, [&](const int64_t* off) {
    o[2 * off[0]] = s[2 * off[1]];
    o[2 * off[0] + 1] = -s[2 * off[1] + 1];
  });
}

}  // namespace

Error view_as_real_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kComplexTypes));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 0, kTensorMaxDim - 1));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, real_part_type(self.dtype())));
  return check_rank(op, "out", out, self.dim() + 1);
}

void view_as_real_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx,
                   kComplexTypes.contains(self.dtype()) && out.dim() == self.dim() + 1 &&
                       out.dtype() == real_part_type(self.dtype()),
                   Error::Internal, "%s: dtypes or ranks not prepared", op);
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d < self.dim(); ++d) sizes[d] = self.size(d);
  sizes[self.dim()] = 2;
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, self.dim() + 1)));
  CopyPlan plan;
  for (size_t d = 0; d < self.dim(); ++d) plan.add(sizes[d], out.stride(d), 2 * self.stride(d));
  plan.add(2, out.stride(self.dim()), 1);
  run_copy(plan, out.mutable_data(), self.const_data(), out.element_size());
}

Error conj_physical_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return check_dtype(ctx.op_name(), "out", out, self.dtype());
}

void conj_physical_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, self.sizes()));
  if (self.dtype() == ScalarType::ComplexFloat) {
    conj_copy<float>(self, out);
  } else if (self.dtype() == ScalarType::ComplexDouble) {
    conj_copy<double>(self, out);
  } else {
    copy_same_shape(out, self);
  }
}

}  // namespace etr
