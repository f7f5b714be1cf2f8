// Indexing: sub-range copies along one dim (slice, select, narrow) and
// gathers by index tensors (index_select, embedding, index.Tensor). Element
// bytes are moved, so the indexed tensor may have any dtype; index tensors
// are Long or Int (index.Tensor also takes Bool/Byte masks) and every index
// is range-checked before anything is written. Prepare steps check ranks,
// dims, the slice step, index dtypes and out's dtype and rank; run() checks
// what depends on sizes or data (bounds that may be symbolic, index values)
// and resizes out. Parameters follow the ATen schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_slice_copy.cpp
// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
//   SymInt step=1, *, Tensor(a!) out)
void slice_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                           std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                           Tensor& out);
Error slice_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                         std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                         Tensor& out);
// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
void select_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                         Tensor& out);
Error select_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                          Tensor& out);
// aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
void narrow_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                     int64_t length, Tensor& out);
Error narrow_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                          int64_t length, Tensor& out);

// ---- op_index_select.cpp
// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
void index_select_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                      Tensor& out);
Error index_select_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                           const Tensor& index, Tensor& out);

// ---- op_embedding.cpp
// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
//   bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
void embedding_out(KernelContext& ctx, const Tensor& weight, const Tensor& indices,
                   int64_t padding_idx, bool scale_grad_by_freq, bool sparse, Tensor& out);
Error embedding_prepare(KernelPrepareContext& ctx, const Tensor& weight, const Tensor& indices,
                        int64_t padding_idx, bool scale_grad_by_freq, bool sparse, Tensor& out);

// ---- op_index_tensor.cpp
// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
void index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                      Tensor& out);
Error index_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self,
                           OptionalTensorList indices, Tensor& out);

// ---- op_gather_scatter.cpp: index is Long or Int of self's rank; values are not wrapped.
// aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False,
//   Tensor(a!) out)
void gather_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                bool sparse_grad, Tensor& out);
Error gather_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                     const Tensor& index, bool sparse_grad, Tensor& out);
// aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
void scatter_src_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, Tensor& out);
Error scatter_src_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Tensor& src, Tensor& out);
// aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
void scatter_value_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                       Scalar value, Tensor& out);
Error scatter_value_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                            const Tensor& index, Scalar value, Tensor& out);
// aten::scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
void scatter_add_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, Tensor& out);
Error scatter_add_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Tensor& src, Tensor& out);

// ---- op_select_slice_scatter.cpp
// aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
void select_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src, int64_t dim,
                        int64_t index, Tensor& out);
Error select_scatter_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& src,
                             int64_t dim, int64_t index, Tensor& out);
// aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None,
//   SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
void slice_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src, int64_t dim,
                       std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                       Tensor& out);
Error slice_scatter_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& src,
                            int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                            int64_t step, Tensor& out);

// ---- op_nonzero.cpp
// aten::nonzero.out(Tensor self, *, Tensor(a!) out): out is Long [count, self.dim()] and
// must be a dynamic-shape tensor.
void nonzero_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error nonzero_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// ---- op_masked_select.cpp
// aten::masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out): out is 1-D and must
// be a dynamic-shape tensor.
void masked_select_out(KernelContext& ctx, const Tensor& self, const Tensor& mask, Tensor& out);
Error masked_select_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mask,
                            Tensor& out);
// aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
void masked_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                        const Tensor& source, Tensor& out);
Error masked_scatter_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mask,
                             const Tensor& source, Tensor& out);

// ---- op_repeat_interleave.cpp
// aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None,
//   Tensor(a!) out)
void repeat_interleave_tensor_out(KernelContext& ctx, const Tensor& repeats,
                                  std::optional<int64_t> output_size, Tensor& out);
Error repeat_interleave_tensor_prepare(KernelPrepareContext& ctx, const Tensor& repeats,
                                       std::optional<int64_t> output_size, Tensor& out);

// ---- op_index_put.cpp: indices as in index.Tensor; values has self's dtype.
// aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
//   Tensor(a!) out)
void index_put_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                   const Tensor& values, bool accumulate, Tensor& out);
Error index_put_prepare(KernelPrepareContext& ctx, const Tensor& self, OptionalTensorList indices,
                        const Tensor& values, bool accumulate, Tensor& out);
// aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)
//   -> Tensor(a!)
void index_put_inplace(KernelContext& ctx, Tensor& self, OptionalTensorList indices,
                       const Tensor& values, bool accumulate);
Error index_put_inplace_prepare(KernelPrepareContext& ctx, Tensor& self, OptionalTensorList indices,
                                const Tensor& values, bool accumulate);

// The family's table (see kernel_table.cpp). The indexed tensor may have
// any dtype, so the sets are kAllTypes (index dtypes are checked by prepare).
inline constexpr KernelEntry kIndexingKernels[] = {
    make_kernel<&slice_copy_tensor_out, &slice_copy_prepare>("aten::slice_copy.Tensor_out",
                                                             kAllTypes),
    make_kernel<&select_copy_int_out, &select_copy_prepare>("aten::select_copy.int_out", kAllTypes),
    make_kernel<&narrow_copy_out, &narrow_copy_prepare>("aten::narrow_copy.out", kAllTypes),
    make_kernel<&index_select_out, &index_select_prepare>("aten::index_select.out", kAllTypes),
    make_kernel<&embedding_out, &embedding_prepare>("aten::embedding.out", kAllTypes),
    make_kernel<&index_tensor_out, &index_tensor_prepare>("aten::index.Tensor_out", kAllTypes),
    make_kernel<&nonzero_out, &nonzero_prepare>("aten::nonzero.out", kRealAndBoolTypes),
    make_kernel<&masked_select_out, &masked_select_prepare>("aten::masked_select.out", kAllTypes),
    make_kernel<&masked_scatter_out, &masked_scatter_prepare>("aten::masked_scatter.out",
                                                              kAllTypes),
    make_kernel<&repeat_interleave_tensor_out, &repeat_interleave_tensor_prepare>(
        "aten::repeat_interleave.Tensor_out", DtypeSet::of(ScalarType::Int, ScalarType::Long)),
    make_kernel<&gather_out, &gather_prepare>("aten::gather.out", kAllTypes),
    make_kernel<&scatter_src_out, &scatter_src_prepare>("aten::scatter.src_out", kAllTypes),
    make_kernel<&scatter_value_out, &scatter_value_prepare>("aten::scatter.value_out",
                                                            kRealAndBoolTypes),
    make_kernel<&scatter_add_out, &scatter_add_prepare>("aten::scatter_add.out", kRealAndBoolTypes),
    make_kernel<&select_scatter_out, &select_scatter_prepare>("aten::select_scatter.out",
                                                              kAllTypes),
    make_kernel<&slice_scatter_out, &slice_scatter_prepare>("aten::slice_scatter.out", kAllTypes),
    make_kernel<&index_put_out, &index_put_prepare>("aten::index_put.out", kAllTypes),
    make_kernel<&index_put_inplace, &index_put_inplace_prepare>("aten::index_put_", kAllTypes),
};

}  // namespace etr
