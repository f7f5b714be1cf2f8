// Method-local kernel registries through the official API
// (Program::load_method's and Module::load_method's `kernel_registry`):
// the kernels given to one method's load serve that method alone, before
// the global registry, as upstream's Method::resolve_operator consults them
// (the list's kernel for the call's key, else its fallback kernel, else the
// global registry's; none: OperatorMissing naming the operator).
// test/models/custom_op.pte calls my_ops::mul3.out (x * 3) and
// my_ops::affine.out on a Float [2, 5] input; its PyTorch output is
// custom_op/a_out0.npy. Cases that register global kernels run in a child
// process (death-test style), since registrations last for the process.
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
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
using executorch::extension::FileDataLoader;
using executorch::extension::MallocMemoryAllocator;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::Kernel;
using executorch::runtime::KernelKey;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

const std::string kPte = custom_op_fixture::models_dir() + "custom_op.pte";

// The key of custom_op's mul3 call (input, out, return slot: Float [2, 5],
// contiguous), and the same call in Double.
constexpr const char* kFloatKey = "v1/6;0,1|6;0,1|6;0,1";
constexpr const char* kDoubleKey = "v1/7;0,1|7;0,1|7;0,1";

int g_local_calls = 0;
int g_global_calls = 0;
int g_unused_calls = 0;

void mul3_local(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ++g_local_calls;
  custom_op_fixture::mul3(ctx, stack);
}
void mul3_global(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ++g_global_calls;
  custom_op_fixture::mul3(ctx, stack);
}
// A kernel for a key the program never has: it must not run.
void mul3_unused(KernelRuntimeContext& ctx, Span<EValue*>) {
  ++g_unused_calls;
  ctx.fail(Error::Internal);
}

// Runs forward of `module` (loaded with `kernels`) on the fixture input:
// its largest error, or a negative number when the load or run failed.
float run(Module& module, std::vector<Kernel> kernels) {
  const Error loaded = module.load_method("forward", nullptr, nullptr, nullptr, std::move(kernels));
  if (loaded != Error::Ok) return -2.0f;
  TensorPtr input = custom_op_fixture::input();
  if (input == nullptr) return -3.0f;
  auto out = module.forward(input);
  if (!out.ok()) return -4.0f;
  return custom_op_fixture::max_error((*out)[0].toTensor());
}

const std::vector<Kernel> local_kernels() {
  return {Kernel("my_ops::mul3.out", mul3_local),
          Kernel("my_ops::affine.out", custom_op_fixture::affine)};
}

class CompatMethodKernelRegistryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
  void SetUp() override { g_local_calls = g_global_calls = g_unused_calls = 0; }
};

// No global my_ops kernels in this process: the list alone makes the
// method load and run; loads without it do not see its kernels.
TEST_F(CompatMethodKernelRegistryTest, ModuleKernelsServeThatMethodAlone) {
  Module module(kPte);
  const float err = run(module, local_kernels());
  ASSERT_GE(err, 0.0f) << "load or run failed: " << err;
  EXPECT_LE(err, 1e-5f);
  EXPECT_EQ(g_local_calls, 1);
  auto again = module.forward(custom_op_fixture::input());
  ASSERT_EQ(again.error(), Error::Ok);
  EXPECT_LE(custom_op_fixture::max_error((*again)[0].toTensor()), 1e-5f);
  EXPECT_EQ(g_local_calls, 2);

  // Another Module, one sharing the program, and the same method loaded
  // again without the list: the operators are missing.
  Module other(kPte);
  EXPECT_EQ(other.load_method("forward"), Error::OperatorMissing);
  Module sharing(module.program());
  EXPECT_EQ(sharing.load_method("forward"), Error::OperatorMissing);
  ASSERT_TRUE(module.unload_method("forward"));
  EXPECT_EQ(module.load_method("forward"), Error::OperatorMissing);
  EXPECT_EQ(g_local_calls, 2);
}

