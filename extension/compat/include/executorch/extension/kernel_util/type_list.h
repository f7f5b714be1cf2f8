// Compatibility layer (extension/compat): compile-time type lists, as used by
// make_boxed_from_unboxed_functor.h (namespace kernel_util_internal).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

template <class... T>
struct false_t : std::false_type {};

template <class... Items>
struct typelist final {
 private:
  typelist() = delete;  // a type only, never an object
};

template <class TypeList>
struct size final {
  static_assert(false_t<TypeList>::value, "size<T> needs a typelist");
};
template <class... Types>
struct size<typelist<Types...>> final {
  static constexpr size_t value = sizeof...(Types);
};

template <template <class...> class Template, class T>
struct is_instantiation_of : std::false_type {};
template <template <class...> class Template, class... Args>
struct is_instantiation_of<Template, Template<Args...>> : std::true_type {};
template <template <class...> class Template, class T>
using is_instantiation_of_t = typename is_instantiation_of<Template, T>::type;

// The Index-th type of a typelist.
template <size_t Index, class TypeList>
struct element final {
  static_assert(false_t<TypeList>::value, "element<I, T> needs a typelist");
};
template <class Head, class... Tail>
struct element<0, typelist<Head, Tail...>> {
  using type = Head;
};
template <size_t Index, class Head, class... Tail>
struct element<Index, typelist<Head, Tail...>> : element<Index - 1, typelist<Tail...>> {};
template <size_t Index, class TypeList>
using element_t = typename element<Index, TypeList>::type;

// The first type, or Default for an empty list.
template <class Default, class TypeList>
struct head_with_default final {
  using type = Default;
};
template <class Default, class Head, class... Tail>
struct head_with_default<Default, typelist<Head, Tail...>> final {
  using type = Head;
};
template <class Default, class TypeList>
using head_with_default_t = typename head_with_default<Default, TypeList>::type;

template <class TypeList, size_t offset, class IndexSequence>
struct take_elements final {};
template <class TypeList, size_t offset, size_t... Indices>
struct take_elements<TypeList, offset, std::index_sequence<Indices...>> final {
  using type = typelist<typename element<offset + Indices, TypeList>::type...>;
};

// The list without its first `num` types (empty lists stay empty).
template <class TypeList, size_t num>
struct drop_if_nonempty final {
 private:
  static constexpr size_t count = size<TypeList>::value;
  static constexpr size_t dropped = count < num ? count : num;

 public:
  using type =
      typename take_elements<TypeList, dropped, std::make_index_sequence<count - dropped>>::type;
};
template <class TypeList, size_t num>
using drop_if_nonempty_t = typename drop_if_nonempty<TypeList, num>::type;

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch
