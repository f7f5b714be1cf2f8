// Compatibility layer (extension/compat): the official MethodMeta and
// TensorInfo over etr::MethodMeta. Valid while the Module they came from is.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/executor/method_meta.h"

namespace executorch {
namespace runtime {
namespace testing {
// Upstream's tests build TensorInfo values through this friend.
class TensorInfoTestFriend;
}  // namespace testing

class TensorInfo final {
 public:
  explicit TensorInfo(const ::etr::TensorInfo& info) : info_(info) {}

  Span<const int32_t> sizes() const { return info_.sizes; }
  Span<const uint8_t> dim_order() const { return info_.dim_order; }
  executorch::aten::ScalarType scalar_type() const { return info_.dtype; }
  bool is_memory_planned() const { return info_.is_memory_planned; }
  size_t nbytes() const { return info_.nbytes; }
  // The fully qualified name of an attribute tensor (a named buffer);
  // empty for inputs and outputs.
  std::string_view name() const {
    return info_.name == nullptr ? std::string_view()
                                 : std::string_view(info_.name, info_.name_size);
  }

 private:
  friend class testing::TensorInfoTestFriend;

  // A TensorInfo over caller-owned sizes, dim order and name (they must
  // outlive it). nbytes is the element count times the element size; a
  // product that overflows size_t aborts (ET_CHECK).
  static Result<TensorInfo> create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                   executorch::aten::ScalarType scalar_type, bool is_memory_planned,
                                   std::string_view name);

  ::etr::TensorInfo info_;
};

class MethodMeta final {
 public:
  explicit MethodMeta(const ::etr::MethodMeta& meta) : meta_(meta) {}

  const char* name() const { return meta_.name(); }
  size_t num_inputs() const { return meta_.num_inputs(); }
  Result<Tag> input_tag(size_t index) const;
  Result<TensorInfo> input_tensor_meta(size_t index) const;
  size_t num_outputs() const { return meta_.num_outputs(); }
  Result<Tag> output_tag(size_t index) const;
  Result<TensorInfo> output_tensor_meta(size_t index) const;
  size_t num_memory_planned_buffers() const { return meta_.num_memory_planned_buffers(); }
  Result<int64_t> memory_planned_buffer_size(size_t index) const;
  // etr plans CPU memory only: Device(CPU) for every valid index,
  // InvalidArgument otherwise.
  Result<etensor::Device> memory_planned_buffer_device(size_t index) const;
  // Attribute tensors: the method's tensors that carry a fully qualified
  // name (named buffers), in value order; InvalidArgument past the end.
  size_t num_attributes() const { return meta_.num_attributes(); }
  Result<TensorInfo> attribute_tensor_meta(size_t index) const;
  ET_DEPRECATED size_t num_non_const_buffers() const { return num_memory_planned_buffers(); }
  Result<int64_t> non_const_buffer_size(size_t index) const {
    return memory_planned_buffer_size(index);
  }
  size_t num_instructions() const { return meta_.num_instructions(); }
  size_t num_backends() const { return meta_.num_backends(); }
  Result<const char*> get_backend_name(size_t index) const;
  bool uses_backend(const char* backend_name) const { return meta_.uses_backend(backend_name); }

 private:
  ::etr::MethodMeta meta_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::MethodMeta;
using ::executorch::runtime::TensorInfo;
}  // namespace executor
}  // namespace torch
