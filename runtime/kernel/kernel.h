// Kernel registration unit.
//
// A kernel is written as a typed C++ function, e.g.
//
//   void relu_out(KernelContext& ctx, const Tensor& self, Tensor& out);
//
// and registered with `make_kernel<&relu_out>("aten::relu.out")`. The template
// derives, from the parameter list, (a) the argument kinds the method loader
// checks once against the program's values, and (b) the unboxing wrapper the
// executor calls, so names, argument counts and marshaling cannot drift.
//
// The program passes every schema argument in order plus one trailing return
// slot; the wrapper therefore expects sizeof...(Args) + 1 values and ignores
// the last one (out-variant kernels already receive `out` as an argument).
//
// Parameter type -> accepted value kind:
//   const Tensor&                        Tensor
//   Tensor&                              Tensor the kernel writes (not a constant)
//   const Tensor*                        Tensor or None (nullptr)
//   int64_t                              Int
//   std::optional<int64_t>               Int or None
//   double                               Double or Int
//   std::optional<double>                Double, Int or None
//   bool                                 Bool
//   std::optional<bool>                  Bool or None
//   Scalar                               Int, Double or Bool
//   std::optional<Scalar>                Int, Double, Bool or None
//   ScalarType                           Int (a dtype code)
//   std::optional<ScalarType>            Int or None
//   StringView                           String
//   std::optional<StringView>            String or None
//   IntArrayRef (Span<const int64_t>)    IntList
//   std::optional<IntArrayRef>           IntList or None
//   Span<const double>                   DoubleList
//   Span<const bool>                     BoolList
//   TensorList                           TensorList
//   OptionalTensorList                   OptionalTensorList
//   EValue&                              anything (raw access)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel_context.h"

namespace etr {

using IntArrayRef = Span<const int64_t>;

// An ATen Scalar argument: an Int, Double or Bool value.
class Scalar final {
 public:
  explicit Scalar(const EValue& v) : value_(&v) {}
  bool is_integral() const { return value_->is_int() || value_->is_bool(); }
  bool is_floating() const { return value_->is_double(); }
  bool is_bool() const { return value_->is_bool(); }
  double to_double() const { return value_->scalar_as_double(); }
  int64_t to_int() const { return value_->scalar_as_int(); }
  const EValue& value() const { return *value_; }

