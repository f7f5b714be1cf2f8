// Seeded random-shape property tests, one table of descriptors per op
// family. Each descriptor names the operator, a scalar reference written
// here from the operator's definition (the formula PyTorch documents), the
// dtypes to try, the input domain and the tolerance. Every case draws a
// random shape (rank 0-4, sizes 0-5, broadcasting where the op broadcasts)
// and random values from a fixed seed, runs the kernel through KernelRunner
// (so through whatever library test_kernel_registry() stacks, with its
// dtype check and prepare step) and compares every element with the
// reference. A failure prints the seed, case number and shapes.
//
// Hand-picked cases with PyTorch-computed values live in the per-op tests;
// these sweep the shapes those cases do not reach (empty, 0-d, broadcast in
// every position, every dim) for crashes, indexing and broadcasting mistakes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr uint32_t kSeed = 20261123;
constexpr int kCasesPerOp = 40;

using Shape = std::vector<int32_t>;

std::string shape_text(const Shape& s) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << "]";
  return o.str();
}

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int32_t d : s) n *= d;
  return n;
}

// Row-major strides of a contiguous shape.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Multi-index of the linear (row-major) position `linear` in `s`.
std::vector<int64_t> unravel(int64_t linear, const Shape& s) {
  std::vector<int64_t> idx(s.size(), 0);
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == 0) return idx;
    idx[i] = linear % s[i];
    linear /= s[i];
  }
  return idx;
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  // Rank 0-4; sizes 1-5, with a 1-in-12 chance of a zero-size dim.
  Shape shape(int min_rank = 0, int max_rank = 4, int min_size = 0) {
    Shape s(static_cast<size_t>(uniform_int(min_rank, max_rank)));
    for (int32_t& d : s)
      d = (min_size == 0 && uniform_int(0, 11) == 0) ? 0 : uniform_int(std::max(1, min_size), 5);
    return s;
  }
  // A shape that broadcasts to `out`: some leading dims dropped, some dims set to 1.
  Shape broadcastable_to(const Shape& out) {
    const int drop = uniform_int(0, static_cast<int>(out.size()));
    Shape s(out.begin() + drop, out.end());
    for (int32_t& d : s) {
      if (coin(0.3)) d = 1;
    }
    return s;
  }
  std::vector<double> values(int64_t n, double lo, double hi, bool integral) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = integral ? std::floor(uniform(lo, hi + 1)) : uniform(lo, hi);
    return v;
  }

 private:
  std::mt19937 rng_;
};

bool is_integral(ScalarType t) { return t != ScalarType::Float && t != ScalarType::Double; }

// A tensor of `dtype` holding `v` (row-major), its shape free to be resized.
HostTensor make(ScalarType dtype, const Shape& shape, const std::vector<double>& v) {
  HostTensor t = zeros_tensor(dtype, shape);
  void* p = t.tensor().mutable_data();
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dtype) {
      case ScalarType::Float: static_cast<float*>(p)[i] = static_cast<float>(v[i]); break;
      case ScalarType::Double: static_cast<double*>(p)[i] = v[i]; break;
      case ScalarType::Long: static_cast<int64_t*>(p)[i] = static_cast<int64_t>(v[i]); break;
      case ScalarType::Int: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v[i]); break;
      case ScalarType::Bool: static_cast<bool*>(p)[i] = v[i] != 0; break;
      default: ADD_FAILURE() << "property tests do not build " << to_string(dtype); return t;
    }
  }
  return t;
}

std::vector<double> read(HostTensor& t) {
  const Tensor& x = t.tensor();
  std::vector<double> v(static_cast<size_t>(x.numel()));
  const void* p = x.const_data();
  for (size_t i = 0; i < v.size(); ++i) {
    switch (x.dtype()) {
      case ScalarType::Float: v[i] = static_cast<const float*>(p)[i]; break;
      case ScalarType::Double: v[i] = static_cast<const double*>(p)[i]; break;
      case ScalarType::Long: v[i] = static_cast<double>(static_cast<const int64_t*>(p)[i]); break;
      case ScalarType::Int: v[i] = static_cast<const int32_t*>(p)[i]; break;
      case ScalarType::Bool: v[i] = static_cast<const bool*>(p)[i] ? 1 : 0; break;
      default: ADD_FAILURE() << "property tests do not read " << to_string(x.dtype()); break;
    }
  }
  return v;
}

// The reference result rounded to what `dtype` can hold.
double as_dtype(double v, ScalarType dtype) {
  if (dtype == ScalarType::Float) return static_cast<double>(static_cast<float>(v));
  if (dtype == ScalarType::Bool) return v != 0 ? 1 : 0;
  return v;
}

struct Tolerance {
  double rtol;
  double atol;
};

Tolerance tolerance_for(ScalarType dtype, Tolerance f32) {
  if (dtype == ScalarType::Double) return {1e-12, 1e-12};
  if (is_integral(dtype) || dtype == ScalarType::Bool) return {0, 0};
  return f32;
}

void expect_matches(HostTensor& out, const Shape& shape, const std::vector<double>& expected,
                    Tolerance tol) {
  ASSERT_EQ(out.shape(), shape) << "output shape";
  const std::vector<double> got = read(out);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = as_dtype(expected[i], out.tensor().dtype());
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i] << ", expected NaN";
    } else if (std::isinf(e)) {
      EXPECT_EQ(got[i], e) << "element " << i;
    } else {
      EXPECT_LE(std::abs(got[i] - e), tol.atol + tol.rtol * std::abs(e))
          << "element " << i << " is " << got[i] << ", expected " << e;
    }
    if (::testing::Test::HasFailure()) return;  // one element per case is enough
  }
}

// The broadcast shape of a and b (both broadcastable to it by construction).
Shape broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t oi = out.size() - 1 - i;
    const int32_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int32_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[oi] = da == 1 ? db : da;
  }
  return out;
}

// The element of `v` (shape `s`) that broadcasts to multi-index `idx` of a
// larger shape.
double at_broadcast(const std::vector<double>& v, const Shape& s, const std::vector<int64_t>& idx) {
  const std::vector<int64_t> st = strides_of(s);
  int64_t off = 0;
  const size_t lead = idx.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) off += (s[i] == 1 ? 0 : idx[lead + i]) * st[i];
  return v[static_cast<size_t>(off)];
}

// ---------------------------------------------------------------- unary ----

struct UnaryOp {
  const char* name;
  double (*ref)(double);
  double lo, hi;      // input domain
  bool integral_too;  // also run on Long (and reference on integers)
  Tolerance f32;
};

double relu_ref(double x) { return x < 0 ? 0 : x; }
double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double neg_ref(double x) { return -x; }
double abs_ref(double x) { return std::abs(x); }
double reciprocal_ref(double x) { return 1 / x; }
double rsqrt_ref(double x) { return 1 / std::sqrt(x); }
double sign_ref(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
double round_ref(double x) { return std::nearbyint(x); }  // half to even
double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double sqrt_ref(double x) { return std::sqrt(x); }
double exp_ref(double x) { return std::exp(x); }
double expm1_ref(double x) { return std::expm1(x); }
double log_ref(double x) { return std::log(x); }
double log1p_ref(double x) { return std::log1p(x); }
double log2_ref(double x) { return std::log2(x); }
double log10_ref(double x) { return std::log10(x); }
double sin_ref(double x) { return std::sin(x); }
double cos_ref(double x) { return std::cos(x); }
double tan_ref(double x) { return std::tan(x); }
double tanh_ref(double x) { return std::tanh(x); }
double erf_ref(double x) { return std::erf(x); }
double ceil_ref(double x) { return std::ceil(x); }
double floor_ref(double x) { return std::floor(x); }
double trunc_ref(double x) { return std::trunc(x); }

const UnaryOp kUnaryOps[] = {
    {"aten::sqrt.out", sqrt_ref, 0, 100, false, {1e-6, 1e-6}},
    {"aten::rsqrt.out", rsqrt_ref, 0.01, 100, false, {1e-5, 1e-6}},
    {"aten::exp.out", exp_ref, -20, 20, false, {1e-6, 1e-6}},
    {"aten::expm1.out", expm1_ref, -5, 5, false, {1e-5, 1e-6}},
    {"aten::log.out", log_ref, 1e-3, 1e3, false, {1e-6, 1e-6}},
    {"aten::log1p.out", log1p_ref, -0.9, 100, false, {1e-6, 1e-6}},
    {"aten::log2.out", log2_ref, 1e-3, 1e3, false, {1e-6, 1e-6}},
    {"aten::log10.out", log10_ref, 1e-3, 1e3, false, {1e-6, 1e-6}},
    {"aten::sin.out", sin_ref, -10, 10, false, {1e-5, 1e-6}},
    {"aten::cos.out", cos_ref, -10, 10, false, {1e-5, 1e-6}},
    {"aten::tan.out", tan_ref, -1.4, 1.4, false, {1e-5, 1e-6}},
    {"aten::tanh.out", tanh_ref, -8, 8, false, {1e-6, 1e-6}},
    {"aten::sigmoid.out", sigmoid_ref, -20, 20, false, {1e-6, 1e-6}},
    {"aten::erf.out", erf_ref, -4, 4, false, {1e-6, 1e-6}},
    {"aten::reciprocal.out", reciprocal_ref, 0.1, 10, false, {1e-6, 1e-6}},
    {"aten::neg.out", neg_ref, -100, 100, true, {0, 0}},
    {"aten::abs.out", abs_ref, -100, 100, true, {0, 0}},
    {"aten::sign.out", sign_ref, -3, 3, true, {0, 0}},
    {"aten::ceil.out", ceil_ref, -100, 100, true, {0, 0}},
    {"aten::floor.out", floor_ref, -100, 100, true, {0, 0}},
    {"aten::round.out", round_ref, -100, 100, true, {0, 0}},
    {"aten::trunc.out", trunc_ref, -100, 100, true, {0, 0}},
    {"aten::relu.out", relu_ref, -100, 100, true, {0, 0}},
    {"aten::gelu.out", gelu_ref, -6, 6, false, {1e-5, 1e-6}},
};

TEST(OpPropertyTest, UnaryFamilyMatchesReferenceOnRandomShapes) {
  for (const UnaryOp& op : kUnaryOps) {
    Gen g(kSeed);
    std::vector<ScalarType> dtypes = {ScalarType::Float, ScalarType::Double};
    if (op.integral_too) dtypes.push_back(ScalarType::Long);
    for (int c = 0; c < kCasesPerOp; ++c) {
      const ScalarType dtype = dtypes[static_cast<size_t>(c) % dtypes.size()];
      const Shape s = g.shape();
      SCOPED_TRACE(::testing::Message() << op.name << " seed " << kSeed << " case " << c << " "
                                        << to_string(dtype) << shape_text(s));
      const std::vector<double> x = g.values(numel_of(s), op.lo, op.hi, is_integral(dtype));
      HostTensor in = make(dtype, s, x);
      HostTensor out = zeros_tensor(dtype, s);
      KernelRunner r;
      std::vector<EValue*> args = {r.tensor(in)};
      if (std::string(op.name) == "aten::gelu.out") args.push_back(r.str("none"));
      args.push_back(r.tensor(out));
      ASSERT_EQ(r.run(op.name, args), Error::Ok);
      std::vector<double> expected(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        expected[i] = op.ref(as_dtype(x[i], dtype));
      }
      expect_matches(out, s, expected, tolerance_for(dtype, op.f32));
      if (HasFailure()) return;
    }
  }
}

// ----------------------------------------------- binary, with broadcast ----

struct BinaryOp {
  const char* name;
  double (*ref)(double, double);
  double lo, hi;       // domain of both operands
  bool nonzero_other;  // the second operand avoids (-0.5, 0.5)
  bool integral_too;
  bool bool_result;  // comparison: out is Bool
  Tolerance f32;
};

double add_ref(double a, double b) { return a + b; }
double sub_ref(double a, double b) { return a - b; }
double mul_ref(double a, double b) { return a * b; }
double div_ref(double a, double b) { return a / b; }
double max_ref(double a, double b) { return std::max(a, b); }
double min_ref(double a, double b) { return std::min(a, b); }
double atan2_ref(double a, double b) { return std::atan2(a, b); }
double floor_divide_ref(double a, double b) { return std::floor(a / b); }
double remainder_ref(double a, double b) { return a - b * std::floor(a / b); }
double fmod_ref(double a, double b) { return std::fmod(a, b); }
double pow_ref(double a, double b) { return std::pow(a, b); }
double eq_ref(double a, double b) { return a == b; }
double lt_ref(double a, double b) { return a < b; }
double ge_ref(double a, double b) { return a >= b; }
double logical_and_ref(double a, double b) { return (a != 0) && (b != 0); }
double logical_xor_ref(double a, double b) { return (a != 0) != (b != 0); }

const BinaryOp kBinaryOps[] = {
    {"aten::add.out", add_ref, -100, 100, false, true, false, {1e-6, 1e-6}},
    {"aten::sub.out", sub_ref, -100, 100, false, true, false, {1e-6, 1e-6}},
    {"aten::mul.out", mul_ref, -100, 100, false, true, false, {1e-6, 1e-6}},
    {"aten::div.out", div_ref, -100, 100, true, false, false, {1e-6, 1e-6}},
    {"aten::maximum.out", max_ref, -100, 100, false, true, false, {0, 0}},
    {"aten::minimum.out", min_ref, -100, 100, false, true, false, {0, 0}},
    {"aten::atan2.out", atan2_ref, -10, 10, false, false, false, {1e-6, 1e-6}},
    {"aten::floor_divide.out", floor_divide_ref, -50, 50, true, true, false, {1e-6, 1e-6}},
    {"aten::remainder.Tensor_out", remainder_ref, -50, 50, true, true, false, {1e-5, 1e-5}},
    {"aten::fmod.Tensor_out", fmod_ref, -50, 50, true, true, false, {1e-5, 1e-5}},
    {"aten::pow.Tensor_Tensor_out", pow_ref, 0.5, 3, false, false, false, {1e-5, 1e-6}},
    {"aten::eq.Tensor_out", eq_ref, -2, 2, false, true, true, {0, 0}},
    {"aten::lt.Tensor_out", lt_ref, -100, 100, false, true, true, {0, 0}},
    {"aten::ge.Tensor_out", ge_ref, -3, 3, false, true, true, {0, 0}},
    {"aten::logical_and.out", logical_and_ref, -1, 1, false, true, true, {0, 0}},
    {"aten::logical_xor.out", logical_xor_ref, -1, 1, false, true, true, {0, 0}},
};

TEST(OpPropertyTest, BinaryFamiliesBroadcastOnRandomShapes) {
  for (const BinaryOp& op : kBinaryOps) {
    Gen g(kSeed + 1);
    std::vector<ScalarType> dtypes = {ScalarType::Float, ScalarType::Double};
    if (op.integral_too) {
      dtypes.push_back(ScalarType::Long);
      dtypes.push_back(ScalarType::Int);
    }
    for (int c = 0; c < kCasesPerOp; ++c) {
      const ScalarType dtype = dtypes[static_cast<size_t>(c) % dtypes.size()];
      const Shape out_shape = g.shape();
      Shape sa = g.broadcastable_to(out_shape);
      Shape sb = g.broadcastable_to(out_shape);
      if (g.coin()) std::swap(sa, sb);
      const Shape s = broadcast(sa, sb);
      SCOPED_TRACE(::testing::Message()
                   << op.name << " seed " << kSeed + 1 << " case " << c << " " << to_string(dtype)
                   << shape_text(sa) << " with " << shape_text(sb));
      const bool integral = is_integral(dtype);
      const std::vector<double> a = g.values(numel_of(sa), op.lo, op.hi, integral);
      std::vector<double> b = g.values(numel_of(sb), op.lo, op.hi, integral);
      if (op.nonzero_other) {
        for (double& v : b) {
          if (std::abs(v) < 0.5) v = v < 0 ? -1 : 1;
        }
      }
      HostTensor ta = make(dtype, sa, a);
      HostTensor tb = make(dtype, sb, b);
      const ScalarType out_dtype = op.bool_result ? ScalarType::Bool : dtype;
      HostTensor out = zeros_tensor(out_dtype, s);
      KernelRunner r;
      std::vector<EValue*> args = {r.tensor(ta), r.tensor(tb)};
      const std::string name = op.name;
      if (name == "aten::add.out" || name == "aten::sub.out") args.push_back(r.i(1));
      args.push_back(r.tensor(out));
      ASSERT_EQ(r.run(op.name, args), Error::Ok);
      std::vector<double> expected(static_cast<size_t>(numel_of(s)));
      for (size_t i = 0; i < expected.size(); ++i) {
        const std::vector<int64_t> idx = unravel(static_cast<int64_t>(i), s);
        const double x = as_dtype(at_broadcast(a, sa, idx), dtype);
        const double y = as_dtype(at_broadcast(b, sb, idx), dtype);
        expected[i] = op.ref(x, y);
      }
      expect_matches(out, s, expected, tolerance_for(out_dtype, op.f32));
      if (HasFailure()) return;
    }
  }
}

TEST(OpPropertyTest, WhereBroadcastsThreeOperands) {
  Gen g(kSeed + 2);
  for (int c = 0; c < kCasesPerOp; ++c) {
    const Shape full = g.shape();
    const Shape sc = g.broadcastable_to(full), sa = g.broadcastable_to(full),
                sb = g.broadcastable_to(full);
    const Shape s = broadcast(broadcast(sc, sa), sb);
    SCOPED_TRACE(::testing::Message() << "where case " << c << " " << shape_text(sc)
                                      << shape_text(sa) << shape_text(sb));
    const std::vector<double> cond = g.values(numel_of(sc), 0, 1, true);
    const std::vector<double> a = g.values(numel_of(sa), -10, 10, false);
    const std::vector<double> b = g.values(numel_of(sb), -10, 10, false);
    HostTensor tc = make(ScalarType::Bool, sc, cond);
    HostTensor ta = make(ScalarType::Float, sa, a);
    HostTensor tb = make(ScalarType::Float, sb, b);
    HostTensor out = zeros_tensor(ScalarType::Float, s);
    KernelRunner r;
    ASSERT_EQ(
        r.run("aten::where.self_out", {r.tensor(tc), r.tensor(ta), r.tensor(tb), r.tensor(out)}),
        Error::Ok);
    std::vector<double> expected(static_cast<size_t>(numel_of(s)));
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto idx = unravel(static_cast<int64_t>(i), s);
      expected[i] =
          at_broadcast(cond, sc, idx) != 0 ? at_broadcast(a, sa, idx) : at_broadcast(b, sb, idx);
    }
    expect_matches(out, s, expected, {0, 0});
    if (HasFailure()) return;
  }
}

// ------------------------------------------------------------ reductions ---

// Reduces `x` (shape s) over `dim` with `fold` (starting from `init`), then
// `finish(acc, count)`. Returns the reduced values in keepdim layout order.
std::vector<double> reduce_ref(const std::vector<double>& x, const Shape& s, int dim, double init,
                               double (*fold)(double, double), double (*finish)(double, int64_t)) {
  const int64_t outer = numel_of(Shape(s.begin(), s.begin() + dim));
  const int64_t n = s[static_cast<size_t>(dim)];
  const int64_t inner = numel_of(Shape(s.begin() + dim + 1, s.end()));
  std::vector<double> out(static_cast<size_t>(outer * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      double acc = init;
      for (int64_t k = 0; k < n; ++k)
        acc = fold(acc, x[static_cast<size_t>((o * n + k) * inner + in)]);
      out[static_cast<size_t>(o * inner + in)] = finish(acc, n);
    }
  }
  return out;
}

double fold_add(double a, double b) { return a + b; }
double fold_max(double a, double b) { return std::max(a, b); }
double keep(double acc, int64_t) { return acc; }
double average(double acc, int64_t n) {
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : acc / static_cast<double>(n);
}

struct ReduceOp {
  const char* name;
  double init;
  double (*fold)(double, double);
  double (*finish)(double, int64_t);
  bool has_dtype_arg;   // sum/mean take ScalarType? dtype before out
  bool needs_nonempty;  // amax refuses reducing an empty dim
  Tolerance f32;
};

const ReduceOp kReduceOps[] = {
    {"aten::sum.IntList_out", 0, fold_add, keep, true, false, {1e-5, 1e-5}},
    {"aten::mean.out", 0, fold_add, average, true, false, {1e-5, 1e-5}},
    {"aten::amax.out",
     -std::numeric_limits<double>::infinity(),
     fold_max,
     keep,
     false,
     true,
     {0, 0}},
};

TEST(OpPropertyTest, ReductionFamilyReducesEveryDim) {
  for (const ReduceOp& op : kReduceOps) {
    Gen g(kSeed + 3);
    for (int c = 0; c < kCasesPerOp; ++c) {
      const ScalarType dtype = c % 2 == 0 ? ScalarType::Float : ScalarType::Double;
      const Shape s = g.shape(1, 4, op.needs_nonempty ? 1 : 0);
      const int dim = g.uniform_int(0, static_cast<int>(s.size()) - 1);
      const bool keepdim = g.coin();
      const int64_t passed_dim = g.coin() ? dim : dim - static_cast<int>(s.size());
      SCOPED_TRACE(::testing::Message()
                   << op.name << " case " << c << " " << to_string(dtype) << shape_text(s)
                   << " dim " << passed_dim << " keepdim " << keepdim);
      const std::vector<double> x = g.values(numel_of(s), -10, 10, false);
      HostTensor in = make(dtype, s, x);
      Shape os = s;
      if (keepdim) {
        os[static_cast<size_t>(dim)] = 1;
      } else {
        os.erase(os.begin() + dim);
      }
      HostTensor out = zeros_tensor(dtype, os);
      KernelRunner r;
      std::vector<EValue*> args = {r.tensor(in), r.int_list({passed_dim}), r.b(keepdim)};
      if (op.has_dtype_arg) args.push_back(r.none());
      args.push_back(r.tensor(out));
      ASSERT_EQ(r.run(op.name, args), Error::Ok);
      std::vector<double> rounded(x.size());
      for (size_t i = 0; i < x.size(); ++i) rounded[i] = as_dtype(x[i], dtype);
      expect_matches(out, os, reduce_ref(rounded, s, dim, op.init, op.fold, op.finish),
                     tolerance_for(dtype, op.f32));
      if (HasFailure()) return;
    }
  }
}

TEST(OpPropertyTest, SoftmaxAndLogSoftmaxOverEveryDim) {
  for (const bool log : {false, true}) {
    Gen g(kSeed + 4);
    const char* name = log ? "aten::_log_softmax.out" : "aten::_softmax.out";
    for (int c = 0; c < kCasesPerOp; ++c) {
      const ScalarType dtype = c % 2 == 0 ? ScalarType::Float : ScalarType::Double;
      const Shape s = g.shape(1, 4);
      const int dim = g.uniform_int(0, static_cast<int>(s.size()) - 1);
      SCOPED_TRACE(::testing::Message()
                   << name << " case " << c << " " << shape_text(s) << " dim " << dim);
      const std::vector<double> x = g.values(numel_of(s), -30, 30, false);
      HostTensor in = make(dtype, s, x);
      HostTensor out = zeros_tensor(dtype, s);
      KernelRunner r;
      ASSERT_EQ(r.run(name, {r.tensor(in), r.i(dim), r.b(false), r.tensor(out)}), Error::Ok);
      // softmax_i = exp(x_i - max) / sum_j exp(x_j - max)
      const int64_t n = s[static_cast<size_t>(dim)];
      const int64_t inner = numel_of(Shape(s.begin() + dim + 1, s.end()));
      std::vector<double> expected(x.size());
      for (int64_t base = 0; base < numel_of(s); ++base) {
        const int64_t k = (base / inner) % n;
        const int64_t start = base - k * inner;
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < n; ++j)
          m = std::max(m, as_dtype(x[static_cast<size_t>(start + j * inner)], dtype));
        double sum = 0;
        for (int64_t j = 0; j < n; ++j)
          sum += std::exp(as_dtype(x[static_cast<size_t>(start + j * inner)], dtype) - m);
        const double xi = as_dtype(x[static_cast<size_t>(base)], dtype) - m;
        expected[static_cast<size_t>(base)] = log ? xi - std::log(sum) : std::exp(xi) / sum;
      }
      expect_matches(out, s, expected, tolerance_for(dtype, {1e-5, 1e-6}));
      if (HasFailure()) return;
    }
  }
}

// -------------------------------------------------------- linear algebra ---

TEST(OpPropertyTest, MmAndBmmMatchTripleLoop) {
  Gen g(kSeed + 5);
  for (int c = 0; c < kCasesPerOp; ++c) {
    const bool batched = c % 2 == 1;
    const ScalarType dtype = c % 4 < 2 ? ScalarType::Float : ScalarType::Double;
    const int b = batched ? g.uniform_int(0, 3) : 1;
    const int m = g.uniform_int(0, 9), k = g.uniform_int(0, 9), n = g.uniform_int(0, 9);
    SCOPED_TRACE(::testing::Message()
                 << "case " << c << " b " << b << " m " << m << " k " << k << " n " << n);
    const Shape sa = batched ? Shape{b, m, k} : Shape{m, k};
    const Shape sb = batched ? Shape{b, k, n} : Shape{k, n};
    const std::vector<double> a = g.values(numel_of(sa), -2, 2, false);
    const std::vector<double> bb = g.values(numel_of(sb), -2, 2, false);
    HostTensor ta = make(dtype, sa, a);
    HostTensor tb = make(dtype, sb, bb);
    const Shape os = batched ? Shape{b, m, n} : Shape{m, n};
    HostTensor out = zeros_tensor(dtype, os);
    KernelRunner r;
    ASSERT_EQ(r.run(batched ? "aten::bmm.out" : "aten::mm.out",
                    {r.tensor(ta), r.tensor(tb), r.tensor(out)}),
              Error::Ok);
    std::vector<double> expected(static_cast<size_t>(b * m * n), 0.0);
    for (int p = 0; p < b; ++p) {
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double acc = 0;
          for (int q = 0; q < k; ++q) {
            acc += as_dtype(a[static_cast<size_t>((p * m + i) * k + q)], dtype) *
                   as_dtype(bb[static_cast<size_t>((p * k + q) * n + j)], dtype);
          }
          expected[static_cast<size_t>((p * m + i) * n + j)] = acc;
        }
      }
    }
    expect_matches(out, os, expected, tolerance_for(dtype, {1e-5, 1e-5}));
    if (HasFailure()) return;
  }
}

// ------------------------------------------------- shape and indexing ------

TEST(OpPropertyTest, PermuteCopyMovesEveryElement) {
  Gen g(kSeed + 6);
  for (int c = 0; c < kCasesPerOp; ++c) {
    const Shape s = g.shape(0, 4);
    std::vector<int64_t> perm(s.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size(); i > 1; --i) {
      std::swap(perm[i - 1], perm[static_cast<size_t>(g.uniform_int(0, static_cast<int>(i) - 1))]);
    }
    SCOPED_TRACE(::testing::Message() << "case " << c << " " << shape_text(s));
    const std::vector<double> x = g.values(numel_of(s), -1000, 1000, true);
    HostTensor in = make(ScalarType::Long, s, x);
    Shape os(s.size());
    for (size_t i = 0; i < s.size(); ++i) os[i] = s[static_cast<size_t>(perm[i])];
    HostTensor out = zeros_tensor(ScalarType::Long, os);
    KernelRunner r;
    std::vector<int64_t> passed = perm;
    for (int64_t& p : passed) {
      if (g.coin()) p -= static_cast<int64_t>(s.size());  // negative dims too
    }
    ASSERT_EQ(r.run("aten::permute_copy.out", {r.tensor(in), r.int_list(passed), r.tensor(out)}),
              Error::Ok);
    const std::vector<int64_t> in_strides = strides_of(s);
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto oidx = unravel(static_cast<int64_t>(i), os);
      int64_t off = 0;
      for (size_t d = 0; d < os.size(); ++d)
        off += oidx[d] * in_strides[static_cast<size_t>(perm[d])];
      expected[i] = x[static_cast<size_t>(off)];
    }
    expect_matches(out, os, expected, {0, 0});
    if (HasFailure()) return;
  }
}

TEST(OpPropertyTest, CatJoinsAlongEveryDim) {
  Gen g(kSeed + 7);
  for (int c = 0; c < kCasesPerOp; ++c) {
    const Shape base = g.shape(1, 4);
    const int dim = g.uniform_int(0, static_cast<int>(base.size()) - 1);
    const int count = g.uniform_int(1, 3);
    std::vector<Shape> shapes;
    std::vector<std::vector<double>> values;
    std::vector<HostTensor> ins;
    Shape os = base;
    os[static_cast<size_t>(dim)] = 0;
    for (int t = 0; t < count; ++t) {
      Shape s = base;
      s[static_cast<size_t>(dim)] = g.uniform_int(0, 4);
      os[static_cast<size_t>(dim)] += s[static_cast<size_t>(dim)];
      values.push_back(g.values(numel_of(s), -50, 50, false));
      ins.push_back(make(ScalarType::Float, s, values.back()));
      shapes.push_back(s);
    }
    SCOPED_TRACE(::testing::Message()
                 << "case " << c << " " << count << " x " << shape_text(base) << " dim " << dim);
    HostTensor out = zeros_tensor(ScalarType::Float, os);
    KernelRunner r;
    std::vector<HostTensor*> ptrs;
    for (HostTensor& t : ins) ptrs.push_back(&t);
    ASSERT_EQ(r.run("aten::cat.out", {r.tensor_list(ptrs), r.i(dim), r.tensor(out)}), Error::Ok);
    std::vector<double> expected(static_cast<size_t>(numel_of(os)));
    for (size_t i = 0; i < expected.size(); ++i) {
      std::vector<int64_t> idx = unravel(static_cast<int64_t>(i), os);
      size_t t = 0;
      while (idx[static_cast<size_t>(dim)] >= shapes[t][static_cast<size_t>(dim)]) {
        idx[static_cast<size_t>(dim)] -= shapes[t][static_cast<size_t>(dim)];
        ++t;
      }
      const std::vector<int64_t> st = strides_of(shapes[t]);
      int64_t off = 0;
      for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * st[d];
      expected[i] = as_dtype(values[t][static_cast<size_t>(off)], ScalarType::Float);
    }
    expect_matches(out, os, expected, {0, 0});
    if (HasFailure()) return;
  }
}