TEST_F(CompatMethodKernelRegistryTest, ProgramKernelsServeThatMethodAlone) {
  auto loader = FileDataLoader::from(kPte.c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  auto program = Program::load(&*loader);
  ASSERT_EQ(program.error(), Error::Ok);
  auto meta = program->method_meta("forward");
  ASSERT_EQ(meta.error(), Error::Ok);
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    buffers.emplace_back(static_cast<size_t>(*meta->memory_planned_buffer_size(i)));
  }
  for (auto& b : buffers) spans.emplace_back(b.data(), b.size());
  HierarchicalAllocator planned({spans.data(), spans.size()});
  MallocMemoryAllocator method_allocator;
  MemoryManager memory(&method_allocator, &planned);

  // The list is copied at the load: it need not outlive the call.
  auto method = [&] {
    const std::vector<Kernel> kernels = local_kernels();
    return program->load_method("forward", &memory, nullptr, nullptr, nullptr,
                                Span<const Kernel>(kernels.data(), kernels.size()));
  }();
  ASSERT_EQ(method.error(), Error::Ok);
  TensorPtr input = custom_op_fixture::input();
  ASSERT_NE(input, nullptr);
  ASSERT_EQ(method->set_input(EValue(*input), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  const float err = custom_op_fixture::max_error(method->get_output(0).toTensor());
  EXPECT_GE(err, 0.0f);
  EXPECT_LE(err, 1e-5f);
  EXPECT_EQ(g_local_calls, 1);

  MallocMemoryAllocator other_allocator;
  MemoryManager other_memory(&other_allocator, &planned);
  EXPECT_EQ(program->load_method("forward", &other_memory).error(), Error::OperatorMissing);
}

// A list without a kernel for an operator, and no global one: the load
// fails with OperatorMissing naming it.
void missing_operator_fails_the_load() {
  executorch::runtime::runtime_init();
  Module module(kPte);
  const Error err = module.load_method("forward", nullptr, nullptr, nullptr,
                                       {Kernel("my_ops::mul3.out", mul3_local)});
  std::fprintf(stderr, "load_method: %d\n", static_cast<int>(err));
  std::exit(err == Error::OperatorMissing ? 0 : 1);
}

// A list whose only mul3 kernel is for another key, and no global one.
void no_kernel_for_the_key_fails_the_load() {
  executorch::runtime::runtime_init();
  Module module(kPte);
  const Error err =
      module.load_method("forward", nullptr, nullptr, nullptr,
                         {Kernel("my_ops::mul3.out", KernelKey(kDoubleKey), mul3_unused),
                          Kernel("my_ops::affine.out", custom_op_fixture::affine)});
  std::fprintf(stderr, "load_method: %d; unused calls %d\n", static_cast<int>(err), g_unused_calls);
  std::exit(err == Error::OperatorMissing && g_unused_calls == 0 ? 0 : 1);
}

// Global kernels for both operators (mul3 for the call's exact key): the
// list's fallback mul3 still wins for its method (upstream consults the
// list first, key then fallback); its affine-less list takes the global
// affine; a list with mul3 only for another key, and a load without a
// list, take the global mul3.
void local_kernels_come_before_global_ones() {
  executorch::runtime::runtime_init();
  static const Kernel global[] = {
      Kernel("my_ops::mul3.out", KernelKey(kFloatKey), mul3_global),
      Kernel("my_ops::affine.out", custom_op_fixture::affine),
  };
  if (executorch::runtime::register_kernels({global, 2}) != Error::Ok) std::exit(10);
  Module with_local(kPte);
  const float local_err = run(with_local, {Kernel("my_ops::mul3.out", mul3_local)});
  const int local_then = g_local_calls;
  const int global_then = g_global_calls;
  Module other_key(kPte);
  const float other_key_err =
      run(other_key, {Kernel("my_ops::mul3.out", KernelKey(kDoubleKey), mul3_unused)});
  Module plain(kPte);
  const float plain_err = run(plain, {});
  std::fprintf(stderr,
               "errors %g %g %g; with the list: local %d global %d; after: local %d global %d "
               "unused %d\n",
               local_err, other_key_err, plain_err, local_then, global_then, g_local_calls,
               g_global_calls, g_unused_calls);
  const bool ok = local_err >= 0 && local_err <= 1e-5f && other_key_err >= 0 &&
                  other_key_err <= 1e-5f && plain_err >= 0 && plain_err <= 1e-5f &&
                  local_then == 1 && global_then == 0 && g_local_calls == 1 &&
                  g_global_calls == 2 && g_unused_calls == 0;
  std::exit(ok ? 0 : 1);
}

TEST(CompatMethodKernelRegistryDeathTest, MissingOperatorFailsTheLoad) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(missing_operator_fails_the_load(), ::testing::ExitedWithCode(0),
              "my_ops::affine.out");
}

TEST(CompatMethodKernelRegistryDeathTest, NoKernelForTheKeyFailsTheLoad) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(no_kernel_for_the_key_fails_the_load(), ::testing::ExitedWithCode(0),
              "my_ops::mul3.out.*key 'v1/6;0,1\\|6;0,1\\|6;0,1'");
}

TEST(CompatMethodKernelRegistryDeathTest, LocalKernelsComeBeforeGlobalOnes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(local_kernels_come_before_global_ones(), ::testing::ExitedWithCode(0),
              "with the list: local 1 global 0; after: local 1 global 2 unused 0");
}

}  // namespace
