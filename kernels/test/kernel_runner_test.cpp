// The kernel-test harness follows the loader's contract: a library stacked
// above portable runs where its dtypes and prepare step accept the call, and
// portable runs the rest, so an optimized library is tested by the same op
// tests by adding it to test_kernel_registry().
#include <cmath>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

struct CallCount {
  int runs;
};

// A stand-in optimized relu: Float only, rank <= 2 only (declined in
// prepare), counts its runs in per-instruction state.
Error fast_relu_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  (void)out;
  if (self.dim() > 2) return Error::NotSupported;
  CallCount* count = ctx.make_state<CallCount>();
  if (count == nullptr) return Error::MemoryAllocationFailed;
  ctx.set_state(count);
  return Error::Ok;
}

void fast_relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ++ctx.state<CallCount>()->runs;
  const float* x = self.const_data_ptr<float>();
  float* y = static_cast<float*>(out.mutable_data());
  for (int64_t i = 0; i < self.numel(); ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

constexpr KernelEntry kFastKernels[] = {
    make_kernel<&fast_relu_out, &fast_relu_prepare>("aten::relu.out",
                                                    DtypeSet::of(ScalarType::Float)),
};

KernelRegistry stacked_registry() {
  KernelRegistry r;
  EXPECT_EQ(r.add(portable_kernel_library()), Error::Ok);
  EXPECT_EQ(r.add(KernelLibrary{"fast", kOptimizedPriority, {kFastKernels, 1}}), Error::Ok);
  return r;
}

TEST(KernelRunnerTest, StackedLibraryRunsWhereItAcceptsAndReusesItsState) {
  const KernelRegistry registry = stacked_registry();
  HostTensor x = make_tensor<float>({2, 2}, {-1.0f, 2.0f, -3.5f, 4.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r(registry);
  ASSERT_EQ(r.prepare("aten::relu.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "fast");
  ASSERT_EQ(r.run_prepared(), Error::Ok);
  ASSERT_EQ(r.run_prepared(), Error::Ok);
  EXPECT_EQ(static_cast<CallCount*>(r.state())->runs, 2);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 2.0f, 0.0f, 4.0f}));
}

TEST(KernelRunnerTest, PortableRunsWhatTheStackedLibraryDeclines) {
  const KernelRegistry registry = stacked_registry();
  // Double: outside the fast kernel's declared dtypes.
  HostTensor xd = make_tensor<double>({3}, {-1.0, 0.5, 2.0});
  HostTensor outd = zeros_tensor(ScalarType::Double, {3});
  KernelRunner r1(registry);
  ASSERT_EQ(r1.run("aten::relu.out", {r1.tensor(xd), r1.tensor(outd)}), Error::Ok);
  EXPECT_STREQ(r1.chosen_library(), "portable");
  EXPECT_EQ(outd.values<double>(), (std::vector<double>{0.0, 0.5, 2.0}));
  // Rank 3: the fast kernel's prepare declines.
  HostTensor x3 = make_tensor<float>({1, 1, 2}, {-2.0f, 3.0f});
  HostTensor out3 = zeros_tensor(ScalarType::Float, {1, 1, 2});
  KernelRunner r2(registry);
  ASSERT_EQ(r2.run("aten::relu.out", {r2.tensor(x3), r2.tensor(out3)}), Error::Ok);
  EXPECT_STREQ(r2.chosen_library(), "portable");
  EXPECT_EQ(out3.values<float>(), (std::vector<float>{0.0f, 3.0f}));
}

TEST(KernelRunnerTest, UndeclaredDtypeIsRefusedBeforeRun) {
  // relu declares kRealTypes: a Bool call is refused like the loader refuses it.
  HostTensor b = make_bool({2}, {1, 0});
  HostTensor out = zeros_tensor(ScalarType::Bool, {2});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::relu.out", {r.tensor(b), r.tensor(out)}), Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
