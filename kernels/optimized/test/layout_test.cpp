// The optimized permute_copy against the portable kernel: every permutation
// of ranks 1-4 on seeded random shapes (sizes 1 included, remainders of the
// 8x8 and 32x32 tiles), the attention head split/merge and weight
// transposes, 1-, 2-, 4- and 8-byte dtypes, empty tensors, one and two
// threads. A byte copy: exact.
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>

#include "kernels/optimized/test/compare_util.h"

namespace etr {
namespace testing {
namespace {

OpCall permute_call(HostTensor& x, std::vector<int64_t> dims) {
  std::vector<int32_t> out;
  for (int64_t d : dims)
    out.push_back(x.shape()[static_cast<size_t>(d < 0 ? d + x.shape().size() : d)]);
  OpCall c;
  c.op = "aten::permute_copy.out";
  c.outs = {{x.dtype(), out}};
  c.args = [&x, dims](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(x), r.int_list(dims), r.tensor(o[0])};
  };
  return c;
}

TEST(OptimizedLayout, EveryPermutationMatchesPortable) {
  std::mt19937 rng(77);
  for (size_t rank = 1; rank <= 4; ++rank) {
    for (int trial = 0; trial < 3; ++trial) {
      const auto shape = random_shape(rng, rank, 1, 21);
      HostTensor x = random_float_tensor(shape, rng);
      std::vector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      do {
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
          std::string what = "permute " + shape_str(shape) + " by";
          for (int64_t p : perm) what += " " + std::to_string(p);
          check_against_portable(permute_call(x, perm), pool, 0.0, 0.0, "optimized", what);
        }
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST(OptimizedLayout, ModelShapesAndDtypes) {
  std::mt19937 rng(78);
  struct Case {
    std::vector<int32_t> shape;
    std::vector<int64_t> dims;
  };
  const Case cases[] = {
      {{2, 77, 8, 64}, {0, 2, 1, 3}},  // head split
      {{2, 8, 77, 64}, {0, 2, 1, 3}},  // head merge
      {{768, 3072}, {1, 0}},           // weight transpose, threaded
      {{2, 8, 77, 64}, {0, 1, 3, 2}},  // k transpose
      {{33, 1, 45}, {2, 1, 0}},       {{3, 0, 5}, {2, 0, 1}}, {{}, {}},
  };
  for (const Case& c : cases) {
    HostTensor x = random_float_tensor(c.shape, rng);
    check_against_portable(permute_call(x, c.dims), test_thread_pool(), 0.0, 0.0, "optimized",
                           "permute " + shape_str(c.shape));
  }
  // Constant inputs (weights) are permuted at load; run copies the result.
  for (const Case& c : cases) {
    HostTensor x = random_float_tensor(c.shape, rng);
    OpCall call = permute_call(x, c.dims);
    call.constant_args = 1;
    call.repeats = 2;
    check_against_portable(call, test_thread_pool(), 0.0, 0.0, "optimized",
                           "permute constant " + shape_str(c.shape));
  }
  // Other element sizes.
  std::vector<int32_t> shape = {5, 19, 11};
  const size_t n = 5 * 19 * 11;
  HostTensor b = make_tensor<uint8_t>(shape, std::vector<uint8_t>(iota<uint8_t>(n)));
  HostTensor s = make_tensor<int16_t>(shape, iota<int16_t>(n));
  HostTensor d = make_tensor<double>(shape, iota<double>(n));
  HostTensor l = make_tensor<int64_t>(shape, iota<int64_t>(n));
  for (HostTensor* t : {&b, &s, &d, &l}) {
    check_against_portable(permute_call(*t, {2, 0, 1}), test_thread_pool(), 0.0, 0.0, "optimized",
                           std::string("permute ") + to_string(t->dtype()));
  }
  // Channels-last input: portable.
  HostTensor cl = make_tensor<float>({1, 2, 3, 4}, iota<float>(24), {0, 2, 3, 1});
  check_against_portable(permute_call(cl, {0, 3, 1, 2}), test_thread_pool(), 0.0, 0.0, "portable",
                         "permute channels-last");
}

// Runs `op` on the portable reference with `args` built in its runner; the
// outputs given as `outs`.
std::vector<HostTensor> portable_step(
    const char* op, std::vector<std::pair<ScalarType, std::vector<int32_t>>> outs,
    std::function<std::vector<EValue*>(KernelRunner&, std::vector<HostTensor>&)> args) {
  OpCall c;
  c.op = op;
  c.outs = std::move(outs);
  c.args = std::move(args);
  OpResult res = run_call(c, portable_reference_registry(), nullptr);
  EXPECT_EQ(res.error, Error::Ok) << op;
  return std::move(res.outs);
}

// A fused layout chain (fusion_rules.cpp) against its steps run one by one on
// the portable kernels, with out apart from the input and (the memory plan
// may reuse the input's bytes, dead after the first step) over it, shifted by
// `shift` elements either way. A byte copy: exact.
void check_fused_chain(
    const char* fused, HostTensor& x, const std::vector<HostTensor>& want,
    std::function<std::vector<EValue*>(KernelRunner&, EValue*, EValue*, EValue*)> args,
    const std::vector<int32_t>& scratch_shape) {
  const HostTensor& ref = want.back();
  const size_t n = static_cast<size_t>(x.tensor().numel());
  for (int64_t shift : {int64_t{-1}, int64_t{0}, int64_t{3}, int64_t{-5}}) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      HostTensor in = zeros_tensor(x.dtype(), x.shape());
      HostTensor out = zeros_tensor(ref.dtype(), ref.shape());
      HostTensor scratch = zeros_tensor(x.dtype(), scratch_shape);
      // shift -1: out in its own memory; otherwise in and out share one
      // buffer, out starting `shift` elements after in.
      std::vector<float> buf(3 * n + 16);
      if (shift >= -5 && shift != -1) {
        float* base = buf.data() + n + 8;
        in.tensor().set_data(base, n * sizeof(float));
        out.tensor().set_data(base + shift, n * sizeof(float));
      }
      std::memcpy(in.tensor().mutable_data(), x.data(), n * sizeof(float));
      KernelRunner runner(test_kernel_registry(), pool);
      const Error err = runner.run(
          fused, args(runner, runner.tensor(in), runner.tensor(scratch), runner.tensor(out)));
      ASSERT_EQ(err, Error::Ok) << fused << " shift " << shift;
      EXPECT_STREQ(runner.chosen_library(), "optimized");
      ASSERT_EQ(std::vector<int32_t>(out.tensor().sizes().begin(), out.tensor().sizes().end()),
                ref.shape())
          << fused;
      EXPECT_EQ(std::memcmp(out.tensor().const_data(), ref.data(), ref.nbytes()), 0)
          << fused << " shift " << shift;
    }
  }
}

TEST(OptimizedLayout, FusedChainsMatchTheirStepsOnPortable) {
  std::mt19937 rng(78);
  // unsqueeze(0) -> permute -> squeeze(3) -> clone: a packed q/k/v split.
  {
    HostTensor x = random_float_tensor({13, 1, 3, 20}, rng);
    const std::vector<int64_t> dims = {3, 1, 2, 0, 4};
    auto u = portable_step("aten::unsqueeze_copy.out", {{ScalarType::Float, {1, 13, 1, 3, 20}}},
                           [&](KernelRunner& r, std::vector<HostTensor>& o) {
                             return std::vector<EValue*>{r.tensor(x), r.i(0), r.tensor(o[0])};
                           });
    auto p = portable_step(
        "aten::permute_copy.out", {{ScalarType::Float, {3, 13, 1, 1, 20}}},
        [&](KernelRunner& r, std::vector<HostTensor>& o) {
          return std::vector<EValue*>{r.tensor(u[0]), r.int_list(dims), r.tensor(o[0])};
        });
    auto q = portable_step(
        "aten::squeeze_copy.dims_out", {{ScalarType::Float, {3, 13, 1, 20}}},
        [&](KernelRunner& r, std::vector<HostTensor>& o) {
          return std::vector<EValue*>{r.tensor(p[0]), r.int_list({3}), r.tensor(o[0])};
        });
    check_fused_chain("etr::unsqueeze_permute_squeeze.fused", x, q,
                      [&](KernelRunner& r, EValue* in, EValue* scratch, EValue* out) {
                        return std::vector<EValue*>{
                            in, r.i(0), r.int_list(dims), r.int_list({3}), r.none(), scratch, out};
                      },
                      {1, 13, 1, 3, 20});
  }
  // permute -> clone -> permute -> permute: the heads merged back.
  {
    HostTensor x = random_float_tensor({1, 3, 13, 8}, rng);
    const std::vector<int64_t> d0 = {2, 0, 1, 3}, d1 = {1, 2, 0, 3}, d2 = {2, 0, 1, 3};
    auto a =
        portable_step("aten::permute_copy.out", {{ScalarType::Float, {13, 1, 3, 8}}},
                      [&](KernelRunner& r, std::vector<HostTensor>& o) {
                        return std::vector<EValue*>{r.tensor(x), r.int_list(d0), r.tensor(o[0])};
                      });
    auto b =
        portable_step("aten::permute_copy.out", {{ScalarType::Float, {1, 3, 13, 8}}},
                      [&](KernelRunner& r, std::vector<HostTensor>& o) {
                        return std::vector<EValue*>{r.tensor(a[0]), r.int_list(d1), r.tensor(o[0])};
                      });
    auto c =
        portable_step("aten::permute_copy.out", {{ScalarType::Float, {13, 1, 3, 8}}},
                      [&](KernelRunner& r, std::vector<HostTensor>& o) {
                        return std::vector<EValue*>{r.tensor(b[0]), r.int_list(d2), r.tensor(o[0])};
                      });
    check_fused_chain(
        "etr::permute_clone_permute_permute.fused", x, c,
        [&](KernelRunner& r, EValue* in, EValue* scratch, EValue* out) {
          return std::vector<EValue*>{
              in, r.int_list(d0), r.int_list({0, 1, 2, 3}), r.int_list(d1), r.int_list(d2), scratch,
              out};
        },
        {13, 1, 3, 8});
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
