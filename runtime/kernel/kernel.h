// Kernel registration unit.
//
// A kernel is written as a typed C++ function, e.g.
//
//   void relu_out(KernelContext& ctx, const Tensor& self, Tensor& out);
//
// and registered with `make_kernel<&relu_out>("aten::relu.out", kFloatingTypes)`.
// The template derives, from the parameter list, (a) the argument kinds the
// method loader checks once against the program's values, and (b) the
// unboxing wrapper the executor calls, so names, argument counts and
// marshaling cannot drift. The DtypeSet lists every dtype the kernel's
// tensor arguments may have; the loader refuses other dtypes at load.
//
// Two phases. A kernel may also have a prepare step with the same
// parameters, taking KernelPrepareContext& and returning Error:
//
//   Error relu_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
//   make_kernel<&relu_out, &relu_prepare>("aten::relu.out", kFloatingTypes)
//
// prepare runs once per instruction at method load, after the dtype check.
// It validates what cannot change between executes (dtypes, ranks, dim
// orders, constant scalar arguments), may build per-instruction state with
// ctx.make_state<T>() / ctx.allocate() and ctx.set_state(), and returns:
//   Ok            to accept the call;
//   NotSupported  to decline it ("this call is not for me": a dtype, layout
//                 or shape class the kernel does not handle): the loader
//                 then tries the next library that registers the operator
//                 (KernelRegistry::select, registry.h) and, when none
//                 accepts, refuses the program naming the instruction,
//                 operator and reason;
//   anything else for a real failure (MemoryAllocationFailed when the
//                 method allocator cannot hold its state, InvalidArgument
//                 or InvalidProgram for a call no kernel could run): the
//                 load fails at once, naming the method, instruction,
//                 operator and library; no other library is tried.
// Tensor sizes seen by prepare are the upper bounds of dynamic tensors, and
// Int/IntList arguments computed by the program (symbolic sizes) hold their
// exported values, so shape-dependent work that can change stays in run().
// run() only computes: it must not repeat checks prepare made.
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

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
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
// Called once per instruction at method load; Ok accepts the call.
using PrepareFn = Error (*)(KernelPrepareContext& ctx, EValue* const* args);

// A set of ScalarTypes (one bit per dtype id).
class DtypeSet final {
 public:
  constexpr DtypeSet() : bits_(0) {}
  constexpr explicit DtypeSet(uint64_t bits) : bits_(bits) {}
  template <typename... T>
  static constexpr DtypeSet of(T... types) {
    return DtypeSet(((uint64_t{1} << static_cast<int>(types)) | ... | uint64_t{0}));
  }
  constexpr bool contains(ScalarType t) const {
    const int v = static_cast<int>(t);
    return v >= 0 && v < 64 && ((bits_ >> v) & 1) != 0;
  }
  constexpr DtypeSet operator|(DtypeSet o) const { return DtypeSet(bits_ | o.bits_); }
  constexpr bool operator==(DtypeSet o) const { return bits_ == o.bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint64_t bits() const { return bits_; }

 private:
  uint64_t bits_;
};

// The common sets. Every kernel names one of these (or its own) in its table line.
constexpr DtypeSet kFloatingTypes = DtypeSet::of(ScalarType::Float, ScalarType::Double);
constexpr DtypeSet kIntegralTypes = DtypeSet::of(
    ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::Int, ScalarType::Long);
constexpr DtypeSet kBoolType = DtypeSet::of(ScalarType::Bool);
constexpr DtypeSet kRealTypes = kIntegralTypes | kFloatingTypes;
constexpr DtypeSet kRealAndBoolTypes = kRealTypes | kBoolType;
// Every dtype: for kernels that only move bytes (views, copies) or check dtypes themselves.
constexpr DtypeSet kAllTypes = DtypeSet(~uint64_t{0});

// Writes the dtype names of `set` ("Float, Double"; "any" for kAllTypes) into
// buf (truncated to cap) and returns buf.
const char* format_dtypes(DtypeSet set, char* buf, size_t cap);

// The first tensor argument (or tensor-list item) of args[0..n) whose dtype
// `set` lacks: true with its argument index and dtype; false when all fit.
// The method loader refuses a kernel on this before its prepare step runs.
bool find_unsupported_dtype(DtypeSet set, EValue* const* args, size_t n, size_t* arg,
                            ScalarType* dtype);

struct KernelEntry {
  // Fully qualified operator name: "aten::add.out", "executorch_prim::add.Scalar".
  const char* name;
  // op_name_hash(name), computed at compile time; the registry compares it
  // before the name.
  uint32_t name_hash;
  KernelFn fn;
  // Optional prepare step (null: nothing to prepare).
  PrepareFn prepare;
  // Expected kinds of all args, return slot included.
  const ArgKind* arg_kinds;
  uint16_t num_args;
  // KernelFlags bits.
  uint8_t flags;
  // Dtypes the kernel's tensor arguments may have (tensor-list items included).
  DtypeSet dtypes;
};

// Why a kernel entry refused a call before its prepare step ran.
struct CallMismatch {
  enum class Kind : uint8_t { None, ArgCount, ArgKind, Dtype };
  Kind kind = Kind::None;
  size_t arg = 0;                        // ArgKind, Dtype: the argument
  ScalarType dtype = ScalarType::Float;  // Dtype: the refused dtype
};

// Whether `entry` takes the call `args[0..n)` (return slot included), the
// way the method loader decides it: argument count and kinds, then the
// declared dtypes, then the prepare step (if any) with `ctx`. Ok: accepted,
// ctx.state() holds what prepare built. Otherwise InvalidProgram (count or
// kind), InvalidType (dtype), or prepare's own error; *mismatch says which
// check refused (Kind::None when prepare did).
[[nodiscard]] Error accept_call(const KernelEntry& entry, EValue* const* args, size_t n,
                                KernelPrepareContext& ctx, CallMismatch* mismatch);

// FNV-1a of `name`; the loader hashes "name.overload" without building it.
constexpr uint32_t op_name_hash_step(uint32_t h, char c) {
  return (h ^ static_cast<uint8_t>(c)) * 16777619u;
}
constexpr uint32_t kOpNameHashSeed = 2166136261u;
constexpr uint32_t op_name_hash(const char* name) {
  uint32_t h = kOpNameHashSeed;
  for (const char* p = name; *p != '\0'; ++p) h = op_name_hash_step(h, *p);
  return h;
}

// KernelEntry::num_args of a kernel that takes any number of values of any
// kind (arg_kinds may then be null): it checks its arguments itself, finding
// their count in KernelContext::num_args(). For kernels registered through an
// API that declares no arity (the official ExecuTorch registration,
// extension/compat); etr's own kernels declare their parameters.
constexpr uint16_t kVariadicArgs = 0xFFFF;

// The kind `entry` expects for argument `a` (Any for a variadic entry).
inline ArgKind arg_kind_of(const KernelEntry& entry, size_t a) {
  return entry.num_args == kVariadicArgs || entry.arg_kinds == nullptr ? ArgKind::Any
                                                                       : entry.arg_kinds[a];
}

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
  // scalar_as_int: a run-time scalar may hold another scalar kind (see
  // KernelPrepareContext::is_run_time_scalar_arg).
  static int64_t get(EValue* v) {
    if (v->is_int()) return v->to_int();
    if (v->is_bool()) return v->to_bool() ? 1 : 0;
    const double d = v->to_double();  // truncated; NaN and out-of-range give 0
    return d > -9.2e18 && d < 9.2e18 ? static_cast<int64_t>(d) : 0;
  }
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
  static bool get(EValue* v) { return v->is_bool() ? v->to_bool() : v->scalar_as_double() != 0.0; }
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
  using PrepareSig = Error (*)(KernelPrepareContext&, Args...);

