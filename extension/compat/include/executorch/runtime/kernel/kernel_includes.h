// Compatibility layer (extension/compat): what a kernel source includes to
// be written against the official API (tensors, scalar types and their
// utilities, the kernel context).
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <cstddef>
