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

OpCall cat_call(std::vector<HostTensor*> xs, int64_t dim, ScalarType dtype,
                std::vector<int32_t> out_shape) {
  OpCall c;
  c.op = "aten::cat.out";
  c.outs = {{dtype, out_shape}};
  c.args = [xs, dim](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor_list(xs), r.i(dim), r.tensor(o[0])};
  };
  return c;
}

// cat of inputs whose elements are distinct numbers (input i holds 1000 * i +
// its flat index): the output is checked element by element against the
// index arithmetic of cat, and against the portable kernel, with and
// without threads. Shapes: the DenseNet feature concat (large enough to be
// split over threads in the middle of an input's block), outer dims before
// the cat dim, the last dim, a negative dim, empty inputs and a legacy empty
// (1-D, size 0) input, which is skipped.
TEST(OptimizedLayout, CatMatchesIndexArithmeticAndPortable) {
  struct Case {
    std::vector<std::vector<int32_t>> shapes;
    int64_t dim;
  };
  const Case cases[] = {
      {{{1, 256, 28, 28}, {1, 32, 28, 28}}, 1},  // 802 KiB: split mid-block
      {{{1, 64, 56, 56}, {1, 32, 56, 56}, {1, 32, 56, 56}}, 1},
      {{{3, 5, 7}, {3, 2, 7}, {3, 1, 7}}, 1},
      {{{2, 3, 4}, {2, 3, 9}}, -1},
      {{{4, 3}, {1, 3}, {0, 3}}, 0},
      {{{2, 0, 5}, {2, 3, 5}}, 1},
      {{{5, 70000}, {5, 3}}, 1},   // rows longer than a thread's range
      {{{0}, {2, 3}, {2, 4}}, 1},  // legacy empty first
  };
  for (const Case& c : cases) {
    std::vector<HostTensor> xs;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      size_t n = 1;
      for (int32_t v : c.shapes[i]) n *= static_cast<size_t>(v);
      std::vector<float> values(n);
      for (size_t k = 0; k < n; ++k) values[k] = static_cast<float>(1000 * i + k);
      xs.push_back(make_tensor<float>(c.shapes[i], values));
    }
    // The reference rank and dim come from the first input that is not a
    // legacy empty.
    const size_t first = c.shapes[0].size() == 1 && c.shapes.size() > 1 && c.shapes[1].size() > 1;
    const std::vector<int32_t>& ref = c.shapes[first];
    const size_t rank = ref.size();
    const size_t d = static_cast<size_t>(c.dim < 0 ? c.dim + static_cast<int64_t>(rank) : c.dim);
    std::vector<int32_t> out_shape = ref;
    out_shape[d] = 0;
    for (size_t i = first; i < c.shapes.size(); ++i) out_shape[d] += c.shapes[i][d];
    // Expected: out row r (dims before d), then input i's block of row r.
    size_t rows = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) rows *= static_cast<size_t>(ref[k]);
    for (size_t k = d + 1; k < rank; ++k) inner *= static_cast<size_t>(ref[k]);
    std::vector<float> expected;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t i = first; i < c.shapes.size(); ++i) {
        const size_t block = static_cast<size_t>(c.shapes[i][d]) * inner;
        for (size_t k = 0; k < block; ++k)
          expected.push_back(static_cast<float>(1000 * i + r * block + k));
      }
    }
    std::vector<HostTensor*> ptrs;
    for (HostTensor& x : xs) ptrs.push_back(&x);
    const OpCall call = cat_call(ptrs, c.dim, ScalarType::Float, out_shape);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      const std::string what = "cat " + shape_str(ref) + " x" + std::to_string(c.shapes.size()) +
                               " dim " + std::to_string(c.dim) + (pool ? " threaded" : "");
      const OpResult got = run_call(call, test_kernel_registry(), pool);
      ASSERT_EQ(got.error, Error::Ok) << what;
      EXPECT_EQ(got.library, "optimized") << what;
      ASSERT_EQ(got.outs[0].shape(), out_shape) << what;
      EXPECT_EQ(got.outs[0].values<float>(), expected) << what;
      check_against_portable(call, pool, 0.0, 0.0, "optimized", what);
    }
  }
  // Other element sizes: bit-exact against the portable kernel.
  HostTensor a = make_tensor<int64_t>({2, 3}, iota<int64_t>(6));
  HostTensor b = make_tensor<int64_t>({2, 2}, iota<int64_t>(4));
  check_against_portable(cat_call({&a, &b}, 1, ScalarType::Long, {2, 5}), test_thread_pool(), 0.0,
                         0.0, "optimized", "cat Long");
  HostTensor h = make_tensor<uint8_t>({3, 2}, iota<uint8_t>(6));
  check_against_portable(cat_call({&h, &h}, 0, ScalarType::Byte, {6, 2}), test_thread_pool(), 0.0,
                         0.0, "optimized", "cat Byte");
  // Mixed dtypes and channels-last inputs: the portable kernel.
  HostTensor f = make_tensor<float>({2, 2}, iota<float>(4));
  check_against_portable(cat_call({&a, &f}, 1, ScalarType::Float, {2, 5}), test_thread_pool(), 0.0,
                         0.0, "portable", "cat Long + Float");
  HostTensor cl = make_tensor<float>({1, 2, 3, 4}, iota<float>(24), {0, 2, 3, 1});
  HostTensor cf = make_tensor<float>({1, 2, 3, 4}, iota<float>(24));
  check_against_portable(cat_call({&cf, &cl}, 1, ScalarType::Float, {1, 4, 3, 4}),
                         test_thread_pool(), 0.0, 0.0, "portable", "cat channels-last input");
}

}  // namespace
}  // namespace testing
}  // namespace etr
