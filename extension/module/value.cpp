#include "extension/module/value.h"

#include "runtime/core/checked_math.h"

namespace etr {

Result<BorrowedTensor> BorrowedTensor::wrap(ScalarType dtype, std::vector<int32_t> sizes,
                                            void* data, std::vector<uint8_t> dim_order) {
  const size_t elem = element_size(dtype);
  if (elem == 0) ETR_FAIL(Error::InvalidType, "invalid dtype code %d", static_cast<int>(dtype));
  if (sizes.size() > kTensorMaxDim) {
    ETR_FAIL(Error::InvalidArgument, "rank %zu exceeds the limit of %zu", sizes.size(),
             kTensorMaxDim);
  }
  BorrowedTensor t;
  t.sizes_ = std::move(sizes);
  if (dim_order.empty()) {
    for (size_t i = 0; i < t.sizes_.size(); ++i) t.dim_order_.push_back(static_cast<uint8_t>(i));
  } else if (dim_order.size() != t.sizes_.size()) {
    ETR_FAIL(Error::InvalidArgument, "dim order of rank %zu for a tensor of rank %zu",
             dim_order.size(), t.sizes_.size());
  } else {
    t.dim_order_ = std::move(dim_order);
  }
  t.strides_.assign(t.sizes_.size() + 1, 0);  // +1: never empty
  const Span<const int32_t> shape(t.sizes_.data(), t.sizes_.size());
  int64_t numel = 0;
  if (!compute_strides(shape, Span<const uint8_t>(t.dim_order_.data(), t.dim_order_.size()),
                       t.strides_.data(), &numel)) {
    ETR_FAIL(Error::InvalidArgument, "invalid shape %s or dim order for a borrowed tensor",
             shape_string(shape).c_str());
  }
  size_t nbytes = 0;
  if (!checked_mul(static_cast<size_t>(numel), elem, &nbytes)) {
    ETR_FAIL(Error::MemoryAllocationFailed, "byte size of a %s tensor of shape %s overflows",
             to_string(dtype), shape_string(shape).c_str());
  }
  if (data == nullptr && nbytes != 0) {
    ETR_FAIL(Error::InvalidArgument, "null data for a %s tensor of shape %s", to_string(dtype),
             shape_string(shape).c_str());
  }
  t.tensor_ =
      Tensor(dtype, t.sizes_.size(), t.sizes_.data(), t.dim_order_.data(), t.strides_.data(), data);
  return Result<BorrowedTensor>(std::move(t));
}

BorrowedTensor::BorrowedTensor(BorrowedTensor&& other) noexcept
    : sizes_(std::move(other.sizes_)),
      dim_order_(std::move(other.dim_order_)),
      strides_(std::move(other.strides_)),
      tensor_(other.tensor_) {
  // The vectors' heap buffers moved with them, so the view stays valid.
  other.tensor_ = Tensor();
}

Value::Value(HostTensor t)
    : tag_(Tag::Tensor), owned_(std::make_shared<HostTensor>(std::move(t))) {}

Value::Value(BorrowedTensor t)
    : tag_(Tag::Tensor), borrowed_(std::make_shared<BorrowedTensor>(std::move(t))) {}

Value::Value(std::shared_ptr<HostTensor> t) : tag_(Tag::Tensor), owned_(std::move(t)) {
  if (owned_ == nullptr) {
    tag_ = Tag::None;
    error_ = Error::InvalidArgument;
  }
}

Value::Value(Result<HostTensor>&& t) {
  if (t.ok()) {
    tag_ = Tag::Tensor;
    owned_ = std::make_shared<HostTensor>(std::move(*t));
  } else {
    error_ = t.error();
  }
}

Value::Value(Result<BorrowedTensor>&& t) {
  if (t.ok()) {
    tag_ = Tag::Tensor;
    borrowed_ = std::make_shared<BorrowedTensor>(std::move(*t));
  } else {
    error_ = t.error();
  }
}

const Tensor& Value::tensor() const {
  return owned_ != nullptr ? owned_->tensor() : borrowed_->tensor();
}

Tensor& Value::mutable_tensor() {
  return owned_ != nullptr ? owned_->tensor() : borrowed_->tensor();
}

}  // namespace etr
