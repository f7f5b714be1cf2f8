// Tests for the prim op library. Kernels are looked up by name in
// prim_ops_kernels() and called the way the executor calls them (a value
// pointer per argument, return slot included) after the same kind check.
// Expected values follow Python semantics.
#include "kernels/prim_ops/prim_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/kernel/registry.h"

namespace etr {
namespace {

// A tensor owning its storage; `capacity` elements are allocated (at least
// numel) so a dynamic tensor can grow.
struct OwnedTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int64_t> strides;
  std::vector<uint8_t> bytes;
  Tensor t;

  template <typename T>
  static std::unique_ptr<OwnedTensor> make(ScalarType dtype, std::vector<int32_t> s,
                                           std::vector<T> values,
                                           ShapeDynamism dyn = ShapeDynamism::Static,
                                           size_t capacity_elems = 0) {
    auto o = std::make_unique<OwnedTensor>();
    o->sizes = std::move(s);
    for (size_t i = 0; i < o->sizes.size(); ++i) o->dim_order.push_back(static_cast<uint8_t>(i));
    o->strides.assign(o->sizes.size() + 1, 0);
    const size_t cap = std::max(values.size(), capacity_elems);
    o->bytes.assign(cap * sizeof(T) + 1, 0);
    if (!values.empty()) std::memcpy(o->bytes.data(), values.data(), values.size() * sizeof(T));
    o->t = Tensor(dtype, o->sizes.size(), o->sizes.data(), o->dim_order.data(), o->strides.data(),
                  o->bytes.data(), dyn);
    o->t.set_capacity(cap * sizeof(T));
    return o;
  }
  template <typename T>
  std::vector<T> values() const {
    std::vector<T> out(static_cast<size_t>(t.numel()));
    std::memcpy(out.data(), t.const_data(), out.size() * sizeof(T));
    return out;
  }
};

class PrimOpsTest : public ::testing::Test {
 protected:
  EValue* i(int64_t v) { return add(EValue(v)); }
  EValue* d(double v) { return add(EValue(v)); }
  EValue* b(bool v) { return add(EValue(v)); }
  EValue* none() { return add(EValue()); }
  EValue* tensor(OwnedTensor& o) { return add(EValue(&o.t)); }
  EValue* int_list(std::vector<int64_t> v) {
    auto& items = items_.emplace_back();
    for (int64_t x : v) items.push_back(i(x));
    auto& scratch = scratch_.emplace_back(v.size());
    return add(EValue(BoxedIntList(items.data(), scratch.data(), v.size())));
  }

  // Runs kernel `name` on exactly `args` (return slot included).
  Error run(const char* name, std::vector<EValue*> args) {
    const KernelEntry* e = find(name);
    if (e == nullptr) {
      ADD_FAILURE() << "no prim op named " << name;
      return Error::OperatorMissing;
    }
    EXPECT_EQ(args.size(), e->num_args) << name;
    if (args.size() != e->num_args) return Error::InvalidProgram;
    for (size_t k = 0; k < args.size(); ++k) {
      EXPECT_TRUE(arg_kind_accepts(e->arg_kinds[k], args[k]->tag()))
          << name << " arg " << k << " expects " << to_string(e->arg_kinds[k]) << ", got "
          << to_string(args[k]->tag());
    }
    KernelContext ctx;
    e->fn(ctx, args.data());
    return ctx.failure_state();
  }

  // Binary op on two values; returns the result slot.
  EValue bin(const char* name, EValue* a, EValue* bv, Error expected = Error::Ok) {
    EValue* out = i(0);
    EXPECT_EQ(run(name, {a, bv, out}), expected) << name;
    return *out;
  }
  EValue un(const char* name, EValue* a, Error expected = Error::Ok) {
    EValue* out = i(0);
    EXPECT_EQ(run(name, {a, out}), expected) << name;
    return *out;
  }

  static const KernelEntry* find(const char* name) {
    return find_kernel_entry(prim_ops_kernels(), name);
  }

 private:
  EValue* add(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }
  std::deque<EValue> values_;
  std::deque<std::vector<EValue*>> items_;
  std::deque<std::vector<int64_t>> scratch_;
};

void expect_int(const EValue& v, int64_t expected) {
  ASSERT_TRUE(v.is_int()) << "tag " << to_string(v.tag());
  EXPECT_EQ(v.to_int(), expected);
}
void expect_double(const EValue& v, double expected) {
  ASSERT_TRUE(v.is_double()) << "tag " << to_string(v.tag());
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(v.to_double()));
  } else {
    EXPECT_DOUBLE_EQ(v.to_double(), expected);
  }
}
void expect_bool(const EValue& v, bool expected) {
  ASSERT_TRUE(v.is_bool()) << "tag " << to_string(v.tag());
  EXPECT_EQ(v.to_bool(), expected);
}

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST_F(PrimOpsTest, TableHasEveryFormatOpOnceAndRegisters) {
  const char* names[] = {"aten::sym_size.int",
                         "aten::_local_scalar_dense",
                         "aten::sym_numel",
                         "executorch_prim::sym_max.Scalar",
                         "executorch_prim::sym_min.Scalar",
                         "executorch_prim::add.Scalar",
                         "executorch_prim::sub.Scalar",
                         "executorch_prim::mul.Scalar",
                         "executorch_prim::floordiv.Scalar",
                         "executorch_prim::truediv.Scalar",
                         "executorch_prim::sym_float.Scalar",
                         "executorch_prim::sym_int.Scalar",
                         "executorch_prim::eq.Scalar",
                         "executorch_prim::gt.Scalar",
                         "executorch_prim::lt.Scalar",
                         "executorch_prim::ge.Scalar",
                         "executorch_prim::le.Scalar",
                         "executorch_prim::neg.Scalar",
                         "executorch_prim::sym_not.Scalar",
                         "executorch_prim::sym_ite.Scalar",
                         "executorch_prim::floordiv.int",
                         "executorch_prim::mod.int",
                         "executorch_prim::mod.Scalar",
                         "executorch_prim::ceil.Scalar",
                         "executorch_prim::round.Scalar",
                         "executorch_prim::trunc.Scalar",
                         "executorch_prim::et_copy_index.tensor",
                         "executorch_prim::et_view.default"};
  EXPECT_EQ(prim_ops_kernels().size(), sizeof(names) / sizeof(names[0]));
  for (const char* n : names) EXPECT_NE(find(n), nullptr) << n;
  KernelRegistry registry;
  EXPECT_EQ(registry.add(prim_ops_library()), Error::Ok);
  EXPECT_EQ(registry.num_kernels(), 28u);
  EXPECT_EQ(registry.add(prim_ops_library()), Error::RegistrationAlreadyRegistered);
}

TEST_F(PrimOpsTest, ArgCountsMatchTheExporter) {
  EXPECT_EQ(find("aten::sym_size.int")->num_args, 3);
  EXPECT_EQ(find("aten::sym_numel")->num_args, 2);
  EXPECT_EQ(find("aten::_local_scalar_dense")->num_args, 2);
  EXPECT_EQ(find("executorch_prim::add.Scalar")->num_args, 3);
  EXPECT_EQ(find("executorch_prim::neg.Scalar")->num_args, 2);
  EXPECT_EQ(find("executorch_prim::sym_ite.Scalar")->num_args, 4);
  // No trailing return slot for these two.
  EXPECT_EQ(find("executorch_prim::et_copy_index.tensor")->num_args, 3);
  EXPECT_EQ(find("executorch_prim::et_view.default")->num_args, 3);
}

TEST_F(PrimOpsTest, AddSubMulKeepIntsAndPromoteToDouble) {
  expect_int(bin("executorch_prim::add.Scalar", i(3), i(4)), 7);
  expect_int(bin("executorch_prim::sub.Scalar", i(3), i(4)), -1);
  expect_int(bin("executorch_prim::mul.Scalar", i(3), i(4)), 12);
  expect_double(bin("executorch_prim::add.Scalar", i(3), d(0.5)), 3.5);
  expect_double(bin("executorch_prim::sub.Scalar", d(3.5), i(1)), 2.5);
  expect_double(bin("executorch_prim::mul.Scalar", d(1.5), d(2.0)), 3.0);
  expect_int(bin("executorch_prim::add.Scalar", b(true), i(1)), 2);  // True + 1 == 2
}

TEST_F(PrimOpsTest, ResultSlotMayAliasAnInput) {
  // The map-loop lowering increments its counter in place: add(i, 1) -> i.
  EValue* counter = i(5);
  ASSERT_EQ(run("executorch_prim::add.Scalar", {counter, i(1), counter}), Error::Ok);
  expect_int(*counter, 6);
}

TEST_F(PrimOpsTest, IntOverflowFailsInsteadOfWrapping) {
  bin("executorch_prim::add.Scalar", i(kMax), i(1), Error::InvalidArgument);
  bin("executorch_prim::sub.Scalar", i(kMin), i(1), Error::InvalidArgument);
  bin("executorch_prim::mul.Scalar", i(kMax / 2 + 1), i(2), Error::InvalidArgument);
  bin("executorch_prim::floordiv.Scalar", i(kMin), i(-1), Error::InvalidArgument);
  un("executorch_prim::neg.Scalar", i(kMin), Error::InvalidArgument);
  expect_int(bin("executorch_prim::mod.Scalar", i(kMin), i(-1)), 0);
  expect_int(bin("executorch_prim::floordiv.int", i(kMin + 1), i(-1)), kMax);
}

TEST_F(PrimOpsTest, FloorDivAndModFollowPython) {
  struct Case {
    int64_t a, b, q, r;
  };
  const Case cases[] = {{7, 2, 3, 1},   {-7, 2, -4, 1},        {7, -2, -4, -1}, {-7, -2, 3, -1},
                        {6, 3, 2, 0},   {-6, 3, -2, 0},        {0, 5, 0, 0},    {1, 7, 0, 1},
                        {-1, 7, -1, 6}, {kMin, 2, kMin / 2, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.a << " // " << c.b);
    expect_int(bin("executorch_prim::floordiv.Scalar", i(c.a), i(c.b)), c.q);
    expect_int(bin("executorch_prim::floordiv.int", i(c.a), i(c.b)), c.q);
    expect_int(bin("executorch_prim::mod.Scalar", i(c.a), i(c.b)), c.r);
    expect_int(bin("executorch_prim::mod.int", i(c.a), i(c.b)), c.r);
  }
}

TEST_F(PrimOpsTest, FloatFloorDivAndModFollowPython) {
  expect_double(bin("executorch_prim::floordiv.Scalar", d(7.5), i(2)), 3.0);
  expect_double(bin("executorch_prim::floordiv.Scalar", d(-7.5), i(2)), -4.0);
  expect_double(bin("executorch_prim::floordiv.Scalar", i(7), d(-2.0)), -4.0);
  expect_double(bin("executorch_prim::mod.Scalar", d(-7.5), i(2)), 0.5);
  expect_double(bin("executorch_prim::mod.Scalar", d(7.5), d(-2.0)), -0.5);
  expect_double(bin("executorch_prim::mod.Scalar", d(-1e-20), d(1.0)), 1.0);  // Python: 1.0
  const EValue z = bin("executorch_prim::mod.Scalar", d(-4.0), d(2.0));
  expect_double(z, 0.0);
  EXPECT_FALSE(std::signbit(z.to_double()));  // sign of the divisor
}

TEST_F(PrimOpsTest, DivisionByZeroFails) {
  bin("executorch_prim::floordiv.Scalar", i(1), i(0), Error::InvalidArgument);
  bin("executorch_prim::floordiv.int", i(1), i(0), Error::InvalidArgument);
  bin("executorch_prim::mod.int", i(1), i(0), Error::InvalidArgument);
  bin("executorch_prim::mod.Scalar", d(1.0), d(0.0), Error::InvalidArgument);
  bin("executorch_prim::floordiv.Scalar", d(1.0), i(0), Error::InvalidArgument);
  bin("executorch_prim::truediv.Scalar", i(1), i(0), Error::InvalidArgument);
  bin("executorch_prim::truediv.Scalar", d(1.0), d(-0.0), Error::InvalidArgument);
}