  static void call(KernelContext& ctx, EValue* const* args) {
    invoke(ctx, args, std::index_sequence_for<Args...>{});
  }

  template <size_t... I>
  static void invoke(KernelContext& ctx, EValue* const* args, std::index_sequence<I...>) {
    Fn(ctx, ArgTraits<Args>::get(args[I])...);
  }
};

template <auto Prepare, typename Sig>
struct PrepareAdapter;

template <auto Prepare, typename... Args>
struct PrepareAdapter<Prepare, Error (*)(KernelPrepareContext&, Args...)> {
  static Error call(KernelPrepareContext& ctx, EValue* const* args) {
    return invoke(ctx, args, std::index_sequence_for<Args...>{});
  }
  template <size_t... I>
  static Error invoke(KernelPrepareContext& ctx, EValue* const* args, std::index_sequence<I...>) {
    return Prepare(ctx, ArgTraits<Args>::get(args[I])...);
  }
};

}  // namespace internal

// Registration entry for a typed kernel function and its optional typed
// prepare step (see the top of this file). `dtypes` lists the dtypes its
// tensor arguments may have.
template <auto Run, auto Prepare = nullptr>
constexpr KernelEntry make_kernel(const char* name, DtypeSet dtypes) {
  using Adapter = internal::KernelAdapter<Run, decltype(Run)>;
  PrepareFn prepare = nullptr;
  if constexpr (!std::is_same<decltype(Prepare), std::nullptr_t>::value) {
    static_assert(std::is_same<decltype(Prepare), typename Adapter::PrepareSig>::value,
                  "prepare must take KernelPrepareContext& and the same parameters as run, "
                  "and return Error");
    prepare = &internal::PrepareAdapter<Prepare, decltype(Prepare)>::call;
  }
  return KernelEntry{name,
                     op_name_hash(name),
                     &Adapter::call,
                     prepare,
                     Adapter::kinds,
                     static_cast<uint16_t>(sizeof(Adapter::kinds) / sizeof(ArgKind)),
                     0,
                     dtypes};
}

// Registration entry for a kernel that unboxes its own arguments. `arg_kinds`
// must list every arg including the return slot and have static storage.
constexpr KernelEntry make_raw_kernel(const char* name, KernelFn fn, const ArgKind* arg_kinds,
                                      uint16_t num_args, DtypeSet dtypes, uint8_t flags = 0,
                                      PrepareFn prepare = nullptr) {
  return KernelEntry{name, op_name_hash(name), fn, prepare, arg_kinds, num_args, flags, dtypes};
}

// The entry named `name` in `table` (first match), or nullptr. For tests and
// tools; programs resolve kernels through a KernelRegistry.
inline const KernelEntry* find_kernel_entry(Span<const KernelEntry> table, StringView name) {
  for (const KernelEntry& e : table) {
    if (StringView(e.name) == name) return &e;
  }
  return nullptr;
}

// The table ordered by name_hash (stable), for registries to search by
// bisection: constexpr auto kMine = sorted_by_hash(std::array<KernelEntry, N>{...}).
template <size_t N>
constexpr std::array<KernelEntry, N> sorted_by_hash(std::array<KernelEntry, N> t) {
  for (size_t i = 1; i < N; ++i) {
    const KernelEntry e = t[i];
    size_t j = i;
    for (; j > 0 && t[j - 1].name_hash > e.name_hash; --j) t[j] = t[j - 1];
    t[j] = e;
  }
  return t;
}

}  // namespace etr
