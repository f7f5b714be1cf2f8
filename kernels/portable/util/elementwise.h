// Shared machinery of the portable elementwise, reduction and creation
// kernels:
//   * convert<To>(v): dtype conversion without undefined behaviour,
//   * PyTorch type promotion (promote_types, ResultType, can_cast),
//   * wrapping integer arithmetic (add_wrap ...),
//   * apply_elementwise(): the one broadcasting loop every elementwise op runs.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---------------------------------------------------------------------------
// Conversion

namespace internal {

// Float to integer the way x86 (and therefore PyTorch on x86) does it: values
// that do not fit 32 bits (64 for int64) and NaN become the most negative
// value; narrower targets then wrap modulo 2^bits.
template <typename To, typename From>
To float_to_int(From v) {
  using Wide = std::conditional_t<(sizeof(To) <= 4), int32_t, int64_t>;
  const double d = static_cast<double>(v);
  bool in_range;
  if constexpr (sizeof(Wide) == 4) {
    in_range = d > -2147483649.0 && d < 2147483648.0;
  } else {
    in_range = d >= -9223372036854775808.0 && d < 9223372036854775808.0;
  }
  const Wide w = in_range ? static_cast<Wide>(d) : std::numeric_limits<Wide>::min();
  return static_cast<To>(w);
}

// double to float with overflow saturating to +-inf (ISO C++ leaves an
// out-of-range conversion undefined).
inline float double_to_float(double v) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  constexpr double kRoundsToInf = 0x1.ffffffp+127;  // FLT_MAX + half an ulp
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kFloatMax = std::numeric_limits<float>::max();
  if (v > kMax) return v >= kRoundsToInf ? kInf : kFloatMax;
  if (v < -kMax) return v <= -kRoundsToInf ? -kInf : -kFloatMax;
  return static_cast<float>(v);
}

}  // namespace internal

// Converts between any two of the supported element types (uint8, int8,
// int16, int32, int64, float, double, bool). Integer narrowing wraps; to bool
// means "!= 0".
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (std::is_same<To, float>::value && std::is_same<From, double>::value) {
    return internal::double_to_float(v);
  } else if constexpr (std::is_floating_point<To>::value || !std::is_floating_point<From>::value) {
    return static_cast<To>(v);
  } else {
    return internal::float_to_int<To>(v);
  }
}

// A Scalar argument converted to T.
template <typename T>
T scalar_to(const Scalar& s) {
  if (s.is_floating()) return convert<T>(s.to_double());
  if (s.is_bool()) return convert<T>(s.value().to_bool());
  return convert<T>(s.to_int());
}

// ---------------------------------------------------------------------------
// Type promotion

// True for the dtypes the portable kernels compute on: the integer types,
// float, double and bool.
constexpr bool is_supported_dtype(ScalarType t) {
  return t == ScalarType::Bool || t == ScalarType::Float || t == ScalarType::Double ||
         t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long;
}

// torch.promote_types over the supported dtypes.
ScalarType promote_types(ScalarType a, ScalarType b);

// torch.can_cast: false for floating -> integral/bool and for non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

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
  return ResultType().add(a).add(b).get();
}
inline ScalarType result_type(const Tensor& a, const Scalar& b) {
  return ResultType().add(a).add(b).get();
}

// ---------------------------------------------------------------------------
// Kernel prologue helpers. Each logs "<op>: <what is wrong>" on failure.

// Records `e` on the context; true when it is Ok.
inline bool kernel_ok(KernelContext& ctx, Error e) {
  if (e == Error::Ok) return true;
  ctx.fail(e);
  return false;
}

// InvalidType unless `t` has a supported dtype; `what` names the argument.
[[nodiscard]] Error check_dtype(const char* op, const char* what, const Tensor& t);

// InvalidType unless `common` can be cast to out's dtype.
[[nodiscard]] Error check_can_cast(const char* op, ScalarType common, const Tensor& out);

// Prologue of a Tensor-Tensor op: checks dtypes, resizes out to the broadcast
// shape and sets *common to result_type(a, b).
[[nodiscard]] Error prepare_binary(const char* op, const Tensor& a, const Tensor& b, Tensor& out,
                                   ScalarType* common);

// Prologue of a Tensor-Scalar op: checks dtypes, resizes out like `a` and
// sets *common to result_type(a, s).
[[nodiscard]] Error prepare_scalar(const char* op, const Tensor& a, const Scalar& s, Tensor& out,
                                   ScalarType* common);

// Prologue of a unary op: checks dtypes and resizes out like `a`.
[[nodiscard]] Error prepare_unary(const char* op, const Tensor& a, Tensor& out);

// Normalizes a possibly negative dim against `rank` (a 0-d tensor accepts
// dims -1 and 0). Logs and returns InvalidArgument when out of range.
[[nodiscard]] Error normalize_dim(const char* op, int64_t dim, size_t rank, size_t* out);

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
void apply_impl(Tensor& out, Op& op, std::index_sequence<K...>, ReadAs<CTs>... ins) {
  constexpr size_t N = sizeof...(CTs) + 1;
  using R = decltype(op(CTs{}...));
  int64_t strides[N][kTensorMaxDim];
  broadcast_strides(out, out.sizes(), strides[0]);
  (broadcast_strides(ins.tensor, out.sizes(), strides[K + 1]), ...);
  const bool typed = out.dtype() == scalar_type_of<R>() &&
                     ((ins.tensor.dtype() == scalar_type_of<CTs>()) && ...);
  if (typed) {
    R* o = out.data_ptr<R>();
    const std::tuple<const CTs*...> p{ins.tensor.template const_data_ptr<CTs>()...};
    if (same_strides(strides, out.dim())) {
      const int64_t n = out.numel();
      for (int64_t i = 0; i < n; ++i) o[i] = op(std::get<K>(p)[i]...);
      return;
    }
    for_each_offset<N>(out.sizes(), strides, [&](const int64_t* off) {
      o[off[0]] = op(std::get<K>(p)[off[K + 1]]...);
    });
    return;
  }
  const std::tuple<LoadFn<CTs>...> loads{load_fn<CTs>(ins.tensor.dtype())...};
  const StoreFn<R> store = store_fn<R>(out.dtype());
  if (store == nullptr || ((std::get<K>(loads) == nullptr) || ...)) return;  // checked by callers
  const void* data[N - 1] = {ins.tensor.const_data()...};
  void* o = out.mutable_data();
  for_each_offset<N>(out.sizes(), strides, [&](const int64_t* off) {
    store(o, off[0], op(std::get<K>(loads)(data[K], off[K + 1])...));
  });
}

}  // namespace internal

// out[i] = op(in_0[i], ...) for every element of out, where each input is
// broadcast to out's shape and read as its CT; op's result is converted to
// out's dtype. Preconditions (checked by the prepare helpers above): out
// already has the broadcast shape and every dtype is supported. Any dim
// order works; the loop is flat when all operands share one layout.
template <typename Op, typename... CTs>
void apply_elementwise(Tensor& out, Op op, ReadAs<CTs>... ins) {
  static_assert(sizeof...(CTs) >= 1, "apply_elementwise needs at least one input");
  internal::apply_impl(out, op, std::index_sequence_for<CTs...>{}, ins...);
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

// Sets every element of `t` to `value` converted to t's dtype. False when the
// dtype is not supported.
template <typename V>
bool fill_tensor(Tensor& t, V value) {
  return dispatch_real_and_bool(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = convert<T>(value);
    T* p = t.data_ptr<T>();
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) p[i] = v;
  });
}

}  // namespace etr
