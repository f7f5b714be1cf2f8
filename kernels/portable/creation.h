// Creation ops: full, full_like, zeros, ones, scalar_tensor, fill (the
// value converted to out's dtype with convert<T>), and arange. Prepare
// steps check out's rank against the requested one (size lists may hold
// symbolic sizes, so only their length is fixed at load), full_like's
// memory_format and arange's step; run() resizes out with resize_output and
// fills it. Parameters follow the ATen schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_full.cpp
// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
void full_out(KernelContext& ctx, IntArrayRef size, Scalar fill_value, Tensor& out);
Error full_prepare(KernelPrepareContext& ctx, IntArrayRef size, Scalar fill_value, Tensor& out);
// aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
//                     Tensor(a!) out)
void full_like_out(KernelContext& ctx, const Tensor& self, Scalar fill_value,
                   std::optional<int64_t> memory_format, Tensor& out);
Error full_like_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar fill_value,
                        std::optional<int64_t> memory_format, Tensor& out);
// aten::zeros.out(SymInt[] size, *, Tensor(a!) out)
void zeros_out(KernelContext& ctx, IntArrayRef size, Tensor& out);
// aten::ones.out(SymInt[] size, *, Tensor(a!) out)
void ones_out(KernelContext& ctx, IntArrayRef size, Tensor& out);
// The prepare of zeros and ones.
Error sized_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out);
// aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out)
void scalar_tensor_out(KernelContext& ctx, Scalar s, Tensor& out);
Error scalar_tensor_prepare(KernelPrepareContext& ctx, Scalar s, Tensor& out);
// aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
void fill_scalar_out(KernelContext& ctx, const Tensor& self, Scalar value, Tensor& out);
Error fill_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar value, Tensor& out);
// aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out): value
// is 0-d (any dtype, converted); out has self's dtype.
void fill_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& value, Tensor& out);
Error fill_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& value,
                          Tensor& out);

// ---- op_arange.cpp: out[i] = start + i * step for i in
// [0, ceil((end - start) / step)); exact int64 arithmetic for integer
// arguments, double otherwise. Out is 1-D with a real dtype; step is
// nonzero (checked at load). start and end may be symbolic, so their checks
// (finite, consistent with step's sign) stay in run().
// aten::arange.out(Scalar end, *, Tensor(a!) out)
void arange_out(KernelContext& ctx, Scalar end, Tensor& out);
Error arange_prepare(KernelPrepareContext& ctx, Scalar end, Tensor& out);
// aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
void arange_start_out(KernelContext& ctx, Scalar start, Scalar end, Scalar step, Tensor& out);
Error arange_start_prepare(KernelPrepareContext& ctx, Scalar start, Scalar end, Scalar step,
                           Tensor& out);

// ---- op_empty.cpp: out resized to `size`, elements left as they are.
// aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
void empty_out(KernelContext& ctx, IntArrayRef size, std::optional<int64_t> memory_format,
               Tensor& out);
Error empty_prepare(KernelPrepareContext& ctx, IntArrayRef size,
                    std::optional<int64_t> memory_format, Tensor& out);
// dim_order_ops::_empty_dim_order.out(int[] size, *, int[]? dim_order=None, Tensor(a!) out)
void empty_dim_order_out(KernelContext& ctx, IntArrayRef size, std::optional<IntArrayRef> dim_order,
                         Tensor& out);
Error empty_dim_order_prepare(KernelPrepareContext& ctx, IntArrayRef size,
                              std::optional<IntArrayRef> dim_order, Tensor& out);

// ---- op_rand.cpp: Float/Double outs from a per-instruction SplitMix64
// stream (not PyTorch's generator: same distribution, other numbers).
// aten::rand.out(SymInt[] size, *, Tensor(a!) out): uniform on [0, 1)
void rand_out(KernelContext& ctx, IntArrayRef size, Tensor& out);
Error rand_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out);
// aten::randn.out(SymInt[] size, *, Tensor(a!) out): standard normal
void randn_out(KernelContext& ctx, IntArrayRef size, Tensor& out);
Error randn_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out);
// Seeds the streams of rand/randn instructions prepared from now on: the
// k-th one prepared after this call draws from a stream keyed by (seed, k).
// Not synchronized with concurrent method loads.
void seed_portable_random(uint64_t seed);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kCreationKernels[] = {
    make_kernel<&full_out, &full_prepare>("aten::full.out", kRealAndBoolTypes),
    make_kernel<&full_like_out, &full_like_prepare>("aten::full_like.out", kRealAndBoolTypes),
    make_kernel<&zeros_out, &sized_prepare>("aten::zeros.out", kRealAndBoolTypes),
    make_kernel<&ones_out, &sized_prepare>("aten::ones.out", kRealAndBoolTypes),
    make_kernel<&scalar_tensor_out, &scalar_tensor_prepare>("aten::scalar_tensor.out",
                                                            kRealAndBoolTypes),
    make_kernel<&fill_scalar_out, &fill_scalar_prepare>("aten::fill.Scalar_out", kRealAndBoolTypes),
    make_kernel<&fill_tensor_out, &fill_tensor_prepare>("aten::fill.Tensor_out", kRealAndBoolTypes),
    make_kernel<&arange_out, &arange_prepare>("aten::arange.out", kRealTypes),
    make_kernel<&arange_start_out, &arange_start_prepare>("aten::arange.start_out", kRealTypes),
    make_kernel<&empty_out, &empty_prepare>("aten::empty.out", kAllTypes),
    make_kernel<&empty_dim_order_out, &empty_dim_order_prepare>(
        "dim_order_ops::_empty_dim_order.out", kAllTypes),
    make_kernel<&rand_out, &rand_prepare>("aten::rand.out", kFloatingTypes),
    make_kernel<&randn_out, &randn_prepare>("aten::randn.out", kFloatingTypes),
};

}  // namespace etr