TEST(OpPropertyTest, SliceCopyTakesEveryRange) {
  Gen g(kSeed + 8);
  for (int c = 0; c < kCasesPerOp * 2; ++c) {
    const Shape s = g.shape(1, 4);
    const int dim = g.uniform_int(0, static_cast<int>(s.size()) - 1);
    const int32_t n = s[static_cast<size_t>(dim)];
    // Any start/end, negative and past the end included (PyTorch clamps them).
    const int64_t start = g.uniform_int(-n - 2, n + 2);
    const int64_t end = g.uniform_int(-n - 2, n + 2);
    const int64_t step = g.uniform_int(1, 3);
    SCOPED_TRACE(::testing::Message() << "case " << c << " " << shape_text(s) << " dim " << dim
                                      << " " << start << ":" << end << ":" << step);
    const std::vector<double> x = g.values(numel_of(s), -1000, 1000, true);
    HostTensor in = make(ScalarType::Int, s, x);
    auto clamp_index = [n](int64_t v) {
      if (v < 0) v += n;
      return std::min<int64_t>(std::max<int64_t>(v, 0), n);
    };
    const int64_t b = clamp_index(start), e = std::max(clamp_index(end), b);
    Shape os = s;
    os[static_cast<size_t>(dim)] = static_cast<int32_t>((e - b + step - 1) / step);
    HostTensor out = zeros_tensor(ScalarType::Int, os);
    KernelRunner r;
    ASSERT_EQ(r.run("aten::slice_copy.Tensor_out",
                    {r.tensor(in), r.i(dim), r.i(start), r.i(end), r.i(step), r.tensor(out)}),
              Error::Ok);
    const std::vector<int64_t> st = strides_of(s);
    std::vector<double> expected(static_cast<size_t>(numel_of(os)));
    for (size_t i = 0; i < expected.size(); ++i) {
      std::vector<int64_t> idx = unravel(static_cast<int64_t>(i), os);
      idx[static_cast<size_t>(dim)] = b + idx[static_cast<size_t>(dim)] * step;
      int64_t off = 0;
      for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * st[d];
      expected[i] = x[static_cast<size_t>(off)];
    }
    expect_matches(out, os, expected, {0, 0});
    if (HasFailure()) return;
  }
}

// ------------------------------------------------------------------ copy ---

TEST(OpPropertyTest, ToCopyBetweenFloatingAndIntegerTypes) {
  Gen g(kSeed + 9);
  const ScalarType types[] = {ScalarType::Float, ScalarType::Double, ScalarType::Long,
                              ScalarType::Int, ScalarType::Bool};
  for (int c = 0; c < kCasesPerOp * 2; ++c) {
    const ScalarType from = types[g.uniform_int(0, 4)];
    const ScalarType to = types[g.uniform_int(0, 4)];
    const Shape s = g.shape();
    SCOPED_TRACE(::testing::Message() << "case " << c << " " << to_string(from) << " -> "
                                      << to_string(to) << shape_text(s));
    // In-range values only: the out-of-range and NaN conversions are pinned
    // by op_to_copy_test with PyTorch's values.
    const std::vector<double> x = g.values(numel_of(s), -1000, 1000, is_integral(from));
    HostTensor in = make(from, s, x);
    HostTensor out = zeros_tensor(to, s);
    KernelRunner r;
    ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(in), r.b(false), r.none(), r.tensor(out)}),
              Error::Ok);
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = as_dtype(x[i], from);
      expected[i] = is_integral(to) && to != ScalarType::Bool ? std::trunc(v) : v;
    }
    expect_matches(out, s, expected, {0, 0});
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
