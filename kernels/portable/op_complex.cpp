// Complex-dtype kernels: aten::complex.out (real and imaginary parts,
// broadcast together, interleaved into complex elements),
// aten::view_as_real_copy.out (each complex element as its (real, imaginary)
// pair along a new last dim) and aten::_conj_physical.out (the imaginary part
// negated; a plain copy for real and bool dtypes, as in PyTorch).
// ComplexHalf, ComplexFloat and ComplexDouble store two Half, Float or Double
// parts per element. complex.out and view_as_real_copy.out only move part
// bytes, so they take all three; _conj_physical.out computes and takes
// ComplexFloat and ComplexDouble.
#include <cstdint>

#include "kernels/portable/copy.h"
#include "kernels/portable/shape.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

constexpr DtypeSet kComplexTypes =
    DtypeSet::of(ScalarType::ComplexHalf, ScalarType::ComplexFloat, ScalarType::ComplexDouble);
// The dtypes of complex parts (torch.complex takes these and no others).
constexpr DtypeSet kComplexPartTypes =
    DtypeSet::of(ScalarType::Half, ScalarType::Float, ScalarType::Double);

// The dtype of a complex element's parts (precondition: t is in kComplexTypes).
ScalarType real_part_type(ScalarType t) {
  switch (t) {
    case ScalarType::ComplexHalf: return ScalarType::Half;
    case ScalarType::ComplexDouble: return ScalarType::Double;
    default: return ScalarType::Float;
  }
}

// The complex dtype whose parts have dtype t (precondition: t is in kComplexPartTypes).
ScalarType complex_type_of(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return ScalarType::ComplexHalf;
    case ScalarType::Double: return ScalarType::ComplexDouble;
    default: return ScalarType::ComplexFloat;
  }
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

Error complex_prepare(KernelPrepareContext& ctx, const Tensor& real, const Tensor& imag,
                      Tensor& out) {
  const char* op = ctx.op_name();
  // PyTorch: "Expected both inputs to be Half, Float or Double tensors", then
  // the second must have the first's dtype and out the matching complex dtype.
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "real", real.dtype(), kComplexPartTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "imag", imag, real.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, complex_type_of(real.dtype())));
  return check_rank(op, "out", out, real.dim() > imag.dim() ? real.dim() : imag.dim());
}

void complex_out(KernelContext& ctx, const Tensor& real, const Tensor& imag, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx,
                   kComplexPartTypes.contains(real.dtype()) && imag.dtype() == real.dtype() &&
                       out.dtype() == complex_type_of(real.dtype()),
                   Error::Internal, "%s: dtypes not prepared", op);
  const Tensor* ins[] = {&real, &imag};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(op, out, ins));
  if (out.numel() == 0) return;
  // out read as parts: element i's real part is part 2 * i, its imaginary part 2 * i + 1.
  int64_t real_strides[kTensorMaxDim];
  int64_t imag_strides[kTensorMaxDim];
  broadcast_strides(real, out.sizes(), real_strides);
  broadcast_strides(imag, out.sizes(), imag_strides);
  CopyPlan real_plan;
  CopyPlan imag_plan;
  for (size_t d = 0; d < out.dim(); ++d) {
    real_plan.add(out.size(d), 2 * out.stride(d), real_strides[d]);
    imag_plan.add(out.size(d), 2 * out.stride(d), imag_strides[d]);
  }
  const size_t part = element_size(real.dtype());
  uint8_t* o = static_cast<uint8_t*>(out.mutable_data());
  run_copy(real_plan, o, real.const_data(), part);
  run_copy(imag_plan, o + part, imag.const_data(), part);
}

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
