#include "extension/tensor/host_tensor.h"

#include <array>
#include <cmath>
#include <cstring>

#include "runtime/core/checked_math.h"

namespace etr {
namespace {

double half_bits_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else if (exponent == 0x1f) {
    v = mantissa == 0 ? HUGE_VAL : std::nan("");
  } else {
    v = std::ldexp(static_cast<double>(mantissa + 0x400), exponent - 25);
  }
  return (h & 0x8000) != 0 ? -v : v;
}

template <typename T>
T load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void fill_with(std::vector<uint8_t>& bytes, size_t count, T value) {
  for (size_t i = 0; i < count; ++i) std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
}

}  // namespace

Result<HostTensor> HostTensor::zeros(ScalarType dtype, std::vector<int32_t> sizes,
                                     std::vector<uint8_t> dim_order, ShapeDynamism dynamism) {
  const size_t elem = element_size(dtype);
  if (elem == 0) {
    ETR_FAIL(Error::InvalidType, "invalid dtype code %d", static_cast<int>(dtype));
  }
  if (sizes.size() > kTensorMaxDim) {
    ETR_FAIL(Error::InvalidArgument, "rank %zu exceeds the limit of %zu", sizes.size(),
             kTensorMaxDim);
  }
  if (dim_order.empty()) {
    for (size_t i = 0; i < sizes.size(); ++i) dim_order.push_back(static_cast<uint8_t>(i));
  }
  HostTensor t;
  t.sizes_ = std::move(sizes);
  t.dim_order_ = std::move(dim_order);
  t.strides_.assign(t.sizes_.size() + 1, 0);  // +1: never empty
  int64_t numel = 0;
  const Span<const int32_t> shape(t.sizes_.data(), t.sizes_.size());
  if (!compute_strides(shape, Span<const uint8_t>(t.dim_order_.data(), t.dim_order_.size()),
                       t.strides_.data(), &numel)) {
    ETR_FAIL(Error::InvalidArgument, "invalid shape %s or dim order for the tensor",
             shape_string(shape).c_str());
  }
  size_t nbytes = 0;
  if (!checked_mul(static_cast<size_t>(numel), elem, &nbytes)) {
    ETR_FAIL(Error::MemoryAllocationFailed, "byte size of a %s tensor of shape %s overflows",
             to_string(dtype), shape_string(shape).c_str());
  }
  t.bytes_.assign(nbytes == 0 ? 1 : nbytes, 0);
  t.tensor_ = Tensor(dtype, t.sizes_.size(), t.sizes_.data(), t.dim_order_.data(),
                     t.strides_.data(), t.bytes_.data(), dynamism);
  return Result<HostTensor>(std::move(t));
}

Result<HostTensor> HostTensor::from_bytes(ScalarType dtype, std::vector<int32_t> sizes,
                                          const void* data, size_t nbytes,
                                          std::vector<uint8_t> dim_order, ShapeDynamism dynamism) {
  Result<HostTensor> r = zeros(dtype, std::move(sizes), std::move(dim_order), dynamism);
  if (!r.ok()) return r;
  if (r->nbytes() != nbytes) {
    ETR_FAIL(Error::InvalidArgument, "expected %zu bytes for a %s tensor of shape %s, got %zu",
             r->nbytes(), to_string(dtype), shape_string(r->sizes()).c_str(), nbytes);
  }
  if (nbytes > 0) std::memcpy(r->data(), data, nbytes);
  return r;
}

Result<HostTensor> HostTensor::from_elements(ScalarType dtype, std::vector<int32_t> sizes,
                                             const void* data, size_t count,
                                             std::vector<uint8_t> dim_order,
                                             ShapeDynamism dynamism) {
  Result<HostTensor> r = zeros(dtype, std::move(sizes), std::move(dim_order), dynamism);
  if (!r.ok()) return r;
  const size_t numel = static_cast<size_t>(r->tensor().numel());
  if (count != numel) {
    ETR_FAIL(Error::InvalidArgument, "expected %zu values for a %s tensor of shape %s, got %zu",
             numel, to_string(dtype), shape_string(r->sizes()).c_str(), count);
  }
  if (r->nbytes() > 0) std::memcpy(r->data(), data, r->nbytes());
  return r;
}

Result<HostTensor> HostTensor::contiguous_copy(const Tensor& t) {
  std::vector<int32_t> sizes(t.sizes().begin(), t.sizes().end());
  Result<HostTensor> r = zeros(t.dtype(), std::move(sizes));
  if (!r.ok()) return r;
  const size_t elem = t.element_size();
  const size_t n = static_cast<size_t>(t.numel());
  if (n == 0) return r;
  if (t.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "cannot copy a %s tensor of shape %s: it has no data",
             to_string(t.dtype()), shape_string(t.sizes()).c_str());
  }
  const uint8_t* src = static_cast<const uint8_t*>(t.const_data());
  if (t.is_contiguous_order()) {
    std::memcpy(r->data(), src, n * elem);
    return r;
  }
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(r->data() + i * elem, src + element_offset(t, i), elem);
  }
  return r;
}

HostTensor::HostTensor(HostTensor&& other) noexcept
    : sizes_(std::move(other.sizes_)),
      dim_order_(std::move(other.dim_order_)),
      strides_(std::move(other.strides_)),
      bytes_(std::move(other.bytes_)) {
  rebind(other.tensor_);
}

HostTensor& HostTensor::operator=(HostTensor&& other) noexcept {
  if (this != &other) {
    sizes_ = std::move(other.sizes_);
    dim_order_ = std::move(other.dim_order_);
    strides_ = std::move(other.strides_);
    bytes_ = std::move(other.bytes_);
    rebind(other.tensor_);
  }
  return *this;
}

void HostTensor::rebind(const Tensor& shape_source) {
  // The vectors' heap buffers moved with them; point the view at them and
  // keep the (possibly resized) shape state of the source.
  tensor_.init_raw(shape_source.dtype(), shape_source.dim(), sizes_.data(), dim_order_.data(),
                   strides_.data(), bytes_.data(), shape_source.capacity_bytes(),
                   shape_source.shape_dynamism(), shape_source.numel());
}

Error HostTensor::fill_ones() {
  const size_t n = static_cast<size_t>(tensor_.numel());
  switch (dtype()) {
    case ScalarType::Bool:
    case ScalarType::Byte: fill_with<uint8_t>(bytes_, n, 1); break;
    case ScalarType::Char: fill_with<int8_t>(bytes_, n, 1); break;
    case ScalarType::Short: fill_with<int16_t>(bytes_, n, 1); break;
    case ScalarType::Int: fill_with<int32_t>(bytes_, n, 1); break;
    case ScalarType::Long: fill_with<int64_t>(bytes_, n, 1); break;
    case ScalarType::UInt16: fill_with<uint16_t>(bytes_, n, 1); break;
    case ScalarType::UInt32: fill_with<uint32_t>(bytes_, n, 1); break;
    case ScalarType::UInt64: fill_with<uint64_t>(bytes_, n, 1); break;
    case ScalarType::Float: fill_with<float>(bytes_, n, 1.0f); break;
    case ScalarType::Double: fill_with<double>(bytes_, n, 1.0); break;
    case ScalarType::Half: fill_with<uint16_t>(bytes_, n, 0x3c00); break;
    case ScalarType::BFloat16: fill_with<uint16_t>(bytes_, n, 0x3f80); break;
    // Complex one: real part one, imaginary part zero.
    case ScalarType::ComplexHalf: fill_with(bytes_, n, std::array<uint16_t, 2>{0x3c00, 0}); break;
    case ScalarType::ComplexFloat: fill_with(bytes_, n, std::array<float, 2>{1.0f, 0.0f}); break;
    case ScalarType::ComplexDouble: fill_with(bytes_, n, std::array<double, 2>{1.0, 0.0}); break;
    default: ETR_FAIL(Error::NotSupported, "cannot fill a %s tensor with ones", to_string(dtype()));
  }
  return Error::Ok;
}

std::vector<int32_t> HostTensor::shape() const {
  return std::vector<int32_t>(tensor_.sizes().begin(), tensor_.sizes().end());
}

bool HostTensor::check_value_size(size_t value_size) const {
  if (value_size == tensor_.element_size()) return true;
  ETR_LOG(Error, "values(): a %zu-byte element type cannot read a %s tensor (%zu-byte elements)",
          value_size, to_string(dtype()), tensor_.element_size());
  return false;
}

std::string shape_string(Span<const int32_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(sizes[i]);
  }
  return s + "]";
}

bool element_to_double(ScalarType dtype, const void* p, double* out) {
  switch (dtype) {
    case ScalarType::Bool: *out = load<uint8_t>(p) != 0 ? 1.0 : 0.0; return true;
    case ScalarType::Byte: *out = load<uint8_t>(p); return true;
    case ScalarType::Char: *out = load<int8_t>(p); return true;
    case ScalarType::Short: *out = load<int16_t>(p); return true;
    case ScalarType::Int: *out = load<int32_t>(p); return true;
    case ScalarType::Long: *out = static_cast<double>(load<int64_t>(p)); return true;
    case ScalarType::UInt16: *out = load<uint16_t>(p); return true;
    case ScalarType::UInt32: *out = load<uint32_t>(p); return true;
    case ScalarType::UInt64: *out = static_cast<double>(load<uint64_t>(p)); return true;
    case ScalarType::Float: *out = load<float>(p); return true;
    case ScalarType::Double: *out = load<double>(p); return true;
    case ScalarType::Half: *out = half_bits_to_double(load<uint16_t>(p)); return true;
    case ScalarType::BFloat16: {
      const uint32_t bits = static_cast<uint32_t>(load<uint16_t>(p)) << 16;
      *out = static_cast<double>(load<float>(&bits));
      return true;
    }
    default: return false;
  }
}

size_t element_offset(const Tensor& t, size_t linear) {
  int64_t offset = 0;
  for (size_t d = t.dim(); d-- > 0;) {
    const size_t size = static_cast<size_t>(t.size(d));
    if (size == 0) return 0;
    offset += static_cast<int64_t>(linear % size) * t.stride(d);
    linear /= size;
  }
  return static_cast<size_t>(offset) * t.element_size();
}

}  // namespace etr
