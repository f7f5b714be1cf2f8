// Compatibility layer (extension/compat): FunctionRef<Ret(Params...)>, a
// non-owning reference to a callable (the callable must outlive it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace executorch {
namespace runtime {

namespace internal {
template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;
}  // namespace internal

template <typename Fn>
class FunctionRef;

template <typename Ret, typename... Params>
class FunctionRef<Ret(Params...)> {
 public:
  FunctionRef() = default;
  FunctionRef(std::nullptr_t) {}  // NOLINT: implicit, like a function pointer
  template <typename Callable,
            typename = std::enable_if_t<
                !std::is_same<internal::remove_cvref_t<Callable>, FunctionRef>::value>,
            typename = std::enable_if_t<
                std::is_void<Ret>::value ||
                std::is_convertible<decltype(std::declval<Callable>()(std::declval<Params>()...)),
                                    Ret>::value>>
  FunctionRef(Callable&& callable)  // NOLINT: implicit by design
      : call_(&invoke<std::remove_reference_t<Callable>>),
        callable_(const_cast<void*>(static_cast<const void*>(&callable))) {}

  Ret operator()(Params... params) const {
    return call_(callable_, std::forward<Params>(params)...);
  }
  explicit operator bool() const { return call_ != nullptr; }

 private:
  template <typename Callable>
  static Ret invoke(void* callable, Params... params) {
    return (*static_cast<Callable*>(callable))(std::forward<Params>(params)...);
  }

  Ret (*call_)(void*, Params...) = nullptr;
  void* callable_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch
