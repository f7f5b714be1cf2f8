// Shared machinery of the portable elementwise, reduction and creation
// kernels:
//   * PyTorch type promotion (promote_types, ResultType; can_cast is in checks.h),
//   * wrapping integer arithmetic (add_wrap ...) and NaN-propagating max/min,
//   * apply_elementwise(): the one broadcasting loop every elementwise op runs,
//   * dispatch_elementwise(): run()'s dtype switch with its safety net.
// Element conversion (convert<To>, scalar_to<T>) is in convert.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---------------------------------------------------------------------------
// Type promotion

// torch.promote_types over the supported dtypes.
ScalarType promote_types(ScalarType a, ScalarType b);

// The dtype of a Scalar when it takes part in promotion: Long, Double or Bool.
ScalarType scalar_dtype(const Scalar& s);

// torch.result_type over several operands: dimensioned tensors outrank 0-d
// tensors, which outrank Python scalars, unless a lower-priority operand is
// of a higher category (bool < integer < floating). A floating scalar counts
// as the default dtype, Float.
class ResultType final {
 public:
  ResultType& add(const Tensor& t);
  ResultType& add(const Scalar& s);
  // Float when nothing was added.
  ScalarType get() const;

 private:
  std::optional<ScalarType> dim_;
  std::optional<ScalarType> zero_dim_;
  std::optional<ScalarType> scalar_;
};

inline ScalarType result_type(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return a.dtype();
  return ResultType().add(a).add(b).get();
}
inline ScalarType result_type(const Tensor& a, const Scalar& b) {
  return ResultType().add(a).add(b).get();
}

// The dtype a floating-valued op computes in: `t` when floating, else Float
// (PyTorch's int-to-float promotion).
constexpr ScalarType float_compute_type(ScalarType t) {
  return is_floating(t) ? t : ScalarType::Float;
}

// Domain checks on a promoted dtype (they name it "result type").
// InvalidType when `common` is bool.
[[nodiscard]] Error check_not_bool(const char* op, ScalarType common);
// InvalidType unless `common` is integral or bool.
[[nodiscard]] Error check_integral_or_bool(const char* op, ScalarType common);

// ---------------------------------------------------------------------------
// Wrapping integer arithmetic (PyTorch wraps on overflow; signed overflow is
// UB in C++, so integers go through unsigned arithmetic). bool: add is "or",
// mul is "and". Floating types use plain arithmetic.

namespace internal {
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
}  // namespace internal

