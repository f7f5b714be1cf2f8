// The optimized add/sub/mul/div, where and logical_not against the portable
// kernels on seeded random shapes: same shape, one-element operands, inner
// ([N,C,H,W] op [N,C,1,1]) and last-dim ([..., D] op [D]) broadcasts, other
// broadcasts, empty tensors, NaN/inf values, one and two threads. Float
// arithmetic is exact (same operations), so the tolerance is zero.
#include <random>

#include "kernels/optimized/test/compare_util.h"

namespace etr {
namespace testing {
namespace {

struct BinaryCase {
  std::vector<int32_t> a, b, out;
};

std::vector<BinaryCase> binary_cases(std::mt19937& rng) {
  std::vector<BinaryCase> cases;
  for (size_t rank = 1; rank <= 4; ++rank) {
    const auto s = random_shape(rng, rank, 1, 13);
    cases.push_back({s, s, s});
  }
  cases.push_back({{96, 65, 33}, {96, 65, 33}, {96, 65, 33}});  // threaded
  cases.push_back({{5, 7}, {}, {5, 7}});                        // 0-d other
  cases.push_back({{1}, {9, 3}, {9, 3}});                       // one-element self
  cases.push_back({{2, 24, 9, 11}, {2, 24, 1, 1}, {2, 24, 9, 11}});
  cases.push_back({{2, 96, 33, 33}, {2, 96, 1, 1}, {2, 96, 33, 33}});  // threaded
  cases.push_back({{3, 10, 7, 5}, {10, 1, 1}, {3, 10, 7, 5}});
  cases.push_back({{4, 6, 37}, {37}, {4, 6, 37}});
  cases.push_back({{37}, {4, 6, 37}, {4, 6, 37}});
  cases.push_back({{6, 1, 5}, {3, 1}, {6, 3, 5}});
  cases.push_back({{0, 5}, {5}, {0, 5}});
  return cases;
}

OpCall binary_call(const char* op, HostTensor& a, HostTensor& b, const std::vector<int32_t>& out,
                   bool with_alpha, double alpha) {
  OpCall c;
  c.op = op;
  c.outs = {{ScalarType::Float, out}};
  c.args = [&a, &b, with_alpha, alpha](KernelRunner& r, std::vector<HostTensor>& o) {
    std::vector<EValue*> args = {r.tensor(a), r.tensor(b)};
    if (with_alpha) args.push_back(alpha == 1.0 ? r.i(1) : r.d(alpha));
    args.push_back(r.tensor(o[0]));
    return args;
  };
  return c;
}

TEST(OptimizedElementwise, BinaryOpsMatchPortable) {
  std::mt19937 rng(1234);
  struct Op {
    const char* name;
    bool alpha;
  };
  const Op ops[] = {{"aten::add.out", true},
                    {"aten::sub.out", true},
                    {"aten::mul.out", false},
                    {"aten::div.out", false}};
  for (const BinaryCase& bc : binary_cases(rng)) {
    HostTensor a = random_float_tensor(bc.a, rng, -4.0f, 4.0f);
    HostTensor b = random_float_tensor(bc.b, rng, -4.0f, 4.0f);
    sprinkle_specials(a, rng);
    for (const Op& op : ops) {
      for (double alpha : {1.0, 2.5}) {
        if (!op.alpha && alpha != 1.0) continue;
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
          const std::string what = std::string(op.name) + " " + shape_str(bc.a) + " " +
                                   shape_str(bc.b) + " alpha " + std::to_string(alpha) +
                                   (pool ? " 2 threads" : " 1 thread");
          check_against_portable(binary_call(op.name, a, b, bc.out, op.alpha, alpha), pool, 0.0,
                                 0.0, "optimized", what);
        }
      }
    }
  }
}

// Float + Double and a channels-last operand are left to the portable kernel.
TEST(OptimizedElementwise, FallsBackToPortable) {
  std::mt19937 rng(7);
  HostTensor a = random_float_tensor({2, 3}, rng);
  HostTensor d = make_tensor<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  OpCall mixed = binary_call("aten::mul.out", a, d, {2, 3}, false, 1.0);
  mixed.outs = {{ScalarType::Double, {2, 3}}};
  check_against_portable(mixed, test_thread_pool(), 0.0, 0.0, "portable", "Float * Double");

  HostTensor cl = make_tensor<float>({1, 2, 2, 2}, iota<float>(8), {0, 2, 3, 1});
  HostTensor b = random_float_tensor({1, 2, 2, 2}, rng);
  check_against_portable(binary_call("aten::add.out", cl, b, {1, 2, 2, 2}, true, 1.0),
                         test_thread_pool(), 0.0, 0.0, "portable", "channels-last add");
}

HostTensor random_bool_tensor(std::vector<int32_t> sizes, std::mt19937& rng) {
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  std::vector<bool> v(n);
  std::bernoulli_distribution coin(0.5);
  for (size_t i = 0; i < n; ++i) v[i] = coin(rng);
  return make_tensor<bool>(std::move(sizes), v);
}

TEST(OptimizedElementwise, WhereMatchesPortable) {
  std::mt19937 rng(99);
  struct Case {
    std::vector<int32_t> c, a, b, out;
  };
  const Case cases[] = {
      {{3, 17}, {3, 17}, {3, 17}, {3, 17}},
      {{2, 1, 1, 23}, {2, 4, 23, 23}, {}, {2, 4, 23, 23}},  // attention mask, 0-d other
      {{512, 300}, {512, 300}, {1}, {512, 300}},            // threaded
      {{5, 1}, {1, 9}, {5, 9}, {5, 9}},
      {{0, 4}, {0, 4}, {0, 4}, {0, 4}},
  };
  for (const Case& k : cases) {
    HostTensor c = random_bool_tensor(k.c, rng);
    HostTensor a = random_float_tensor(k.a, rng);
    HostTensor b = random_float_tensor(k.b, rng);
    sprinkle_specials(a, rng);
    OpCall call;
    call.op = "aten::where.self_out";
    call.outs = {{ScalarType::Float, k.out}};
    call.args = [&](KernelRunner& r, std::vector<HostTensor>& o) {
      return std::vector<EValue*>{r.tensor(c), r.tensor(a), r.tensor(b), r.tensor(o[0])};
    };
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      check_against_portable(call, pool, 0.0, 0.0, "optimized", "where " + shape_str(k.out));
    }
  }
}

TEST(OptimizedElementwise, LogicalNotMatchesPortable) {
  std::mt19937 rng(5);
  for (const std::vector<int32_t>& shape :
       {std::vector<int32_t>{13}, std::vector<int32_t>{8, 300, 300}, std::vector<int32_t>{0}}) {
    HostTensor x = random_bool_tensor(shape, rng);
    OpCall call;
    call.op = "aten::logical_not.out";
    call.outs = {{ScalarType::Bool, shape}};
    call.args = [&](KernelRunner& r, std::vector<HostTensor>& o) {
      return std::vector<EValue*>{r.tensor(x), r.tensor(o[0])};
    };
    check_against_portable(call, test_thread_pool(), 0.0, 0.0, "optimized",
                           "logical_not " + shape_str(shape));
  }
  // Float input: portable.
  HostTensor f = random_float_tensor({3}, rng);
  OpCall call;
  call.op = "aten::logical_not.out";
  call.outs = {{ScalarType::Bool, {3}}};
  call.args = [&](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(f), r.tensor(o[0])};
  };
  check_against_portable(call, test_thread_pool(), 0.0, 0.0, "portable", "logical_not Float");
}

}  // namespace
}  // namespace testing
}  // namespace etr
