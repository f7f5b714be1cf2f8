// Drives upstream's custom-operator examples (examples/portable/custom_ops:
// custom_ops_1_out.cpp's custom::native::mul3_out_impl and
// custom_ops_2_out.cpp's mul4_out_impl, compiled unchanged by
// scripts/official_tests.sh) on etr. Upstream's build makes their
// registration with its codegen from custom_ops.yaml; here it is written
// by hand with the official EXECUTORCH_LIBRARY, as an app without that
// codegen would. test/models/custom_ops_example.pte computes
// mul4(mul3(x) + 1); its output is compared with PyTorch's
// (test/models/custom_ops_example/out.f32).
#include <gtest/gtest.h>

#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace custom {
namespace native {
// Defined in upstream's custom_ops_1_out.cpp and custom_ops_2_out.cpp.
Tensor& mul3_out_impl(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out);
Tensor& mul4_out_impl(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out);
}  // namespace native
}  // namespace custom

namespace {

// mul4_out_impl is overloaded (with and without a context); the kernel is
// the overload that takes one.
Tensor& mul4_kernel(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return custom::native::mul4_out_impl(ctx, in, out);
}

EXECUTORCH_LIBRARY(my_ops, "mul3.out", custom::native::mul3_out_impl);
EXECUTORCH_LIBRARY(my_ops, "mul4.out", mul4_kernel);

std::vector<float> read_f32(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

std::string models_dir() {
  const char* dir = std::getenv("ETR_MODELS_DIR");
  return dir != nullptr ? std::string(dir) + "/" : std::string("test/models/");
}

TEST(CustomOpsExample, BothOperatorsAreRegistered) {
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("my_ops::mul3.out"));
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("my_ops::mul4.out"));
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("my_ops::mul5.out"));
}

TEST(CustomOpsExample, TheProgramRunsThroughThemWithPyTorchsOutput) {
  const std::vector<float> in = read_f32(models_dir() + "custom_ops_example/in.f32");
  const std::vector<float> want = read_f32(models_dir() + "custom_ops_example/out.f32");
  ASSERT_EQ(in.size(), 12u);
  ASSERT_EQ(want.size(), 12u);
  executorch::extension::Module module(models_dir() + "custom_ops_example.pte");
  auto x = executorch::extension::make_tensor_ptr({3, 4}, std::vector<float>(in));
  auto result = module.forward(x);
  ASSERT_TRUE(result.ok()) << static_cast<int>(result.error());
  ASSERT_EQ(result->size(), 1u);
  const Tensor out = (*result)[0].toTensor();
  ASSERT_EQ(out.numel(), 12);
  const float* y = out.const_data_ptr<float>();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(y[i], want[i], 1e-5f * (1.0f + std::fabs(want[i]))) << i;
  }
}

}  // namespace