template <typename T>
T add_wrap(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a || b;
  } else if constexpr (std::is_integral<T>::value) {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
T sub_wrap(T a, T b) {
  if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}

template <typename T>
T mul_wrap(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a && b;
  } else if constexpr (std::is_integral<T>::value) {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

template <typename T>
T neg_wrap(T a) {
  return sub_wrap(T(0), a);
}

// max(a, b) and min(a, b) where a NaN operand wins (the first one when both
// are NaN); on ties `a`. bool: or / and.
template <typename T>
T max_propagate_nan(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return a < b ? b : a;
}
template <typename T>
T min_propagate_nan(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return b < a ? b : a;
}

// ---------------------------------------------------------------------------
// The elementwise loop

// An input of apply_elementwise, read (and converted) as element type CT.
template <typename CT>
struct ReadAs {
  const Tensor& tensor;
};
template <typename CT>
ReadAs<CT> read_as(const Tensor& t) {
  return ReadAs<CT>{t};
}

namespace internal {

template <typename CT>
using LoadFn = CT (*)(const void*, int64_t);
template <typename R>
using StoreFn = void (*)(void*, int64_t, R);

template <typename CT, typename S>
CT load_elem(const void* base, int64_t i) {
  if constexpr (std::is_same<S, bool>::value) {
    // Read bool storage as bytes so that a byte other than 0/1 is not UB.
    return convert<CT>(static_cast<const uint8_t*>(base)[i] != 0);
  } else {
    return convert<CT>(static_cast<const S*>(base)[i]);
  }
}

template <typename R, typename D>
void store_elem(void* base, int64_t i, R v) {
  static_cast<D*>(base)[i] = convert<D>(v);
}

template <typename CT>
LoadFn<CT> load_fn(ScalarType t) {
  LoadFn<CT> fn = nullptr;
  dispatch_real_and_bool(t, [&](auto tag) { fn = &load_elem<CT, typename decltype(tag)::type>; });
  return fn;
}

template <typename R>
StoreFn<R> store_fn(ScalarType t) {
  StoreFn<R> fn = nullptr;
  dispatch_real_and_bool(t, [&](auto tag) { fn = &store_elem<R, typename decltype(tag)::type>; });
  return fn;
}

template <typename Op, size_t... K, typename... CTs>
bool apply_impl(Tensor& out, Op& op, std::index_sequence<K...>, ReadAs<CTs>... ins) {
  constexpr size_t N = sizeof...(CTs) + 1;
  using R = decltype(op(CTs{}...));
  // Bool inputs take the loading path, which reads their bytes as uint8 != 0:
  // a hostile program can alias a Bool tensor with other data, and reading
  // a byte other than 0 or 1 as bool is undefined.
  const bool typed = out.dtype() == scalar_type_of<R>() &&
                     ((ins.tensor.dtype() == scalar_type_of<CTs>()) && ...) &&
                     !(std::is_same<CTs, bool>::value || ...);
  // The common case first: every operand has out's shape and strides.
  if (typed && (same_layout(ins.tensor, out) && ...)) {
    R* o = out.data_ptr<R>();
    const std::tuple<const CTs*...> p{ins.tensor.template const_data_ptr<CTs>()...};
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) o[i] = op(std::get<K>(p)[i]...);
    return true;
  }
  int64_t strides[N][kTensorMaxDim];
  broadcast_strides(out, out.sizes(), strides[0]);
  (broadcast_strides(ins.tensor, out.sizes(), strides[K + 1]), ...);
  if (typed) {
    R* o = out.data_ptr<R>();
    const std::tuple<const CTs*...> p{ins.tensor.template const_data_ptr<CTs>()...};
    if (same_strides(strides, out.dim())) {
      const int64_t n = out.numel();
      for (int64_t i = 0; i < n; ++i) o[i] = op(std::get<K>(p)[i]...);
      return true;
    }
    for_each_offset<N>(out.sizes(), strides,
                       [&](const int64_t* off) { o[off[0]] = op(std::get<K>(p)[off[K + 1]]...); });
    return true;
  }
  const std::tuple<LoadFn<CTs>...> loads{load_fn<CTs>(ins.tensor.dtype())...};
  const StoreFn<R> store = store_fn<R>(out.dtype());
  if (store == nullptr || ((std::get<K>(loads) == nullptr) || ...)) return false;
  const void* data[N - 1] = {ins.tensor.const_data()...};
  void* o = out.mutable_data();
  for_each_offset<N>(out.sizes(), strides, [&](const int64_t* off) {
    store(o, off[0], op(std::get<K>(loads)(data[K], off[K + 1])...));
  });
  return true;
}

}  // namespace internal

// out[i] = op(in_0[i], ...) for every element of out, where each input is
// broadcast to out's shape and read as its CT; op's result is converted to
// out's dtype. Precondition: out already has the broadcast shape (see
// resize_to_broadcast). Any dim order works; the loop is flat when all
// operands share one layout. Returns false (writing nothing) when some
// operand's dtype is not one of kRealAndBoolTypes.
template <typename Op, typename... CTs>
[[nodiscard]] bool apply_elementwise(Tensor& out, Op op, ReadAs<CTs>... ins) {
  static_assert(sizeof...(CTs) >= 1, "apply_elementwise needs at least one input");
  return internal::apply_impl(out, op, std::index_sequence_for<CTs...>{}, ins...);
}

// Which dtypes dispatch_elementwise switches over.
enum class ComputeTypes { kRealAndBool, kReal, kFloating };

// The dtype switch of an elementwise run(): calls fn(TypeTag<CT>) for the
// compute type `dtype`; fn returns apply_elementwise's result. A dtype
// outside `Types` (or an operand apply_elementwise cannot read) is the
// safety net's Error::Internal (load refuses such calls before run).
//   ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), common, [&](auto tag) {
//     using CT = typename decltype(tag)::type;
//     return apply_elementwise(out, fn, read_as<CT>(self));
//   }));
template <ComputeTypes Types = ComputeTypes::kRealAndBool, typename F>
[[nodiscard]] Error dispatch_elementwise(const char* op, ScalarType dtype, F&& fn) {
  bool applied = false;
  auto call = [&](auto tag) { applied = fn(tag); };
  bool known = false;
  if constexpr (Types == ComputeTypes::kRealAndBool) {
    known = dispatch_real_and_bool(dtype, call);
  } else if constexpr (Types == ComputeTypes::kReal) {
    known = dispatch_real(dtype, call);
  } else {
    known = dispatch_floating(dtype, call);
  }
  return check_dispatched(op, known && applied, dtype);
}

// run() of a unary op computed in self's dtype: resizes out like self and
// writes fn(x) (fn generic over the element type) cast to out's dtype.
template <ComputeTypes Types = ComputeTypes::kRealAndBool, typename Fn>
void unary_elementwise(KernelContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise<Types>(ctx.op_name(), self.dtype(), [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   return apply_elementwise(
                       out, [fn](CT x) -> CT { return fn(x); }, read_as<CT>(self));
                 }));
}