 private:
  const EValue* value_;
};

struct TensorList final {
  BoxedTensorList list;
  size_t size() const { return list.size(); }
  Tensor& operator[](size_t i) const { return list[i]; }
};

struct OptionalTensorList final {
  BoxedTensorList list;
  size_t size() const { return list.size(); }
  // nullptr for an absent element.
  Tensor* operator[](size_t i) const { return list.at(i); }
};

enum class ArgKind : uint8_t {
  Any,
  Tensor,
  // A tensor the kernel writes (an out argument); may not be a program constant.
  MutableTensor,
  OptionalTensor,
  Int,
  OptionalInt,
  Double,
  OptionalDouble,
  Bool,
  OptionalBool,
  Scalar,
  OptionalScalar,
  String,
  OptionalString,
  IntList,
  OptionalIntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

// True when a value with `tag` may be passed where `kind` is expected.
bool arg_kind_accepts(ArgKind kind, Tag tag);
const char* to_string(ArgKind kind);

// Called by the executor with exactly `num_args` value pointers.
using KernelFn = void (*)(KernelContext& ctx, EValue* const* args);

struct KernelEntry {
  // Fully qualified operator name: "aten::add.out", "executorch_prim::add.Scalar".
  const char* name;
  // Optional dtype/dim-order key ("v1/6;0,1|6;0,1"); null matches any call.
  const char* key;
  KernelFn fn;
  // Expected kinds of all args, return slot included.
  const ArgKind* arg_kinds;
  uint16_t num_args;
  // KernelFlags bits.
  uint8_t flags;
};

enum KernelFlags : uint8_t {
  // The kernel makes its output tensors point at existing memory (e.g. a
  // view) instead of writing into memory they already own, so those outputs
  // may have no memory before the call.
  kKernelBindsOutputs = 1,
};

namespace internal {

template <typename T>
struct ArgTraits;

template <>
struct ArgTraits<const Tensor&> {
  static constexpr ArgKind kind = ArgKind::Tensor;
  static const Tensor& get(EValue* v) { return v->to_tensor(); }
};
template <>
struct ArgTraits<Tensor&> {
  static constexpr ArgKind kind = ArgKind::MutableTensor;
  static Tensor& get(EValue* v) { return v->to_tensor(); }
};
template <>
struct ArgTraits<const Tensor*> {
  static constexpr ArgKind kind = ArgKind::OptionalTensor;
  static const Tensor* get(EValue* v) { return v->is_tensor() ? v->tensor_ptr() : nullptr; }
};
template <>
struct ArgTraits<int64_t> {
  static constexpr ArgKind kind = ArgKind::Int;
  static int64_t get(EValue* v) { return v->to_int(); }
};
template <>
struct ArgTraits<std::optional<int64_t>> {
  static constexpr ArgKind kind = ArgKind::OptionalInt;
  static std::optional<int64_t> get(EValue* v) {
    return v->is_int() ? std::optional<int64_t>(v->to_int()) : std::nullopt;
  }
};
template <>
struct ArgTraits<double> {
  static constexpr ArgKind kind = ArgKind::Double;
  static double get(EValue* v) { return v->scalar_as_double(); }
};
template <>
struct ArgTraits<std::optional<double>> {
  static constexpr ArgKind kind = ArgKind::OptionalDouble;
  static std::optional<double> get(EValue* v) {
    return v->is_none() ? std::nullopt : std::optional<double>(v->scalar_as_double());
  }
};
template <>
struct ArgTraits<bool> {
  static constexpr ArgKind kind = ArgKind::Bool;
  static bool get(EValue* v) { return v->to_bool(); }
};
template <>
struct ArgTraits<std::optional<bool>> {
  static constexpr ArgKind kind = ArgKind::OptionalBool;
  static std::optional<bool> get(EValue* v) {
    return v->is_bool() ? std::optional<bool>(v->to_bool()) : std::nullopt;
  }
};
template <>
struct ArgTraits<Scalar> {
  static constexpr ArgKind kind = ArgKind::Scalar;
  static Scalar get(EValue* v) { return Scalar(*v); }
};
template <>
struct ArgTraits<std::optional<Scalar>> {
  static constexpr ArgKind kind = ArgKind::OptionalScalar;
  static std::optional<Scalar> get(EValue* v) {
    return v->is_none() ? std::nullopt : std::optional<Scalar>(Scalar(*v));
  }
};
template <>
struct ArgTraits<ScalarType> {
  static constexpr ArgKind kind = ArgKind::Int;
  static ScalarType get(EValue* v) { return static_cast<ScalarType>(v->to_int()); }
};
template <>
struct ArgTraits<std::optional<ScalarType>> {
  static constexpr ArgKind kind = ArgKind::OptionalInt;
  static std::optional<ScalarType> get(EValue* v) {
    return v->is_int() ? std::optional<ScalarType>(static_cast<ScalarType>(v->to_int()))
                       : std::nullopt;
  }
};
template <>
struct ArgTraits<StringView> {
  static constexpr ArgKind kind = ArgKind::String;
  static StringView get(EValue* v) { return v->to_string(); }
};
template <>
struct ArgTraits<std::optional<StringView>> {
  static constexpr ArgKind kind = ArgKind::OptionalString;
  static std::optional<StringView> get(EValue* v) {
    return v->is_string() ? std::optional<StringView>(v->to_string()) : std::nullopt;
  }
};
template <>
struct ArgTraits<IntArrayRef> {
  static constexpr ArgKind kind = ArgKind::IntList;
  static IntArrayRef get(EValue* v) { return v->to_int_list(); }
};
template <>
struct ArgTraits<std::optional<IntArrayRef>> {
  static constexpr ArgKind kind = ArgKind::OptionalIntList;
  static std::optional<IntArrayRef> get(EValue* v) {
    return v->is_int_list() ? std::optional<IntArrayRef>(v->to_int_list()) : std::nullopt;
  }
};
template <>
struct ArgTraits<Span<const double>> {
  static constexpr ArgKind kind = ArgKind::DoubleList;
  static Span<const double> get(EValue* v) { return v->to_double_list(); }
};
template <>
struct ArgTraits<Span<const bool>> {
  static constexpr ArgKind kind = ArgKind::BoolList;
  static Span<const bool> get(EValue* v) { return v->to_bool_list(); }
};
template <>
struct ArgTraits<TensorList> {
  static constexpr ArgKind kind = ArgKind::TensorList;
  static TensorList get(EValue* v) { return TensorList{v->to_tensor_list()}; }
};
template <>
struct ArgTraits<OptionalTensorList> {
  static constexpr ArgKind kind = ArgKind::OptionalTensorList;
  static OptionalTensorList get(EValue* v) { return OptionalTensorList{v->to_tensor_list()}; }
};
template <>
struct ArgTraits<EValue&> {
  static constexpr ArgKind kind = ArgKind::Any;
  static EValue& get(EValue* v) { return *v; }
};

template <auto Fn, typename Sig>
struct KernelAdapter;

template <auto Fn, typename... Args>
struct KernelAdapter<Fn, void (*)(KernelContext&, Args...)> {
  static constexpr ArgKind kinds[sizeof...(Args) + 1] = {ArgTraits<Args>::kind..., ArgKind::Any};

  static void call(KernelContext& ctx, EValue* const* args) {
    invoke(ctx, args, std::index_sequence_for<Args...>{});
  }

  template <size_t... I>
  static void invoke(KernelContext& ctx, EValue* const* args, std::index_sequence<I...>) {
    Fn(ctx, ArgTraits<Args>::get(args[I])...);
  }
};

}  // namespace internal

// Registration entry for a typed kernel function (see the top of this file).
template <auto Fn>
constexpr KernelEntry make_kernel(const char* name, const char* key = nullptr) {
  using Adapter = internal::KernelAdapter<Fn, decltype(Fn)>;
  return KernelEntry{name, key, &Adapter::call, Adapter::kinds,
                     static_cast<uint16_t>(sizeof(Adapter::kinds) / sizeof(ArgKind)), 0};
}

// Registration entry for a kernel that unboxes its own arguments. `arg_kinds`
// must list every arg including the return slot and have static storage.
constexpr KernelEntry make_raw_kernel(const char* name, KernelFn fn, const ArgKind* arg_kinds,
                                      uint16_t num_args, const char* key = nullptr,
                                      uint8_t flags = 0) {
  return KernelEntry{name, key, fn, arg_kinds, num_args, flags};
}

// The entry named `name` in `table` (first match), or nullptr. For tests and
// tools; programs resolve kernels through a KernelRegistry.
inline const KernelEntry* find_kernel_entry(Span<const KernelEntry> table, StringView name) {
  for (const KernelEntry& e : table) {
    if (StringView(e.name) == name) return &e;
  }
  return nullptr;
}

}  // namespace etr
