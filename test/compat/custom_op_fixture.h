// test/models/custom_op.pte through the official API, for the compat tests
// of custom-kernel registration: boxed kernels for its two custom operators
// (my_ops::mul3.out: out = 3 * input; my_ops::affine.out(input, shifts,
// factor, negate): input * factor + sum(shifts), negated when `negate`),
// its fixture input and the comparison with PyTorch's output
// (custom_op/a_in0.npy, a_out0.npy).
#pragma once

#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include <cmath>
#include <string>
#include <vector>

#include "extension/tensor/npy.h"

namespace custom_op_fixture {

using executorch::aten::Tensor;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

inline const std::string& models_dir() {
  static const std::string dir = std::string(ETR_SOURCE_DIR) + "/test/models/";
  return dir;
}

// mul3.out's boxed body (input, out, return slot).
inline void mul3(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor& in = stack[0]->toTensor();
  Tensor& out = stack[1]->toTensor();
  if (executorch::runtime::resize_tensor(out, in.sizes()) != executorch::runtime::Error::Ok) {
    ctx.fail(executorch::runtime::Error::InvalidArgument);
    return;
  }
  for (ptrdiff_t i = 0; i < in.numel(); ++i) {
    out.mutable_data_ptr<float>()[i] = 3.0f * in.const_data_ptr<float>()[i];
  }
}

// affine.out's boxed body (input, shifts, factor, negate, out, return slot).
inline void affine(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor& in = stack[0]->toTensor();
  double shift = 0;
  for (int64_t s : stack[1]->toIntList()) shift += static_cast<double>(s);
  const double factor = stack[2]->toDouble();
  const bool negate = stack[3]->toBool();
  Tensor& out = stack[4]->toTensor();
  if (executorch::runtime::resize_tensor(out, in.sizes()) != executorch::runtime::Error::Ok) {
    ctx.fail(executorch::runtime::Error::InvalidArgument);
    return;
  }
  for (ptrdiff_t i = 0; i < in.numel(); ++i) {
    const double v = in.const_data_ptr<float>()[i] * factor + shift;
    out.mutable_data_ptr<float>()[i] = static_cast<float>(negate ? -v : v);
  }
}

// The fixture input as a Float [2, 5] TensorPtr; null when it is missing.
inline executorch::extension::TensorPtr input() {
  auto in = etr::read_npy(models_dir() + "custom_op/a_in0.npy");
  if (!in.ok()) return nullptr;
  const float* x = in->tensor().const_data_ptr<float>();
  return executorch::extension::make_tensor_ptr({2, 5},
                                                std::vector<float>(x, x + in->tensor().numel()));
}

// The largest difference of `got` from PyTorch's output; negative when the
// sizes differ or the reference is missing.
inline float max_error(const Tensor& got) {
  auto want = etr::read_npy(models_dir() + "custom_op/a_out0.npy");
  if (!want.ok() || want->tensor().numel() != got.numel()) return -1.0f;
  float worst = 0;
  for (ptrdiff_t i = 0; i < got.numel(); ++i) {
    worst = std::fmax(worst, std::fabs(got.const_data_ptr<float>()[i] -
                                       want->tensor().const_data_ptr<float>()[i]));
  }
  return worst;
}

}  // namespace custom_op_fixture
