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
};

}  // namespace etr
