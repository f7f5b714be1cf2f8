// Compatibility layer (extension/compat): registering a typed kernel
// function through the official boxed API.
//
//   Tensor& mul3_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out);
//   EXECUTORCH_LIBRARY(my_ops, "mul3.out", mul3_out);
//
// registers "my_ops::mul3.out" at static initialization. The boxed wrapper
// reads one value per parameter (the context excepted) from the call's
// values, in order, converting each with EValue::to<T>() (tensors by
// reference); the call's trailing return slot is not read. The function must
// take exactly one non-const Tensor& (its output), last, as the official
// wrapper requires.
#pragma once

#include <executorch/extension/kernel_util/meta_programming.h>
#include <executorch/extension/kernel_util/type_list.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

template <class T>
struct is_nonconst_tensor : std::false_type {};
template <>
struct is_nonconst_tensor<executorch::aten::Tensor&> : std::true_type {};

// How many non-const Tensor& parameters end the list (the outputs).
template <class TypeList>
struct count_nonconst_tensors;
template <>
struct count_nonconst_tensors<typelist<>> {
  static constexpr size_t value = 0;
};
template <class Head, class... Tail>
struct count_nonconst_tensors<typelist<Head, Tail...>> {
 private:
  static constexpr size_t tail = count_nonconst_tensors<typelist<Tail...>>::value;

 public:
  static constexpr size_t value =
      is_nonconst_tensor<Head>::value && tail == sizeof...(Tail) ? tail + 1 : tail;
};

// Parameter types as the wrapper passes them: tensors by reference, the
// rest by value.
template <class T>
struct decay_if_not_tensor final {
  using type = std::decay_t<T>;
};
template <>
struct decay_if_not_tensor<executorch::aten::Tensor&> final {
  using type = executorch::aten::Tensor&;
};
template <>
struct decay_if_not_tensor<const executorch::aten::Tensor&> final {
  using type = const executorch::aten::Tensor&;
};

template <class T>
struct evalue_to_arg final {
  static T call(executorch::runtime::EValue& v) { return std::move(v).template to<T>(); }
};
template <>
struct evalue_to_arg<executorch::aten::Tensor&> final {
  static executorch::aten::Tensor& call(executorch::runtime::EValue& v) { return v.toTensor(); }
};
template <>
struct evalue_to_arg<const executorch::aten::Tensor&> final {
  static const executorch::aten::Tensor& call(executorch::runtime::EValue& v) {
    return v.toTensor();
  }
};
template <class T>
struct evalue_to_arg<std::optional<T>> final {
  static std::optional<T> call(executorch::runtime::EValue& v) {
    return v.template toOptional<T>();
  }
};

template <class Functor, size_t... indices, typename... ArgTypes>
void call_functor_with_args_from_stack(
    executorch::runtime::KernelRuntimeContext& ctx,
    executorch::runtime::Span<executorch::runtime::EValue*> stack, std::index_sequence<indices...>,
    typelist<ArgTypes...>*) {
  (*Functor::func_ptr())(
      ctx, evalue_to_arg<typename decay_if_not_tensor<ArgTypes>::type>::call(*stack[indices])...);
}

}  // namespace kernel_util_internal

template <class FuncType>
struct WrapUnboxedIntoFunctor {
  static_assert(kernel_util_internal::is_compile_time_function_pointer<FuncType>::value,
                "Can't handle function other than EXECUTORCH_FN");
  using TrueType = typename FuncType::FuncType;
  using ReturnType = typename kernel_util_internal::infer_function_traits_t<TrueType>::return_type;
  using ArgsType =
      typename kernel_util_internal::infer_function_traits_t<TrueType>::parameter_types;
  static constexpr bool first_arg_is_context = std::is_same<
      ::executorch::runtime::KernelRuntimeContext,
      std::remove_reference_t<kernel_util_internal::head_with_default_t<void, ArgsType>>>::value;
  using ContextRemovedArgsType =
      std::conditional_t<first_arg_is_context,
                         kernel_util_internal::drop_if_nonempty_t<ArgsType, 1>, ArgsType>;

  static void call(::executorch::runtime::KernelRuntimeContext& ctx,
                   executorch::runtime::Span<executorch::runtime::EValue*> stack) {
    constexpr size_t num_inputs = kernel_util_internal::size<ContextRemovedArgsType>::value;
    static_assert(kernel_util_internal::count_nonconst_tensors<ContextRemovedArgsType>::value == 1,
                  "Invalid number of inputs");
    // The call passes every parameter plus the return slot.
    if (stack.size() < num_inputs) {
      ET_LOG(Error, "%s: called with %zu values, needs %zu", FuncType::func_name_, stack.size(),
             num_inputs);
      ctx.fail(::executorch::runtime::Error::InvalidArgument);
      return;
    }
    kernel_util_internal::call_functor_with_args_from_stack<FuncType>(
        ctx, stack, std::make_index_sequence<num_inputs>(),
        static_cast<ContextRemovedArgsType*>(nullptr));
  }
};

template <typename FuncType>
static executorch::runtime::Kernel make_boxed_kernel(const char* name, FuncType) {
  return executorch::runtime::Kernel(name, WrapUnboxedIntoFunctor<FuncType>::call);
}

}  // namespace extension
}  // namespace executorch

#define ET_CONCATENATE_IMPL(s1, s2) s1##s2
#define ET_CONCATENATE(s1, s2) ET_CONCATENATE_IMPL(s1, s2)
#define ET_UID __LINE__

// Registers `func` as "<ns>::<op_name>" at static initialization.
#define EXECUTORCH_LIBRARY(ns, op_name, func) _EXECUTORCH_LIBRARY_IMPL(ns, op_name, func, ET_UID)

#define _EXECUTORCH_LIBRARY_IMPL(ns, op_name, func, uid)                                 \
  static constexpr const char ET_CONCATENATE(name_of_op_, uid)[] = #ns "::" op_name;     \
  static auto ET_CONCATENATE(res_##ns##_, uid) =                                         \
      ::executorch::runtime::register_kernel(::executorch::extension::make_boxed_kernel( \
          #ns "::" op_name, EXECUTORCH_FN(func, ET_CONCATENATE(name_of_op_, uid))))

namespace torch {
namespace executor {
using ::executorch::extension::make_boxed_kernel;
using ::executorch::extension::WrapUnboxedIntoFunctor;
}  // namespace executor
}  // namespace torch
