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

class TensorInfo final {
 public:
  explicit TensorInfo(const ::etr::TensorInfo& info) : info_(info) {}

  Span<const int32_t> sizes() const { return info_.sizes; }
  Span<const uint8_t> dim_order() const { return info_.dim_order; }
  executorch::aten::ScalarType scalar_type() const { return info_.dtype; }
  bool is_memory_planned() const { return info_.is_memory_planned; }
  size_t nbytes() const { return info_.nbytes; }
  // etr programs carry no tensor names: always empty.
  std::string_view name() const { return {}; }

 private:
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
  // etr programs expose no attribute tensors: 0, and NotFound.
  size_t num_attributes() const { return 0; }
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