// run() of a broadcasting binary op computed in `common` (the promoted
// dtype, or what the op computes in): resizes out to the broadcast shape and
// writes fn(x, y) (fn generic over the element type) cast to out's dtype.
template <ComputeTypes Types = ComputeTypes::kRealAndBool, typename Fn>
void binary_elementwise(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out,
                        ScalarType common, Fn fn) {
  const Tensor* ins[] = {&self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise<Types>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   return apply_elementwise(
                       out, [fn](CT x, CT y) { return fn(x, y); }, read_as<CT>(self),
                       read_as<CT>(other));
                 }));
}

// The same with a Scalar second operand, converted once to `common`.
template <ComputeTypes Types = ComputeTypes::kRealAndBool, typename Fn>
void binary_scalar_elementwise(KernelContext& ctx, const Tensor& self, const Scalar& other,
                               Tensor& out, ScalarType common, Fn fn) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise<Types>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const CT y = scalar_to<CT>(other);
                   return apply_elementwise(
                       out, [fn, y](CT x) { return fn(x, y); }, read_as<CT>(self));
                 }));
}

// run() of a unary predicate: resizes out like self and writes pred(x) as
// bool, cast to out's dtype (which may be any of kRealAndBoolTypes).
template <typename Pred>
void unary_predicate(KernelContext& ctx, const Tensor& self, Tensor& out, Pred pred) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), self.dtype(), [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   return apply_elementwise(
                       out, [pred](CT x) -> bool { return pred(x); }, read_as<CT>(self));
                 }));
}

// True when some element of `t`, read as CT, is zero (integer division
// kernels check their divisor with this before dividing).
template <typename CT>
bool contains_zero_as(const Tensor& t) {
  const internal::LoadFn<CT> load = internal::load_fn<CT>(t.dtype());
  if (load == nullptr) return false;
  const void* data = t.const_data();
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (load(data, i) == CT(0)) return true;
  }
  return false;
}

// Sets every element of `t` (contiguous or not: the whole storage span is
// the tensor's elements for any dim order) to `value` converted to t's
// dtype. False when the dtype is not one of kRealAndBoolTypes.
template <typename V>
[[nodiscard]] bool fill_tensor(Tensor& t, V value) {
  return dispatch_real_and_bool(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = convert<T>(value);
    T* p = t.data_ptr<T>();
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) p[i] = v;
  });
}

}  // namespace etr
