// The official TensorPtr makers over etr::Tensor: each TensorPtr owns one
// etr::Tensor (the official TensorImpl) together with its sizes, dim order
// and strides, and the deleter of its data.
#include <executorch/extension/tensor/tensor.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/core/checked_math.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace executorch {
namespace extension {
namespace {

using aten::DimOrderType;
using aten::ScalarType;
using aten::SizesType;
using aten::StridesType;
using runtime::Error;

// What a TensorPtr points into. Never moved once made (the etr tensor points
// into the vectors' buffers).
struct TensorBox {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int64_t> strides;
  ::etr::Tensor impl;
  aten::Tensor face;
  std::function<void(void*)> deleter;
  void* data = nullptr;

  TensorBox() = default;
  TensorBox(const TensorBox&) = delete;
  TensorBox& operator=(const TensorBox&) = delete;
  ~TensorBox() {
    if (deleter) deleter(data);
  }
};

// Casting one element: Half and BFloat16 go through float, a floating value
// bound for an integer goes through int64 (as upstream), Bool is "not zero".
template <typename T>
struct ArithmeticOf {
  using type = T;
};
template <>
struct ArithmeticOf<::etr::Half> {
  using type = float;
};
template <>
struct ArithmeticOf<::etr::BFloat16> {
  using type = float;
};

template <typename To, typename From>
To cast_one(From value) {
  using A = typename ArithmeticOf<From>::type;
  const A a = static_cast<A>(value);
  if constexpr (std::is_same<To, bool>::value) {
    return a != A(0);
  } else if constexpr (std::is_same<To, ::etr::Half>::value ||
                       std::is_same<To, ::etr::BFloat16>::value) {
    return To(static_cast<float>(a));
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<A>::value) {
    return static_cast<To>(static_cast<int64_t>(a));
  } else {
    return static_cast<To>(a);
  }
}

// The dtypes the makers convert between, with their element types.
#define ETR_COMPAT_CAST_TYPES(X) \
  X(Byte, uint8_t)               \
  X(Char, int8_t)                \
  X(Short, int16_t)              \
  X(Int, int32_t)                \
  X(Long, int64_t)               \
  X(Half, ::etr::Half)           \
  X(Float, float)                \
  X(Double, double)              \
  X(Bool, bool)                  \
  X(BFloat16, ::etr::BFloat16)   \
  X(UInt16, uint16_t)            \
  X(UInt32, uint32_t)            \
  X(UInt64, uint64_t)

template <typename From>
bool cast_from(const void* src, size_t count, ScalarType to, void* dst) {
  const From* in = static_cast<const From*>(src);
  switch (to) {
#define ETR_COMPAT_CAST_TO(name, T)                                       \
  case ScalarType::name: {                                                \
    T* out = static_cast<T*>(dst);                                        \
    for (size_t i = 0; i < count; ++i) out[i] = cast_one<T, From>(in[i]); \
    return true;                                                          \
  }
    ETR_COMPAT_CAST_TYPES(ETR_COMPAT_CAST_TO)
#undef ETR_COMPAT_CAST_TO
    default: return false;
  }
}

// The dim order whose contiguous strides are `strides`: dimensions from the
// largest stride to the smallest (ties keep index order).
std::vector<uint8_t> dim_order_from_strides(const std::vector<StridesType>& strides) {
  std::vector<uint8_t> order(strides.size());
  std::iota(order.begin(), order.end(), uint8_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint8_t a, uint8_t b) { return strides[a] > strides[b]; });
  return order;
}

// Checks a TensorPtr argument that must not be null.
const aten::Tensor& deref(const TensorPtr& t, const char* what) {
  ET_CHECK_MSG(t != nullptr, "%s: the TensorPtr is null", what);
  return *t;
}

// Fills `count` elements of `type` at `dst` with values from `next()`
// (given as double or int64 by the caller through cast_elements).
template <typename Gen>
void fill_with(void* dst, size_t count, ScalarType type, Gen&& next) {
  using V = decltype(next());
  const ScalarType from = std::is_same<V, double>::value ? ScalarType::Double : ScalarType::Long;
  const size_t elem = runtime::elementSize(type);
  for (size_t i = 0; i < count; ++i) {
    const V v = next();
    ET_CHECK_MSG(internal::cast_elements(&v, 1, from, type, static_cast<uint8_t*>(dst) + i * elem),
                 "no conversion to %s", runtime::toString(type));
  }
}

// A tensor owning a zeroed buffer for `sizes`.
TensorPtr make_owned_zeros(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                           ScalarType type, aten::TensorShapeDynamism dynamism) {
  ET_CHECK_MSG(runtime::elementSize(type) != 0, "invalid dtype %d", static_cast<int>(type));
  const size_t numel = internal::checked_numel(sizes);
  size_t nbytes = 0;
  ET_CHECK_MSG(::etr::checked_mul(numel, runtime::elementSize(type), &nbytes),
               "byte size of %zu elements overflows", numel);
  auto buffer = std::make_shared<std::vector<uint8_t>>(nbytes);
  void* data = buffer->empty() ? nullptr : buffer->data();
  return make_tensor_ptr(std::move(sizes), data, {}, std::move(strides), type, dynamism,
                         [buffer](void*) {});
}

}  // namespace

namespace internal {

bool cast_elements(const void* src, size_t count, ScalarType from, ScalarType to, void* dst) {
  switch (from) {
#define ETR_COMPAT_CAST_FROM(name, T) \
  case ScalarType::name: return cast_from<T>(src, count, to, dst);
    ETR_COMPAT_CAST_TYPES(ETR_COMPAT_CAST_FROM)
#undef ETR_COMPAT_CAST_FROM
    default: return false;
  }
}

size_t checked_numel(const std::vector<SizesType>& sizes) {
  int64_t count = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    ET_CHECK_MSG(sizes[i] >= 0, "size %zu is negative: %d", i, sizes[i]);
    ET_CHECK_MSG(::etr::checked_mul_i64(count, sizes[i], &count),
                 "the element count overflows at dim %zu", i);
  }
  return static_cast<size_t>(count);
}

}  // namespace internal

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                          std::vector<DimOrderType> dim_order, std::vector<StridesType> strides,
                          ScalarType type, aten::Device device, aten::TensorShapeDynamism dynamism,
                          std::function<void(void*)> deleter) {
  const size_t dim = sizes.size();
  ET_CHECK_MSG(dim <= ::etr::kTensorMaxDim, "rank %zu is above the limit of %zu", dim,
               ::etr::kTensorMaxDim);
  ET_CHECK_MSG(runtime::elementSize(type) != 0, "invalid dtype %d", static_cast<int>(type));
  const size_t numel = internal::checked_numel(sizes);
  ET_CHECK_MSG(dim_order.empty() || dim_order.size() == dim,
               "dim_order has %zu entries for a tensor of rank %zu", dim_order.size(), dim);
  ET_CHECK_MSG(strides.empty() || strides.size() == dim,
               "strides has %zu entries for a tensor of rank %zu", strides.size(), dim);
  if (dim_order.empty()) {
    if (strides.empty()) {
      dim_order.resize(dim);
      std::iota(dim_order.begin(), dim_order.end(), uint8_t{0});
    } else {
      dim_order = dim_order_from_strides(strides);
    }
  }

  auto box = std::make_shared<TensorBox>();
  box->sizes.assign(sizes.begin(), sizes.end());
  box->dim_order = std::move(dim_order);
  box->strides.assign(dim + 1, 0);  // +1: never empty
  int64_t counted = 0;
  ET_CHECK_MSG(::etr::compute_strides(::etr::Span<const int32_t>(box->sizes.data(), dim),
                                      ::etr::Span<const uint8_t>(box->dim_order.data(), dim),
                                      box->strides.data(), &counted),
               "dim_order is not a permutation of 0..%zu", dim == 0 ? size_t{0} : dim - 1);
  // Given strides must be the dim order's; a size-1 dimension's stride is
  // never used to address an element, so any value is accepted there.
  for (size_t i = 0; i < strides.size(); ++i) {
    ET_CHECK_MSG(strides[i] == box->strides[i] || box->sizes[i] == 1,
                 "stride %zu is %lld, but the dim order gives %lld", i,
                 static_cast<long long>(strides[i]), static_cast<long long>(box->strides[i]));
  }
  size_t nbytes = 0;
  ET_CHECK_MSG(::etr::checked_mul(numel, runtime::elementSize(type), &nbytes),
               "byte size of %zu elements overflows", numel);
  box->impl.init_raw(type, dim, box->sizes.data(), box->dim_order.data(), box->strides.data(), data,
                     nbytes, static_cast<::etr::ShapeDynamism>(dynamism),
                     static_cast<int64_t>(numel));
  box->face = aten::Tensor(&box->impl);
  box->face.set_device(device);
  box->deleter = std::move(deleter);
  box->data = data;
  return TensorPtr(box, &box->face);
}

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                          std::vector<DimOrderType> dim_order, std::vector<StridesType> strides,
                          ScalarType type, aten::TensorShapeDynamism dynamism,
                          std::function<void(void*)> deleter) {
  return make_tensor_ptr(std::move(sizes), data, std::move(dim_order), std::move(strides), type,
                         aten::Device(aten::DeviceType::CPU, 0), dynamism, std::move(deleter));
}

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, std::vector<uint8_t> data,
                          std::vector<DimOrderType> dim_order, std::vector<StridesType> strides,
                          ScalarType type, aten::TensorShapeDynamism dynamism) {
  ET_CHECK_MSG(runtime::elementSize(type) != 0, "invalid dtype %d", static_cast<int>(type));
  const size_t numel = internal::checked_numel(sizes);
  size_t nbytes = 0;
  ET_CHECK_MSG(::etr::checked_mul(numel, runtime::elementSize(type), &nbytes),
               "byte size of %zu elements overflows", numel);
  ET_CHECK_MSG(data.size() == nbytes, "%zu bytes given for %zu %s elements (%zu bytes)",
               data.size(), numel, runtime::toString(type), nbytes);
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(data));
  void* raw = owned->empty() ? nullptr : owned->data();
  return make_tensor_ptr(std::move(sizes), raw, std::move(dim_order), std::move(strides), type,
                         dynamism, [owned](void*) {});
}

TensorPtr make_tensor_ptr(const aten::Tensor& tensor, std::vector<SizesType> sizes,
                          std::vector<DimOrderType> dim_order, std::vector<StridesType> strides,
                          std::function<void(void*)> deleter) {
  ET_CHECK_MSG(tensor.unsafeGetTensorImpl() != nullptr, "make_tensor_ptr: the tensor is empty");
  if (sizes.empty()) sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
  const bool same_rank = sizes.size() == static_cast<size_t>(tensor.dim());
  const size_t numel = internal::checked_numel(sizes);
  ET_CHECK_MSG(numel <= static_cast<size_t>(tensor.numel()),
               "the view has %zu elements, but the tensor only %zd", numel,
               static_cast<ssize_t>(tensor.numel()));
  // A view of the same rank keeps the tensor's dim order unless told otherwise.
  if (dim_order.empty() && strides.empty() && same_rank) {
    dim_order.assign(tensor.dim_order().begin(), tensor.dim_order().end());
  }
  return make_tensor_ptr(std::move(sizes), tensor.mutable_data_ptr(), std::move(dim_order),
                         std::move(strides), tensor.scalar_type(), tensor.device(),
                         tensor.shape_dynamism(), std::move(deleter));
}

TensorPtr clone_tensor_ptr(const aten::Tensor& tensor, ScalarType type) {
  ET_CHECK_MSG(tensor.unsafeGetTensorImpl() != nullptr, "clone_tensor_ptr: the tensor is empty");
  std::vector<SizesType> sizes(tensor.sizes().begin(), tensor.sizes().end());
  std::vector<DimOrderType> dim_order(tensor.dim_order().begin(), tensor.dim_order().end());
  std::vector<StridesType> strides(tensor.strides().begin(), tensor.strides().end());
  const void* src = tensor.const_data_ptr();
  if (src == nullptr) {
    return make_tensor_ptr(std::move(sizes), nullptr, std::move(dim_order), std::move(strides),
                           type, tensor.shape_dynamism());
  }
  const ScalarType from = tensor.scalar_type();
  ET_CHECK_MSG(from == type || runtime::canCast(from, type),
               "clone_tensor_ptr: cannot cast %s to %s", runtime::toString(from),
               runtime::toString(type));
  const size_t numel = static_cast<size_t>(tensor.numel());
  std::vector<uint8_t> bytes(numel * runtime::elementSize(type));
  if (from == type) {
    if (!bytes.empty()) std::memcpy(bytes.data(), src, bytes.size());
  } else {
    ET_CHECK_MSG(internal::cast_elements(src, numel, from, type, bytes.data()),
                 "clone_tensor_ptr: unsupported cast from %s to %s", runtime::toString(from),
                 runtime::toString(type));
  }
  return make_tensor_ptr(std::move(sizes), std::move(bytes), std::move(dim_order),
                         std::move(strides), type, tensor.shape_dynamism());
}

Error resize_tensor_ptr(TensorPtr& tensor, const std::vector<SizesType>& sizes) {
  ::etr::Tensor* impl = deref(tensor, "resize_tensor_ptr").unsafeGetTensorImpl();
  ET_CHECK_OR_RETURN_ERROR(sizes.size() == impl->dim(), NotSupported,
                           "resize_tensor_ptr: the rank is fixed (%zu), got %zu sizes", impl->dim(),
                           sizes.size());
  int64_t numel = 1;
  bool same = true;
  for (size_t i = 0; i < sizes.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(sizes[i] >= 0, InvalidArgument,
                             "resize_tensor_ptr: size %zu is negative: %d", i, sizes[i]);
    ET_CHECK_OR_RETURN_ERROR(::etr::checked_mul_i64(numel, sizes[i], &numel), InvalidArgument,
                             "resize_tensor_ptr: the element count overflows");
    same = same && sizes[i] == impl->size(i);
  }
  if (same) return Error::Ok;
  ET_CHECK_OR_RETURN_ERROR(impl->shape_dynamism() != ::etr::ShapeDynamism::Static, NotSupported,
                           "resize_tensor_ptr: the tensor has a static shape");
  ET_CHECK_OR_RETURN_ERROR(
      static_cast<size_t>(numel) * impl->element_size() <= impl->capacity_bytes(), NotSupported,
      "resize_tensor_ptr: %lld elements exceed the tensor's capacity of %zu bytes",
      static_cast<long long>(numel), impl->capacity_bytes());
  const ::etr::Error err =
      ::etr::resize_tensor(*impl, ::etr::Span<const int32_t>(sizes.data(), sizes.size()));
  return err == ::etr::Error::Ok ? Error::Ok : Error::NotSupported;
}

// ---- Allocating makers -------------------------------------------------------

TensorPtr empty_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                        ScalarType type, aten::TensorShapeDynamism dynamism) {
  return make_owned_zeros(std::move(sizes), std::move(strides), type, dynamism);
}

TensorPtr full_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                       aten::Scalar fill_value, ScalarType type,
                       aten::TensorShapeDynamism dynamism) {
  TensorPtr t = make_owned_zeros(std::move(sizes), std::move(strides), type, dynamism);
  const size_t count = static_cast<size_t>(t->numel());
  void* data = t->mutable_data_ptr();
  if (fill_value.isFloatingPoint()) {
    const double v = fill_value.to<double>();
    fill_with(data, count, type, [v] { return v; });
  } else if (fill_value.isBoolean()) {
    const int64_t v = fill_value.to<bool>() ? 1 : 0;
    fill_with(data, count, type, [v] { return v; });
  } else {
    const int64_t v = fill_value.to<int64_t>();
    fill_with(data, count, type, [v] { return v; });
  }
  return t;
}

namespace {
// One generator per thread, seeded from the system.
std::mt19937& generator() {
  thread_local std::mt19937 gen{std::random_device{}()};
  return gen;
}
}  // namespace

TensorPtr rand_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                       ScalarType type, aten::TensorShapeDynamism dynamism) {
  TensorPtr t = make_owned_zeros(std::move(sizes), std::move(strides), type, dynamism);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  // A value that rounds up to 1 in a narrow dtype (Half, BFloat16) is drawn
  // again, so every element stays in [0, 1).
  const ScalarType store = type;
  fill_with(t->mutable_data_ptr(), static_cast<size_t>(t->numel()), type, [&] {
    for (;;) {
      const double v = dist(generator());
      uint8_t probe[8] = {};
      double back = 0.0;
      if (internal::cast_elements(&v, 1, ScalarType::Double, store, probe) &&
          internal::cast_elements(probe, 1, store, ScalarType::Double, &back) && back < 1.0) {
        return v;
      }
    }
  });
  return t;
}

TensorPtr randn_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                        ScalarType type, aten::TensorShapeDynamism dynamism) {
  TensorPtr t = make_owned_zeros(std::move(sizes), std::move(strides), type, dynamism);
  std::normal_distribution<double> dist(0.0, 1.0);
  fill_with(t->mutable_data_ptr(), static_cast<size_t>(t->numel()), type,
            [&] { return dist(generator()); });
  return t;
}

TensorPtr randint_strided(int64_t low, int64_t high, std::vector<SizesType> sizes,
                          std::vector<StridesType> strides, ScalarType type,
                          aten::TensorShapeDynamism dynamism) {
  ET_CHECK_MSG(low < high, "randint: low (%lld) must be below high (%lld)",
               static_cast<long long>(low), static_cast<long long>(high));
  TensorPtr t = make_owned_zeros(std::move(sizes), std::move(strides), type, dynamism);
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  fill_with(t->mutable_data_ptr(), static_cast<size_t>(t->numel()), type,
            [&] { return dist(generator()); });
  return t;
}

}  // namespace extension
}  // namespace executorch