TEST_F(PrimOpsTest, TrueDivIsAlwaysDouble) {
  expect_double(bin("executorch_prim::truediv.Scalar", i(3), i(4)), 0.75);
  expect_double(bin("executorch_prim::truediv.Scalar", i(8), i(2)), 4.0);
  expect_double(bin("executorch_prim::truediv.Scalar", d(1.0), i(4)), 0.25);
}

TEST_F(PrimOpsTest, SymMaxMin) {
  expect_int(bin("executorch_prim::sym_max.Scalar", i(3), i(-4)), 3);
  expect_int(bin("executorch_prim::sym_min.Scalar", i(3), i(-4)), -4);
  expect_double(bin("executorch_prim::sym_max.Scalar", i(3), d(4.5)), 4.5);
  expect_double(bin("executorch_prim::sym_min.Scalar", i(3), d(4.5)), 3.0);
}

TEST_F(PrimOpsTest, ComparisonsReturnBool) {
  expect_bool(bin("executorch_prim::eq.Scalar", i(3), i(3)), true);
  expect_bool(bin("executorch_prim::eq.Scalar", i(3), d(3.0)), true);
  expect_bool(bin("executorch_prim::eq.Scalar", b(true), i(1)), true);
  expect_bool(bin("executorch_prim::eq.Scalar", b(true), b(false)), false);
  expect_bool(bin("executorch_prim::gt.Scalar", i(4), i(3)), true);
  expect_bool(bin("executorch_prim::gt.Scalar", i(3), d(3.5)), false);
  expect_bool(bin("executorch_prim::lt.Scalar", i(3), d(3.5)), true);
  expect_bool(bin("executorch_prim::ge.Scalar", d(3.0), i(3)), true);
  expect_bool(bin("executorch_prim::le.Scalar", i(4), i(3)), false);
  // Exact int/float comparison: 2^53 + 1 is not equal to 2^53 as a double.
  const int64_t big = (int64_t{1} << 53) + 1;
  expect_bool(bin("executorch_prim::eq.Scalar", i(big), d(9007199254740992.0)), false);
  expect_bool(bin("executorch_prim::gt.Scalar", i(big), d(9007199254740992.0)), true);
  expect_bool(bin("executorch_prim::lt.Scalar", i(kMax), d(9223372036854775808.0)), true);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_bool(bin("executorch_prim::eq.Scalar", d(nan), d(nan)), false);
  expect_bool(bin("executorch_prim::le.Scalar", i(1), d(nan)), false);
  expect_bool(bin("executorch_prim::ge.Scalar", d(nan), i(1)), false);
}

TEST_F(PrimOpsTest, NegAndConversions) {
  expect_int(un("executorch_prim::neg.Scalar", i(5)), -5);
  expect_double(un("executorch_prim::neg.Scalar", d(2.5)), -2.5);
  expect_double(un("executorch_prim::sym_float.Scalar", i(3)), 3.0);
  expect_double(un("executorch_prim::sym_float.Scalar", d(3.25)), 3.25);
  expect_int(un("executorch_prim::sym_int.Scalar", d(-3.75)), -3);
  expect_int(un("executorch_prim::sym_int.Scalar", i(9)), 9);
  un("executorch_prim::sym_int.Scalar", d(std::numeric_limits<double>::infinity()),
     Error::InvalidArgument);
  un("executorch_prim::sym_int.Scalar", d(std::nan("")), Error::InvalidArgument);
  un("executorch_prim::sym_int.Scalar", d(9.3e18), Error::InvalidArgument);
}

