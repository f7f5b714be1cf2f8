// Argument checks and output shapes that an operator's kernels in every library
// share (portable and optimized), so that both refuse the same calls with the
// same message and size their outputs alike.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// aten::linear: input [..., K], weight [N, K], bias [N] or [1] or none; checks
// the sizes and resizes out to [..., N].
Error linear_resize_output(const char* op, const Tensor& input, const Tensor& weight,
                           const Tensor* bias, Tensor& out);

// aten::native_layer_norm: normalized_shape must be the trailing sizes of input
// and the whole shape of weight and bias (when given). Resizes out to input's
// shape and mean/rstd to input's with the normalized dims set to 1; *rows gets
// the product of the leading dims and *cols that of the normalized ones.
Error layer_norm_resize_outputs(const char* op, const Tensor& input, IntArrayRef normalized_shape,
                                const Tensor* weight, const Tensor* bias, Tensor& out, Tensor& mean,
                                Tensor& rstd, int64_t* rows, int64_t* cols);

}  // namespace etr
