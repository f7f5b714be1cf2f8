// Kernel functions of the prim op library, shared between its source files.
// Not part of the public interface; use prim_ops_kernels().
#pragma once

#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel_context.h"

namespace etr {
namespace internal {

// Tensor-facing prim ops (prim_tensor_ops.cpp). Each takes the raw argument
// array the executor passes; argument kinds were checked at method load.
void prim_sym_size(KernelContext& ctx, EValue* const* args);            // [self, dim, result]
void prim_sym_numel(KernelContext& ctx, EValue* const* args);           // [self, result]
void prim_local_scalar_dense(KernelContext& ctx, EValue* const* args);  // [self, result]
void prim_et_copy_index(KernelContext& ctx, EValue* const* args);  // [copy_to, copy_from, index]
void prim_et_view(KernelContext& ctx, EValue* const* args);        // [self, size, out]

}  // namespace internal
}  // namespace etr
