// Whole-tensor copies and dtype conversion: clone, _clone_dim_order,
// alias_copy, detach_copy, lift_fresh_copy (same dtype, bytes moved, any
// dtype), copy / copy_ (src broadcast to self and converted), _to_copy and
// _to_dim_order_copy (converted to out's dtype). Each reads through the
// source's strides and writes through the destination's, so any dim order
// works on either side (this is how clone and the dim-order ops change
// layout). Conversions use convert<To> (util/convert.h: floating to integer
// as PyTorch on x86-64). Prepare steps check the dtypes and the constant
// memory_format / dim_order arguments; run() resizes and copies.
// Parameters follow the ATen schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_clone.cpp
// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
void clone_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> memory_format,
               Tensor& out);
Error clone_prepare(KernelPrepareContext& ctx, const Tensor& self,
                    std::optional<int64_t> memory_format, Tensor& out);
// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False,
//   int[]? dim_order=None, Tensor(a!) out)
void clone_dim_order_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                         std::optional<IntArrayRef> dim_order, Tensor& out);
Error clone_dim_order_prepare(KernelPrepareContext& ctx, const Tensor& self, bool non_blocking,
                              std::optional<IntArrayRef> dim_order, Tensor& out);
// aten::alias_copy.out / detach_copy.out / lift_fresh_copy.out(Tensor self, *, Tensor(a!) out)
void alias_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void detach_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void lift_fresh_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// Their prepare: out has self's dtype.
Error same_dtype_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// ---- op_copy.cpp: src of self's dtype is copied bytewise (any dtype);
// otherwise both must be real or bool.
// aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
void copy_out(KernelContext& ctx, const Tensor& self, const Tensor& src, bool non_blocking,
              Tensor& out);
Error copy_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& src,
                   bool non_blocking, Tensor& out);
// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
void copy_inplace(KernelContext& ctx, Tensor& self, const Tensor& src, bool non_blocking);
Error copy_inplace_prepare(KernelPrepareContext& ctx, Tensor& self, const Tensor& src,
                           bool non_blocking);

// ---- op_to_copy.cpp
// aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//                    Tensor(a!) out)
void to_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                 std::optional<int64_t> memory_format, Tensor& out);
Error to_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, bool non_blocking,
                      std::optional<int64_t> memory_format, Tensor& out);
// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False,
//                                       int[]? dim_order=None, Tensor(a!) out)
void to_dim_order_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                           std::optional<IntArrayRef> dim_order, Tensor& out);
Error to_dim_order_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, bool non_blocking,
                                std::optional<IntArrayRef> dim_order, Tensor& out);

// Shared by the prepare steps above (op_clone.cpp): `memory_format` is
// absent or one of contiguous (0), preserve (1), channels_last (2),
// channels_last_3d (3) (out's own dim order decides the layout); a given
// `dim_order` equals out's.
Error check_memory_format(const char* op, std::optional<int64_t> memory_format);
Error check_dim_order(const char* op, std::optional<IntArrayRef> dim_order, const Tensor& out);

// ---- op_complex.cpp
// aten::_conj_physical.out(Tensor self, *, Tensor(a!) out): complex elements conjugated,
// other dtypes copied.
void conj_physical_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error conj_physical_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// ---- op_et_copy.cpp: host<->device copies; tensors live in host memory here, so
// both copy self into out (same dtype).
// et_copy::_h2d_copy.out(Tensor self, *, Tensor(a!) out)
void h2d_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// et_copy::_d2h_copy.out(Tensor self, *, Tensor(a!) out)
void d2h_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// The prepare of both: out has self's dtype and rank.
Error device_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// Complex dtypes _to_copy / _to_dim_order_copy copy into their own dtype.
inline constexpr DtypeSet kComplexCopyTypes =
    DtypeSet::of(ScalarType::ComplexHalf, ScalarType::ComplexFloat, ScalarType::ComplexDouble);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kCopyKernels[] = {
    make_kernel<&clone_out, &clone_prepare>("aten::clone.out", kAllTypes),
    make_kernel<&clone_dim_order_out, &clone_dim_order_prepare>(
        "dim_order_ops::_clone_dim_order.out", kAllTypes),
    make_kernel<&alias_copy_out, &same_dtype_copy_prepare>("aten::alias_copy.out", kAllTypes),
    make_kernel<&detach_copy_out, &same_dtype_copy_prepare>("aten::detach_copy.out", kAllTypes),
    make_kernel<&lift_fresh_copy_out, &same_dtype_copy_prepare>("aten::lift_fresh_copy.out",
                                                                kAllTypes),
    make_kernel<&copy_out, &copy_prepare>("aten::copy.out", kAllTypes),
    make_kernel<&copy_inplace, &copy_inplace_prepare>("aten::copy_", kAllTypes),
    make_kernel<&to_copy_out, &to_copy_prepare>("aten::_to_copy.out",
                                                kRealAndBoolTypes | kComplexCopyTypes),
    make_kernel<&to_dim_order_copy_out, &to_dim_order_copy_prepare>(
        "dim_order_ops::_to_dim_order_copy.out", kRealAndBoolTypes | kComplexCopyTypes),
    make_kernel<&conj_physical_out, &conj_physical_prepare>(
        "aten::_conj_physical.out",
        kRealAndBoolTypes | DtypeSet::of(ScalarType::ComplexFloat, ScalarType::ComplexDouble)),
    make_kernel<&h2d_copy_out, &device_copy_prepare>("et_copy::_h2d_copy.out", kAllTypes),
    make_kernel<&d2h_copy_out, &device_copy_prepare>("et_copy::_d2h_copy.out", kAllTypes),
};

}  // namespace etr
