// Scalar prim ops (symbolic int/float/bool arithmetic) and the library table.
//
// Values arrive as Int, Double or Bool EValues. A Bool operand behaves like
// the Python int 0/1. Int op Int stays Int unless the op is true division;
// any Double operand makes the result Double.
#include "kernels/prim_ops/prim_ops.h"

#include <cmath>
#include <cstdint>

#include "kernels/prim_ops/prim_ops_internal.h"
#include "runtime/kernel/selective_build.h"

namespace etr {
namespace {

// 2^63 as a double: the first value past the int64 range.
constexpr double kTwoPow63 = 9223372036854775808.0;

// A Python number read from an Int, Bool or Double value.
struct Number {
  bool is_double;
  int64_t i;
  double d;
};

Number read_number(const EValue& v) {
  if (v.is_double()) return Number{true, 0, v.to_double()};
  return Number{false, v.scalar_as_int(), 0.0};
}

double as_double(const Number& n) { return n.is_double ? n.d : static_cast<double>(n.i); }

// Converts a double that already holds an integral value (or not) to int64
// by truncation; false for NaN, infinities and values outside int64.
bool checked_to_int64(double v, int64_t* out) {
  if (!(v >= -kTwoPow63 && v < kTwoPow63)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

// Python round(): nearest integer, ties to even.
double round_half_even(double x) {
  double r = std::floor(x);
  const double diff = x - r;  // exact for finite x
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

enum class BinOp : uint8_t { Add, Sub, Mul, FloorDiv, TrueDiv, Mod, Max, Min };

// Python semantics on int64; false (after logging, naming `name`) when
// Python would raise or the exact result does not fit int64.
bool int_binary(const char* name, BinOp op, int64_t a, int64_t b, int64_t* out) {
  bool overflow = false;
  switch (op) {
    case BinOp::Add: overflow = __builtin_add_overflow(a, b, out); break;
    case BinOp::Sub: overflow = __builtin_sub_overflow(a, b, out); break;
    case BinOp::Mul: overflow = __builtin_mul_overflow(a, b, out); break;
    case BinOp::Max: *out = b > a ? b : a; break;
    case BinOp::Min: *out = b < a ? b : a; break;
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      if (b == 0) {
        ETR_LOG(Error, "%s: integer division by zero", name);
        return false;
      }
      if (b == -1) {
        // Avoids INT64_MIN / -1; x // -1 == -x and x % -1 == 0.
        if (op == BinOp::Mod) {
          *out = 0;
          break;
        }
        overflow = __builtin_sub_overflow(int64_t{0}, a, out);
        break;
      }
      int64_t q = a / b;
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      *out = op == BinOp::Mod ? r : q;
      break;
    }
    case BinOp::TrueDiv: return false;  // always computed in double
  }
  if (overflow) {
    ETR_LOG(Error, "%s: int64 overflow (%lld, %lld)", name, static_cast<long long>(a),
            static_cast<long long>(b));
    return false;
  }
  return true;
}

// Python float floor division and modulo (the result pair of divmod).
void float_divmod(double a, double b, double* quotient, double* remainder) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0.0) != (mod < 0.0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  *quotient = floordiv;
  *remainder = mod;
}

bool double_binary(const char* name, BinOp op, double a, double b, double* out) {
  switch (op) {
    case BinOp::Add: *out = a + b; return true;
    case BinOp::Sub: *out = a - b; return true;
    case BinOp::Mul: *out = a * b; return true;
    case BinOp::Max: *out = b > a ? b : a; return true;
    case BinOp::Min: *out = b < a ? b : a; return true;
    case BinOp::FloorDiv:
    case BinOp::Mod:
    case BinOp::TrueDiv: break;
  }
  if (b == 0.0) {
    ETR_LOG(Error, "%s: float division by zero", name);
    return false;
  }
  if (op == BinOp::TrueDiv) {
    *out = a / b;
    return true;
  }
  double q = 0.0;
  double r = 0.0;
  float_divmod(a, b, &q, &r);
  *out = op == BinOp::Mod ? r : q;
  return true;
}

// [a, b, result]
template <BinOp Op>
void binary_scalar(KernelContext& ctx, EValue* const* args) {
  const Number a = read_number(*args[0]);
  const Number b = read_number(*args[1]);
  if (Op != BinOp::TrueDiv && !a.is_double && !b.is_double) {
    int64_t r = 0;
    if (!int_binary(ctx.op_name(), Op, a.i, b.i, &r)) {
      ctx.fail(Error::InvalidArgument);
      return;
    }
    args[2]->set_int(r);
    return;
  }
  double r = 0.0;
  if (!double_binary(ctx.op_name(), Op, as_double(a), as_double(b), &r)) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  args[2]->set_double(r);
}

enum class Order : uint8_t { Less, Equal, Greater, Unordered };

template <typename T>
Order order_of(T a, T b) {
  if (a < b) return Order::Less;
  if (a > b) return Order::Greater;
  if (a == b) return Order::Equal;
  return Order::Unordered;
}

// Exact order of an int64 relative to a double (no rounding of the int).
Order order_int_double(int64_t i, double d) {
  if (std::isnan(d)) return Order::Unordered;
  if (d >= kTwoPow63) return Order::Less;
  if (d < -kTwoPow63) return Order::Greater;
  const double t = std::trunc(d);
  const Order whole = order_of(i, static_cast<int64_t>(t));
  if (whole != Order::Equal) return whole;
  const double frac = d - t;
  return frac > 0.0 ? Order::Less : frac < 0.0 ? Order::Greater : Order::Equal;
}

Order compare(const Number& a, const Number& b) {
  if (!a.is_double && !b.is_double) return order_of(a.i, b.i);
  if (a.is_double && b.is_double) return order_of(a.d, b.d);
  if (!a.is_double) return order_int_double(a.i, b.d);
  const Order o = order_int_double(b.i, a.d);
  return o == Order::Less ? Order::Greater : o == Order::Greater ? Order::Less : o;
}

enum class CmpOp : uint8_t { Eq, Gt, Lt, Ge, Le };

// [a, b, result]: result is Bool.
template <CmpOp Op>
void compare_scalar(KernelContext& ctx, EValue* const* args) {
  (void)ctx;
  const Order o = compare(read_number(*args[0]), read_number(*args[1]));
  bool r = false;
  switch (Op) {
    case CmpOp::Eq: r = o == Order::Equal; break;
    case CmpOp::Gt: r = o == Order::Greater; break;
    case CmpOp::Lt: r = o == Order::Less; break;
    case CmpOp::Ge: r = o == Order::Greater || o == Order::Equal; break;
    case CmpOp::Le: r = o == Order::Less || o == Order::Equal; break;
  }
  args[2]->set_bool(r);
}

// [a, result]
void neg_scalar(KernelContext& ctx, EValue* const* args) {
  const Number a = read_number(*args[0]);
  if (a.is_double) {
    args[1]->set_double(-a.d);
    return;
  }
  int64_t r = 0;
  ETR_KERNEL_CHECK(ctx, !__builtin_sub_overflow(int64_t{0}, a.i, &r), Error::InvalidArgument,
                   "%s: int64 overflow negating %lld", ctx.op_name(), static_cast<long long>(a.i));
  args[1]->set_int(r);
}

// [a, result]
void sym_float_scalar(KernelContext& ctx, EValue* const* args) {
  (void)ctx;
  args[1]->set_double(as_double(read_number(*args[0])));
}

enum class Rounding : uint8_t { Trunc, Ceil, Round };

// [a, result]: Double -> Int by the rounding mode; Int (or Bool) passes
// through as Int. sym_int is Trunc (Python int(x)).
template <Rounding Mode>
void to_int_scalar(KernelContext& ctx, EValue* const* args) {
  const Number a = read_number(*args[0]);
  if (!a.is_double) {
    args[1]->set_int(a.i);
    return;
  }
  const double v = Mode == Rounding::Trunc  ? std::trunc(a.d)
                   : Mode == Rounding::Ceil ? std::ceil(a.d)
                                            : round_half_even(a.d);
  int64_t r = 0;
  ETR_KERNEL_CHECK(ctx, checked_to_int64(v, &r), Error::InvalidArgument,
                   "%s: %g cannot be converted to int64", ctx.op_name(), a.d);
  args[1]->set_int(r);
}

void sym_int_scalar(KernelContext& ctx, EValue* const* args) {
  to_int_scalar<Rounding::Trunc>(ctx, args);
}

// The truth of a Bool argument. The exporter may store a comparison's
// result over an Int placeholder, so at load the slot can hold any scalar
// kind (accept_call lets run-time scalars through): nonzero is true.
bool truth(const EValue& v) { return v.is_bool() ? v.to_bool() : v.scalar_as_double() != 0.0; }

// [a, result]: a is Bool.
void sym_not_scalar(KernelContext& ctx, EValue* const* args) {
  (void)ctx;
  args[1]->set_bool(!truth(*args[0]));
}

// [cond, then, else, result]
void sym_ite_scalar(KernelContext& ctx, EValue* const* args) {
  const EValue& src = truth(*args[0]) ? *args[1] : *args[2];
  switch (src.tag()) {
    case Tag::Int: args[3]->set_int(src.to_int()); return;
    case Tag::Double: args[3]->set_double(src.to_double()); return;
    case Tag::Bool: args[3]->set_bool(src.to_bool()); return;
    default: break;
  }
  ETR_LOG(Error, "%s: branch value is %s, expected a scalar", ctx.op_name(), to_string(src.tag()));
  ctx.fail(Error::InvalidType);
}

// Argument kinds, return slot included. The return slot accepts anything:
// the exporter seeds it with a placeholder of whatever kind.
constexpr ArgKind kBinaryScalar[] = {ArgKind::Scalar, ArgKind::Scalar, ArgKind::Any};
constexpr ArgKind kBinaryInt[] = {ArgKind::Int, ArgKind::Int, ArgKind::Any};
constexpr ArgKind kUnaryScalar[] = {ArgKind::Scalar, ArgKind::Any};
constexpr ArgKind kUnaryBool[] = {ArgKind::Bool, ArgKind::Any};
constexpr ArgKind kIte[] = {ArgKind::Bool, ArgKind::Scalar, ArgKind::Scalar, ArgKind::Any};
constexpr ArgKind kSymSize[] = {ArgKind::Tensor, ArgKind::Int, ArgKind::Any};
constexpr ArgKind kTensorQuery[] = {ArgKind::Tensor, ArgKind::Any};
// No return slot for these two (the exporter emits exactly three args).
constexpr ArgKind kCopyIndex[] = {ArgKind::MutableTensor, ArgKind::Tensor, ArgKind::Int};
constexpr ArgKind kView[] = {ArgKind::Tensor, ArgKind::IntList, ArgKind::MutableTensor};

// Dtypes of the tensor arguments: none for the scalar ops; the shape
// queries, et_copy_index and et_view only read metadata or move bytes, so
// any dtype; _local_scalar_dense reads the dtypes of its switch.
constexpr DtypeSet kNoTensors = DtypeSet();
constexpr DtypeSet kScalarDenseTypes =
    kRealAndBoolTypes | DtypeSet::of(ScalarType::UInt16, ScalarType::UInt32, ScalarType::UInt64,
                                     ScalarType::Half, ScalarType::BFloat16);

template <size_t N>
constexpr KernelEntry raw(const char* name, KernelFn fn, const ArgKind (&kinds)[N], DtypeSet dtypes,
                          uint8_t flags = 0) {
  return make_raw_kernel(name, fn, kinds, static_cast<uint16_t>(N), dtypes, flags);
}

constexpr KernelEntry kPrimOps[] = {
    raw("aten::sym_size.int", &internal::prim_sym_size, kSymSize, kAllTypes),
    raw("aten::_local_scalar_dense", &internal::prim_local_scalar_dense, kTensorQuery,
        kScalarDenseTypes),
    raw("aten::sym_numel", &internal::prim_sym_numel, kTensorQuery, kAllTypes),
    raw("executorch_prim::sym_max.Scalar", &binary_scalar<BinOp::Max>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::sym_min.Scalar", &binary_scalar<BinOp::Min>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::add.Scalar", &binary_scalar<BinOp::Add>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::sub.Scalar", &binary_scalar<BinOp::Sub>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::mul.Scalar", &binary_scalar<BinOp::Mul>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::floordiv.Scalar", &binary_scalar<BinOp::FloorDiv>, kBinaryScalar,
        kNoTensors),
    raw("executorch_prim::truediv.Scalar", &binary_scalar<BinOp::TrueDiv>, kBinaryScalar,
        kNoTensors),
    raw("executorch_prim::sym_float.Scalar", &sym_float_scalar, kUnaryScalar, kNoTensors),
    raw("executorch_prim::sym_int.Scalar", &sym_int_scalar, kUnaryScalar, kNoTensors),
    raw("executorch_prim::eq.Scalar", &compare_scalar<CmpOp::Eq>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::gt.Scalar", &compare_scalar<CmpOp::Gt>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::lt.Scalar", &compare_scalar<CmpOp::Lt>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::ge.Scalar", &compare_scalar<CmpOp::Ge>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::le.Scalar", &compare_scalar<CmpOp::Le>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::neg.Scalar", &neg_scalar, kUnaryScalar, kNoTensors),
    raw("executorch_prim::sym_not.Scalar", &sym_not_scalar, kUnaryBool, kNoTensors),
    raw("executorch_prim::sym_ite.Scalar", &sym_ite_scalar, kIte, kNoTensors),
    raw("executorch_prim::floordiv.int", &binary_scalar<BinOp::FloorDiv>, kBinaryInt, kNoTensors),
    raw("executorch_prim::mod.int", &binary_scalar<BinOp::Mod>, kBinaryInt, kNoTensors),
    raw("executorch_prim::mod.Scalar", &binary_scalar<BinOp::Mod>, kBinaryScalar, kNoTensors),
    raw("executorch_prim::ceil.Scalar", &to_int_scalar<Rounding::Ceil>, kUnaryScalar, kNoTensors),
    raw("executorch_prim::round.Scalar", &to_int_scalar<Rounding::Round>, kUnaryScalar, kNoTensors),
    raw("executorch_prim::trunc.Scalar", &to_int_scalar<Rounding::Trunc>, kUnaryScalar, kNoTensors),
    raw("executorch_prim::et_copy_index.tensor", &internal::prim_et_copy_index, kCopyIndex,
        kAllTypes),
    raw("executorch_prim::et_view.default", &internal::prim_et_view, kView, kAllTypes,
        kKernelBindsOutputs),
};

static_assert(sizeof(kPrimOps) / sizeof(kPrimOps[0]) == 28, "every prim op of the format");

// All of them but in a selective build (runtime/kernel/selective_build.h),
// sorted by name hash so that the registry bisects instead of scanning.
constexpr auto kSelectedPrimOps =
    sorted_by_hash(select_kernels<count_selected(kPrimOps)>(kPrimOps));

}  // namespace

Span<const KernelEntry> prim_ops_kernels() {
  return {kSelectedPrimOps.data(), kSelectedPrimOps.size()};
}

KernelLibrary prim_ops_library() {
  return KernelLibrary{"prim", kPortablePriority, prim_ops_kernels()};
}

}  // namespace etr
