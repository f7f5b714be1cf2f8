// The runtime ("prim") operator library: the symbolic-integer arithmetic,
// tensor-metadata queries and control-flow helpers that exported programs
// emit besides ATen kernels.
//
//   ETR_RETURN_IF_ERROR(etr::register_kernels(etr::prim_ops_library()));
//
// Calling convention. Functional ops receive their inputs followed by one
// trailing slot that RECEIVES the result; the kernel rewrites that slot's tag
// and payload (Int, Double or Bool) with EValue::set_int/set_double/set_bool.
// Two ops have no return slot, exactly as the exporter emits them:
//   executorch_prim::et_view.default        [self, size, out]
//   executorch_prim::et_copy_index.tensor   [copy_to, copy_from, index]
//
// Arithmetic follows Python on unbounded ints where int64 allows it: floor
// division and modulo round toward negative infinity, round() is half to
// even, and anything Python would raise on (division by zero, an int result
// outside int64, converting NaN or infinity to int) fails the kernel with
// InvalidArgument instead of invoking undefined behaviour.
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {

// Every prim op (28 entries); the table has static storage duration.
Span<const KernelEntry> prim_ops_kernels();
// The same table as the library "prim" at kPortablePriority.
KernelLibrary prim_ops_library();

}  // namespace etr
