// The optimized permute_copy against the portable kernel: every permutation
// of ranks 1-4 on seeded random shapes (sizes 1 included, remainders of the
// 8x8 and 32x32 tiles), the attention head split/merge and weight
// transposes, 1-, 2-, 4- and 8-byte dtypes, empty tensors, one and two
// threads. A byte copy: exact.
#include <algorithm>
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

}  // namespace
}  // namespace testing
}  // namespace etr
