// Compatibility layer (extension/compat): function traits and the
// compile-time function pointer EXECUTORCH_FN(func, name) wraps.
#pragma once

#include <executorch/extension/kernel_util/type_list.h>

#include <cstddef>
#include <type_traits>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

template <class T>
struct is_function_type : std::false_type {};
template <class Result, class... Args>
struct is_function_type<Result(Args...)> : std::true_type {};
template <class T>
using is_function_type_t = typename is_function_type<T>::type;

// A function known at compile time, with its operator name.
template <class FuncType_, FuncType_* func_ptr_, const char* func_name>
struct CompileTimeFunctionPointer final {
  static_assert(is_function_type<FuncType_>::value, "EXECUTORCH_FN can only wrap function types.");
  using FuncType = FuncType_;
  static constexpr const char* func_name_ = func_name;
  static constexpr FuncType* func_ptr() { return func_ptr_; }
};

template <class T>
struct is_compile_time_function_pointer : std::false_type {};
template <class FuncType, FuncType* func_ptr, const char* func_name>
struct is_compile_time_function_pointer<CompileTimeFunctionPointer<FuncType, func_ptr, func_name>>
    : std::true_type {};

#define EXECUTORCH_FN_TYPE(func, name)                                       \
  ::executorch::extension::kernel_util_internal::CompileTimeFunctionPointer< \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func, name>
#define EXECUTORCH_FN(func, name) EXECUTORCH_FN_TYPE(func, name)()

// The function type of a member function pointer (for functors).
template <typename T>
struct strip_class {};
template <typename Class, typename Result, typename... Args>
struct strip_class<Result (Class::*)(Args...)> {
  using type = Result(Args...);
};
template <typename Class, typename Result, typename... Args>
struct strip_class<Result (Class::*)(Args...) const> {
  using type = Result(Args...);
};
template <typename T>
using strip_class_t = typename strip_class<T>::type;

// Return and parameter types of a function type.
template <typename Func>
struct function_traits {
  static_assert(false_t<Func>::value, "function_traits needs a function type");
};
template <typename Result, typename... Args>
struct function_traits<Result(Args...)> {
  using func_type = Result(Args...);
  using return_type = Result;
  using parameter_types = typelist<Args...>;
  static constexpr auto number_of_parameters = sizeof...(Args);
};

template <typename Functor>
struct infer_function_traits {
  using type = function_traits<strip_class_t<decltype(&Functor::operator())>>;
};
template <typename Result, typename... Args>
struct infer_function_traits<Result (*)(Args...)> {
  using type = function_traits<Result(Args...)>;
};
template <typename Result, typename... Args>
struct infer_function_traits<Result(Args...)> {
  using type = function_traits<Result(Args...)>;
};
template <typename T>
using infer_function_traits_t = typename infer_function_traits<T>::type;

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch
