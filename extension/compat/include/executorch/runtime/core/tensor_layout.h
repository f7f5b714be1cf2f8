// Compatibility layer (extension/compat): the official TensorLayout (sizes,
// dim order, dtype and byte size of a tensor stored in named data).
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {

class TensorLayout final {
 public:
  TensorLayout() = delete;
  // InvalidArgument when the ranks differ, dim_order is not a permutation,
  // a size is negative or the byte size overflows.
  static Result<const TensorLayout> create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                           executorch::aten::ScalarType scalar_type);

  Span<const int32_t> sizes() const { return sizes_; }
  Span<const uint8_t> dim_order() const { return dim_order_; }
  executorch::aten::ScalarType scalar_type() const { return scalar_type_; }
  size_t nbytes() const { return nbytes_; }

 private:
  TensorLayout(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
               executorch::aten::ScalarType scalar_type, size_t nbytes)
      : sizes_(sizes), dim_order_(dim_order), scalar_type_(scalar_type), nbytes_(nbytes) {}

  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  executorch::aten::ScalarType scalar_type_;
  size_t nbytes_;
};

}  // namespace runtime
}  // namespace executorch
