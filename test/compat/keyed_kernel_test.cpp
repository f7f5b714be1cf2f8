// Kernels registered through the official API with kernel keys: a program's
// call goes to the kernel whose key matches the dtype and dim order of the
// call's tensor arguments (else the operator's fallback kernel), as the
// official runtime picks it at method load, not to the first one
// registered. test/models/custom_op.pte calls my_ops::mul3.out (x * 3) and
// my_ops::affine.out on a Float [2, 5] input; its PyTorch output is
// custom_op/a_out0.npy. Each case registers in a child process (death-test
// style), since registrations last for the whole process.
#include <gtest/gtest.h>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "extension/tensor/npy.h"

using executorch::aten::Tensor;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelKey;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/";

int g_float_calls = 0;
int g_double_calls = 0;
int g_channels_last_calls = 0;
size_t g_num_args = 0;

// mul3.out's boxed kernel (input, out, return slot): out = 3 * input.
void mul3_float(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ++g_float_calls;
  g_num_args = stack.size();
  const Tensor& in = stack[0]->toTensor();
  Tensor& out = stack[1]->toTensor();
  if (executorch::runtime::resize_tensor(out, in.sizes()) != Error::Ok) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  for (ptrdiff_t i = 0; i < in.numel(); ++i) {
    out.mutable_data_ptr<float>()[i] = 3.0f * in.const_data_ptr<float>()[i];
  }
}
// Kernels for keys this program never has: they must not run.
void mul3_double(KernelRuntimeContext& ctx, Span<EValue*>) {
  ++g_double_calls;
  ctx.fail(Error::Internal);
}
void mul3_channels_last(KernelRuntimeContext& ctx, Span<EValue*>) {
  ++g_channels_last_calls;
  ctx.fail(Error::Internal);
}
// affine.out (input, shifts, factor, negate, out, return slot).
void affine_fallback(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor& in = stack[0]->toTensor();
  double shift = 0;
  for (int64_t s : stack[1]->toIntList()) shift += static_cast<double>(s);
  const double factor = stack[2]->toDouble();
  const bool negate = stack[3]->toBool();
  Tensor& out = stack[4]->toTensor();
  if (executorch::runtime::resize_tensor(out, in.sizes()) != Error::Ok) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  for (ptrdiff_t i = 0; i < in.numel(); ++i) {
    const double v = in.const_data_ptr<float>()[i] * factor + shift;
    out.mutable_data_ptr<float>()[i] = static_cast<float>(negate ? -v : v);
  }
}

// The keys of a call whose three tensors (input, out, return slot) are
// Float (6) or Double (7), [2, 5] in dim order 0,1 or 1,0.
constexpr const char* kFloatKey = "v1/6;0,1|6;0,1|6;0,1";
constexpr const char* kDoubleKey = "v1/7;0,1|7;0,1|7;0,1";
constexpr const char* kTransposedKey = "v1/6;1,0|6;1,0|6;1,0";

// Runs custom_op.pte on its fixture input; the largest difference from
// PyTorch's output, or a negative number when the run failed.
float run_custom_op() {
  executorch::runtime::runtime_init();
  auto in = etr::read_npy(kDir + "custom_op/a_in0.npy");
  auto want = etr::read_npy(kDir + "custom_op/a_out0.npy");
  if (!in.ok() || !want.ok()) return -1.0f;
  const float* x = in->tensor().const_data_ptr<float>();
  auto input = executorch::extension::make_tensor_ptr(
      {2, 5}, std::vector<float>(x, x + in->tensor().numel()));
  Module module(kDir + "custom_op.pte");
  auto out = module.forward(input);
  if (!out.ok()) return -2.0f;
  const Tensor& y = (*out)[0].toTensor();
  float worst = 0;
  for (ptrdiff_t i = 0; i < y.numel(); ++i) {
    worst = std::fmax(
        worst, std::fabs(y.const_data_ptr<float>()[i] - want->tensor().const_data_ptr<float>()[i]));
  }
  return worst;
}

// Each scenario registers its kernels, runs, and exits 0 when it went as
// it should (printing what happened).
void call_goes_to_the_kernel_of_its_key() {
  // The kernels for other keys come first: the first registered one must
  // not be the one called.
  static const Kernel kernels[] = {
      Kernel("my_ops::mul3.out", KernelKey(kDoubleKey), mul3_double),
      Kernel("my_ops::mul3.out", KernelKey(kTransposedKey), mul3_channels_last),
      Kernel("my_ops::mul3.out", KernelKey(kFloatKey), mul3_float),
      Kernel("my_ops::affine.out", affine_fallback),
  };
  if (executorch::runtime::register_kernels({kernels, 4}) != Error::Ok) std::exit(10);
  const float err = run_custom_op();
  std::fprintf(stderr, "max error %g; calls: float %d, double %d, channels-last %d; %zu args\n",
               err, g_float_calls, g_double_calls, g_channels_last_calls, g_num_args);
  const bool ok = err >= 0 && err <= 1e-5f && g_float_calls == 1 && g_double_calls == 0 &&
                  g_channels_last_calls == 0 && g_num_args == 3;
  std::exit(ok ? 0 : 1);
}

void fallback_kernel_takes_other_keys() {
  static const Kernel kernels[] = {
      Kernel("my_ops::mul3.out", KernelKey(kDoubleKey), mul3_double),
      Kernel("my_ops::mul3.out", mul3_float),  // the fallback
      Kernel("my_ops::affine.out", affine_fallback),
  };
  if (executorch::runtime::register_kernels({kernels, 3}) != Error::Ok) std::exit(10);
  const float err = run_custom_op();
  std::fprintf(stderr, "max error %g; calls: float %d, double %d\n", err, g_float_calls,
               g_double_calls);
  std::exit(err >= 0 && err <= 1e-5f && g_float_calls == 1 && g_double_calls == 0 ? 0 : 1);
}

void no_kernel_for_the_key_fails_the_load() {
  static const Kernel kernels[] = {
      Kernel("my_ops::mul3.out", KernelKey(kDoubleKey), mul3_double),
      Kernel("my_ops::affine.out", affine_fallback),
  };
  if (executorch::runtime::register_kernels({kernels, 2}) != Error::Ok) std::exit(10);
  executorch::runtime::runtime_init();
  Module module(kDir + "custom_op.pte");
  const Error err = module.load_method("forward");
  std::fprintf(stderr, "load_method: %d; double calls %d\n", static_cast<int>(err), g_double_calls);
  std::exit(err == Error::OperatorMissing && g_double_calls == 0 ? 0 : 1);
}

TEST(CompatKeyedKernelTest, CallGoesToTheKernelOfItsKey) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(call_goes_to_the_kernel_of_its_key(), ::testing::ExitedWithCode(0),
              "calls: float 1, double 0, channels-last 0");
}

TEST(CompatKeyedKernelTest, FallbackKernelTakesOtherKeys) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fallback_kernel_takes_other_keys(), ::testing::ExitedWithCode(0),
              "calls: float 1, double 0");
}

TEST(CompatKeyedKernelTest, NoKernelForTheKeyFailsTheLoad) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(no_kernel_for_the_key_fails_the_load(), ::testing::ExitedWithCode(0),
              "my_ops::mul3.out.*none registered for key 'v1/6;0,1\\|6;0,1\\|6;0,1'");
}

}  // namespace
