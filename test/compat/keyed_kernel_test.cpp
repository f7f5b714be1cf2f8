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

#include "test/compat/custom_op_fixture.h"

using executorch::aten::Tensor;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelKey;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace {

int g_float_calls = 0;
int g_double_calls = 0;
int g_channels_last_calls = 0;
size_t g_num_args = 0;

// mul3.out's boxed kernel (input, out, return slot): out = 3 * input.
void mul3_float(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ++g_float_calls;
  g_num_args = stack.size();
  custom_op_fixture::mul3(ctx, stack);
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

// The keys of a call whose three tensors (input, out, return slot) are
// Float (6) or Double (7), [2, 5] in dim order 0,1 or 1,0.
constexpr const char* kFloatKey = "v1/6;0,1|6;0,1|6;0,1";
constexpr const char* kDoubleKey = "v1/7;0,1|7;0,1|7;0,1";
constexpr const char* kTransposedKey = "v1/6;1,0|6;1,0|6;1,0";

// Runs custom_op.pte on its fixture input; the largest difference from
// PyTorch's output, or a negative number when the run failed.
float run_custom_op() {
  executorch::runtime::runtime_init();
  auto input = custom_op_fixture::input();
  if (input == nullptr) return -1.0f;
  Module module(custom_op_fixture::models_dir() + "custom_op.pte");
  auto out = module.forward(input);
  if (!out.ok()) return -2.0f;
  return custom_op_fixture::max_error((*out)[0].toTensor());
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
      Kernel("my_ops::affine.out", custom_op_fixture::affine),
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
      Kernel("my_ops::affine.out", custom_op_fixture::affine),
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
      Kernel("my_ops::affine.out", custom_op_fixture::affine),
  };
  if (executorch::runtime::register_kernels({kernels, 2}) != Error::Ok) std::exit(10);
  executorch::runtime::runtime_init();
  Module module(custom_op_fixture::models_dir() + "custom_op.pte");
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