TEST_F(PrimOpsTest, CeilRoundTrunc) {
  expect_int(un("executorch_prim::ceil.Scalar", d(2.1)), 3);
  expect_int(un("executorch_prim::ceil.Scalar", d(-2.9)), -2);
  expect_int(un("executorch_prim::trunc.Scalar", d(-2.9)), -2);
  expect_int(un("executorch_prim::trunc.Scalar", d(2.9)), 2);
  // Python round(): half to even.
  const double halves[] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, 2.5001};
  const int64_t rounded[] = {0, 2, 2, 0, -2, -2, 2, 3};
  for (size_t k = 0; k < 8; ++k) {
    expect_int(un("executorch_prim::round.Scalar", d(halves[k])), rounded[k]);
  }
  expect_int(un("executorch_prim::round.Scalar", i(7)), 7);
  un("executorch_prim::ceil.Scalar", d(1e300), Error::InvalidArgument);
  un("executorch_prim::round.Scalar", d(std::nan("")), Error::InvalidArgument);
}

TEST_F(PrimOpsTest, SymNotAndIte) {
  expect_bool(un("executorch_prim::sym_not.Scalar", b(true)), false);
  expect_bool(un("executorch_prim::sym_not.Scalar", b(false)), true);
  EValue* out = b(false);
  ASSERT_EQ(run("executorch_prim::sym_ite.Scalar", {b(true), i(4), d(2.5), out}), Error::Ok);
  expect_int(*out, 4);
  ASSERT_EQ(run("executorch_prim::sym_ite.Scalar", {b(false), i(4), d(2.5), out}), Error::Ok);
  expect_double(*out, 2.5);
}

// The exporter stores a comparison's result over an Int placeholder that
// the comparison overwrites with a Bool while the method runs (torch.cond on
// a symbolic size). The loader marks such run-time scalars and accept_call
// lets any scalar kind through for them; the prim ops read their truth.
TEST_F(PrimOpsTest, BoolArgumentsInAnIntPlaceholderReadAsTruth) {
  const KernelEntry* not_op = find("executorch_prim::sym_not.Scalar");
  ASSERT_NE(not_op, nullptr);
  EValue* out = b(false);
  std::vector<EValue*> args = {i(0), out};
  KernelContext ctx;
  not_op->fn(ctx, args.data());
  expect_bool(*out, true);
  args = {i(3), out};
  not_op->fn(ctx, args.data());
  expect_bool(*out, false);
  EXPECT_EQ(ctx.failure_state(), Error::Ok);
  const KernelEntry* ite = find("executorch_prim::sym_ite.Scalar");
  ASSERT_NE(ite, nullptr);
  EValue* res = i(0);
  std::vector<EValue*> ite_args = {i(2), i(4), d(2.5), res};
  ite->fn(ctx, ite_args.data());
  expect_int(*res, 4);
  // Load: an Int where a Bool is declared is refused unless the loader marked
  // the argument as a run-time scalar.
  KernelPrepareContext refused("executorch_prim::sym_not.Scalar", nullptr, nullptr);
  CallMismatch mismatch;
  EXPECT_EQ(accept_call(*not_op, args.data(), args.size(), refused, &mismatch),
            Error::InvalidProgram);
  KernelPrepareContext accepted("executorch_prim::sym_not.Scalar", nullptr, nullptr);
  accepted.set_run_time_scalar_args(1);
  EXPECT_EQ(accept_call(*not_op, args.data(), args.size(), accepted, &mismatch), Error::Ok);
}

TEST_F(PrimOpsTest, SymSizeAndNumel) {
  auto t = OwnedTensor::make<float>(ScalarType::Float, {2, 3, 4}, std::vector<float>(24));
  EValue* out = i(0);
  ASSERT_EQ(run("aten::sym_size.int", {tensor(*t), i(1), out}), Error::Ok);
  expect_int(*out, 3);
  ASSERT_EQ(run("aten::sym_size.int", {tensor(*t), i(-1), out}), Error::Ok);
  expect_int(*out, 4);
  EXPECT_EQ(run("aten::sym_size.int", {tensor(*t), i(3), out}), Error::InvalidArgument);
  EXPECT_EQ(run("aten::sym_size.int", {tensor(*t), i(-4), out}), Error::InvalidArgument);
  EXPECT_EQ(run("aten::sym_size.int", {tensor(*t), i(kMin), out}), Error::InvalidArgument);
  ASSERT_EQ(run("aten::sym_numel", {tensor(*t), out}), Error::Ok);
  expect_int(*out, 24);
}

