// Runs one operator call on the optimized stack and on the portable
// reference (portable_reference_registry()) and compares every output, for
// the elementwise, activation, normalization and layout kernel tests.
#pragma once

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {

struct OpCall {
  const char* op = "";
  // Output dtypes and (capacity) shapes, in schema order.
  std::vector<std::pair<ScalarType, std::vector<int32_t>>> outs;
  // Builds the arguments in `r`, outputs last (given in `outs`).
  std::function<std::vector<EValue*>(KernelRunner& r, std::vector<HostTensor>& outs)> args;
  // Arguments marked as program constants (KernelRunner::set_constant_args).
  uint64_t constant_args = 0;
  // Executes after the first (prepared state reused).
  int repeats = 1;
};

struct OpResult {
  Error error = Error::Ok;
  std::string library;
  std::vector<HostTensor> outs;
};

inline OpResult run_call(const OpCall& call, const KernelRegistry& registry, ThreadPool* pool) {
  OpResult res;
  KernelRunner runner(registry, pool);
  for (const auto& o : call.outs) res.outs.push_back(zeros_tensor(o.first, o.second));
  runner.set_constant_args(call.constant_args);
  res.error = runner.run(call.op, call.args(runner, res.outs));
  for (int i = 1; i < call.repeats && res.error == Error::Ok; ++i)
    res.error = runner.run_prepared();
  res.library = runner.chosen_library();
  return res;
}

// Equal shapes; floats within atol + rtol * |expected| (NaN matches NaN,
// infinities match exactly); other dtypes bit-exact.
inline void expect_same_outputs(const OpResult& got, const OpResult& ref, double rtol, double atol,
                                const std::string& what) {
  ASSERT_EQ(got.outs.size(), ref.outs.size()) << what;
  for (size_t k = 0; k < got.outs.size(); ++k) {
    const HostTensor& a = got.outs[k];
    const HostTensor& e = ref.outs[k];
    ASSERT_EQ(a.shape(), e.shape()) << what << " output " << k;
    ASSERT_EQ(a.dtype(), e.dtype()) << what << " output " << k;
    if (a.dtype() != ScalarType::Float) {
      EXPECT_EQ(std::memcmp(a.data(), e.data(), e.nbytes()), 0) << what << " output " << k;
      continue;
    }
    const std::vector<float> av = a.values<float>();
    const std::vector<float> ev = e.values<float>();
    size_t bad = 0;
    for (size_t i = 0; i < av.size(); ++i) {
      const double x = av[i], y = ev[i];
      bool ok = false;
      if (std::isnan(y) || std::isinf(y)) {
        ok = std::isnan(y) ? std::isnan(x) : x == y;
      } else {
        ok = std::abs(x - y) <= atol + rtol * std::abs(y);
      }
      if (!ok && ++bad <= 3) {
        ADD_FAILURE() << what << ": output " << k << " element " << i << " is " << av[i]
                      << ", reference " << ev[i];
      }
    }
    EXPECT_EQ(bad, 0u) << what << ": output " << k << " elements out of tolerance";
  }
}

// Runs `call` optimized (on `pool`) and portable; both must succeed, the
// optimized stack must have chosen `expect_library`, and outputs must agree.
inline void check_against_portable(const OpCall& call, ThreadPool* pool, double rtol, double atol,
                                   const char* expect_library, const std::string& what) {
  const OpResult got = run_call(call, test_kernel_registry(), pool);
  const OpResult ref = run_call(call, portable_reference_registry(), nullptr);
  ASSERT_EQ(ref.error, Error::Ok) << what << " (portable)";
  ASSERT_EQ(got.error, Error::Ok) << what;
  EXPECT_EQ(got.library, expect_library) << what;
  expect_same_outputs(got, ref, rtol, atol, what);
}

// A random shape of `rank` dims, each in [lo, hi].
inline std::vector<int32_t> random_shape(std::mt19937& rng, size_t rank, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int32_t> s(rank);
  for (int32_t& v : s) v = dist(rng);
  return s;
}

inline std::string shape_str(const std::vector<int32_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

// Sets a few elements of a Float tensor to NaN, +inf and -inf.
inline void sprinkle_specials(HostTensor& t, std::mt19937& rng) {
  const size_t n = static_cast<size_t>(t.tensor().numel());
  if (n == 0) return;
  float* p = t.tensor().data_ptr<float>();
  std::uniform_int_distribution<size_t> at(0, n - 1);
  p[at(rng)] = std::nanf("");
  p[at(rng)] = INFINITY;
  p[at(rng)] = -INFINITY;
}

}  // namespace testing
}  // namespace etr
