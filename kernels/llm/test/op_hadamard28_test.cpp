// llama::fast_hadamard_transform.out at ExecuTorch's 28 * 2^k sizes, and in
// Half, against the official kernel's own outputs
// (kernels/llm/test/hadamard28_refs.h, made by make_hadamard28_refs.py).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "kernels/llm/llm_kernels.h"
#include "kernels/llm/test/hadamard28_refs.h"
#include "kernels/llm/test/llm_test_support.h"
#include "kernels/test/kernel_test_util.h"
#include "runtime/core/half.h"

namespace etr {
namespace testing {
namespace {

using namespace hadamard28_refs;

std::vector<ThreadPool*> pools() { return llm_test_pools(); }

std::vector<float> run(ThreadPool* pool, std::vector<int32_t> sizes, const std::vector<float>& in,
                       Error* err = nullptr) {
  HostTensor x = make_tensor<float>(sizes, in);
  HostTensor out = zeros_tensor(ScalarType::Float, sizes);
  KernelRunner r(llm_registry(), pool);
  const Error e = r.run("llama::fast_hadamard_transform.out", {r.tensor(x), r.tensor(out)});
  if (err != nullptr) {
    *err = e;
  } else {
    EXPECT_EQ(e, Error::Ok);
  }
  return out.values<float>();
}

// Half in and out; the values as float.
std::vector<float> run_half(std::vector<int32_t> sizes, const std::vector<float>& in) {
  std::vector<Half> h;
  for (float v : in) h.push_back(Half(v));
  Result<HostTensor> x =
      HostTensor::from_bytes(ScalarType::Half, sizes, h.data(), h.size() * sizeof(Half));
  EXPECT_TRUE(x.ok());
  if (!x.ok()) return {};
  HostTensor out = zeros_tensor(ScalarType::Half, sizes);
  KernelRunner r(llm_registry(), nullptr);
  EXPECT_EQ(r.run("llama::fast_hadamard_transform.out", {r.tensor(*x), r.tensor(out)}), Error::Ok);
  const Half* y = static_cast<const Half*>(out.tensor().const_data());
  std::vector<float> result;
  for (size_t i = 0; i < h.size(); ++i) result.push_back(static_cast<float>(y[i]));
  return result;
}

TEST(LlmHadamard28Test, MatchesTheOfficialKernelAt28TimesPowersOfTwo) {
  struct Case {
    int m;
    const std::vector<float>& in;
    const std::vector<float>& expected;
  };
  const Case cases[] = {{1, kH28x1In, kH28x1Expected},
                        {2, kH28x2In, kH28x2Expected},
                        {8, kH28x8In, kH28x8Expected},
                        {32, kH28x32In, kH28x32Expected}};
  for (ThreadPool* pool : pools()) {
    for (const Case& c : cases) {
      SCOPED_TRACE("n = 28 * " + std::to_string(c.m));
      // Float sums in another order than the official butterflies: rounding only.
      expect_close(run(pool, {2, 28 * c.m}, c.in), c.expected, 1e-5, 2e-6);
    }
  }
  expect_close(run(nullptr, {2, 3, 56}, kH28ThreeDimsIn), kH28ThreeDimsExpected, 1e-5, 2e-6);
}

TEST(LlmHadamard28Test, HalfRoundsAsTheOfficialKernelDoes) {
  // Same operations in the same order, each rounded to half: bit for bit.
  EXPECT_EQ(run_half({3, 112}, kH28HalfIn), kH28HalfExpected);
  EXPECT_EQ(run_half({2, 64}, kH64HalfIn), kH64HalfExpected);
}

TEST(LlmHadamard28Test, Llama3FfnSizeKeepsTheNormTimes28) {
  // 14336 = 28 * 512: the transform is H28 (x) (H_512 / sqrt(512)), whose rows
  // are orthogonal with squared norm 28, so |y|^2 = 28 |x|^2; and its first
  // output is the signed sum over H28's first row of the blocks' first outputs.
  const int n = 14336;
  std::vector<float> x(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = std::sin(0.013f * static_cast<float>(i));
  for (ThreadPool* pool : pools()) {
    const std::vector<float> y = run(pool, {1, n}, x);
    double nx = 0, ny = 0;
    for (int i = 0; i < n; ++i) {
      nx += double(x[size_t(i)]) * x[size_t(i)];
      ny += double(y[size_t(i)]) * y[size_t(i)];
    }
    EXPECT_NEAR(ny / nx, 28.0, 1e-3);
    double y0 = 0;
    for (int c = 0; c < 28; ++c) {
      double block_sum = 0;  // first output of block c's normalized transform
      for (int j = 0; j < 512; ++j) block_sum += x[size_t(c * 512 + j)];
      block_sum /= std::sqrt(512.0);
      y0 += ((kOfficialH28[0] >> c) & 1u) ? block_sum : -block_sum;
    }
    EXPECT_NEAR(y[0], y0, 1e-3);
  }
}

TEST(LlmHadamard28Test, OtherSizesAreStillRefused) {
  for (int n : {3, 12, 84, 28 * 3, 100}) {
    Error e = Error::Ok;
    run(nullptr, {1, n}, std::vector<float>(static_cast<size_t>(n), 1.0f), &e);
    EXPECT_EQ(e, Error::InvalidArgument) << n;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