TEST_F(PrimOpsTest, LocalScalarDenseByDtype) {
  auto f = OwnedTensor::make<float>(ScalarType::Float, {1}, {2.5f});
  expect_double(un("aten::_local_scalar_dense", tensor(*f)), 2.5);
  auto l = OwnedTensor::make<int64_t>(ScalarType::Long, {}, {-9});
  expect_int(un("aten::_local_scalar_dense", tensor(*l)), -9);
  auto c = OwnedTensor::make<int8_t>(ScalarType::Char, {1, 1}, {-3});
  expect_int(un("aten::_local_scalar_dense", tensor(*c)), -3);
  auto bo = OwnedTensor::make<uint8_t>(ScalarType::Bool, {1}, {1});
  expect_bool(un("aten::_local_scalar_dense", tensor(*bo)), true);
  auto h = OwnedTensor::make<uint16_t>(ScalarType::Half, {1}, {0xc100});  // -2.5
  expect_double(un("aten::_local_scalar_dense", tensor(*h)), -2.5);
  auto u = OwnedTensor::make<uint64_t>(ScalarType::UInt64, {1}, {~uint64_t{0}});
  un("aten::_local_scalar_dense", tensor(*u), Error::InvalidArgument);
  auto two = OwnedTensor::make<float>(ScalarType::Float, {2}, {1.0f, 2.0f});
  un("aten::_local_scalar_dense", tensor(*two), Error::InvalidArgument);
}

TEST_F(PrimOpsTest, CopyIndexGrowsADynamicAccumulator) {
  auto acc = OwnedTensor::make<int32_t>(ScalarType::Int, {3, 2}, std::vector<int32_t>(6, -1),
                                        ShapeDynamism::DynamicBound);
  auto row0 = OwnedTensor::make<int32_t>(ScalarType::Int, {2}, {1, 2});
  auto row1 = OwnedTensor::make<int32_t>(ScalarType::Int, {2}, {3, 4});
  const char* op = "executorch_prim::et_copy_index.tensor";
  ASSERT_EQ(run(op, {tensor(*acc), tensor(*row0), i(0)}), Error::Ok);
  EXPECT_EQ(acc->t.size(0), 1);  // restarted at one row
  ASSERT_EQ(run(op, {tensor(*acc), tensor(*row1), i(1)}), Error::Ok);
  EXPECT_EQ(acc->t.size(0), 2);
  EXPECT_EQ(acc->values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  // Past the capacity of three rows.
  EXPECT_EQ(run(op, {tensor(*acc), tensor(*row1), i(3)}), Error::InvalidArgument);
}

TEST_F(PrimOpsTest, CopyIndexIntoStaticTensorAndErrors) {
  auto acc = OwnedTensor::make<float>(ScalarType::Float, {2, 2}, std::vector<float>(4, 0.0f));
  auto row = OwnedTensor::make<float>(ScalarType::Float, {2}, {5.0f, 6.0f});
  const char* op = "executorch_prim::et_copy_index.tensor";
  ASSERT_EQ(run(op, {tensor(*acc), tensor(*row), i(1)}), Error::Ok);
  EXPECT_EQ(acc->values<float>(), (std::vector<float>{0, 0, 5, 6}));
  EXPECT_EQ(run(op, {tensor(*acc), tensor(*row), i(2)}), Error::InvalidArgument);
  EXPECT_EQ(run(op, {tensor(*acc), tensor(*row), i(-1)}), Error::InvalidArgument);
  auto wrong_rank = OwnedTensor::make<float>(ScalarType::Float, {1, 2}, {1.0f, 2.0f});
  EXPECT_EQ(run(op, {tensor(*acc), tensor(*wrong_rank), i(0)}), Error::InvalidArgument);
  auto wrong_width = OwnedTensor::make<float>(ScalarType::Float, {3}, {1.0f, 2.0f, 3.0f});
  EXPECT_EQ(run(op, {tensor(*acc), tensor(*wrong_width), i(0)}), Error::InvalidArgument);
  auto wrong_dtype = OwnedTensor::make<int32_t>(ScalarType::Int, {2}, {1, 2});
  EXPECT_EQ(run(op, {tensor(*acc), tensor(*wrong_dtype), i(0)}), Error::InvalidType);
}

TEST_F(PrimOpsTest, ViewAliasesSelfWithNewSizes) {
  auto self = OwnedTensor::make<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  // An unbound view output: no memory, bounded dynamic sizes.
  auto out = OwnedTensor::make<float>(ScalarType::Float, {6, 1}, std::vector<float>(6),
                                      ShapeDynamism::DynamicBound);
  out->t.set_data(nullptr, 0);
  const char* op = "executorch_prim::et_view.default";
  ASSERT_EQ(run(op, {tensor(*self), int_list({3, -1}), tensor(*out)}), Error::Ok);
  EXPECT_EQ(out->t.const_data(), self->t.const_data());
  EXPECT_EQ(out->t.size(0), 3);
  EXPECT_EQ(out->t.size(1), 2);
  EXPECT_EQ(out->t.stride(0), 2);
  EXPECT_EQ(out->values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(run(op, {tensor(*self), int_list({1, 6}), tensor(*out)}), Error::Ok);
  EXPECT_EQ(out->t.size(1), 6);
}

TEST_F(PrimOpsTest, ViewRejectsBadSizes) {
  auto self = OwnedTensor::make<float>(ScalarType::Float, {2, 3}, std::vector<float>(6));
  auto out = OwnedTensor::make<float>(ScalarType::Float, {3, 2}, std::vector<float>(6),
                                      ShapeDynamism::DynamicBound);
  const char* op = "executorch_prim::et_view.default";
  EXPECT_EQ(run(op, {tensor(*self), int_list({4, 2}), tensor(*out)}), Error::InvalidArgument);
  EXPECT_EQ(run(op, {tensor(*self), int_list({-1, -1}), tensor(*out)}), Error::InvalidArgument);
  EXPECT_EQ(run(op, {tensor(*self), int_list({-1, 4}), tensor(*out)}), Error::InvalidArgument);
  EXPECT_EQ(run(op, {tensor(*self), int_list({-2, -3}), tensor(*out)}), Error::InvalidArgument);
  EXPECT_EQ(run(op, {tensor(*self), int_list({6}), tensor(*out)}), Error::InvalidArgument);
  auto empty = OwnedTensor::make<float>(ScalarType::Float, {0, 3}, std::vector<float>());
  auto out0 = OwnedTensor::make<float>(ScalarType::Float, {0, 3}, std::vector<float>(),
                                       ShapeDynamism::DynamicBound);
  EXPECT_EQ(run(op, {tensor(*empty), int_list({0, -1}), tensor(*out0)}), Error::InvalidArgument);
  auto ints = OwnedTensor::make<int32_t>(ScalarType::Int, {3, 2}, std::vector<int32_t>(6));
  EXPECT_EQ(run(op, {tensor(*self), int_list({3, 2}), tensor(*ints)}), Error::InvalidType);
  // A static output accepts only its own sizes.
  auto fixed = OwnedTensor::make<float>(ScalarType::Float, {3, 2}, std::vector<float>(6));
  EXPECT_EQ(run(op, {tensor(*self), int_list({3, 2}), tensor(*fixed)}), Error::Ok);
  EXPECT_NE(run(op, {tensor(*self), int_list({6, 1}), tensor(*fixed)}), Error::Ok);
}

}  // namespace
}  // namespace etr
