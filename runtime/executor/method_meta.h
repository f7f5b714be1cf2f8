// MethodMeta: what a method needs and exposes, readable before loading it
// (e.g. to size planned buffers).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace etr_fb {
struct ExecutionPlan;
}

namespace etr {

// Shape and dtype of a tensor input or output as declared in the program.
// Spans point into the program; they are valid as long as the Program is.
struct TensorInfo {
  ScalarType dtype;
  Span<const int32_t> sizes;
  Span<const uint8_t> dim_order;
  // True when the program places the tensor in planned memory.
  bool is_memory_planned;
  // nbytes at the declared (upper-bound) sizes.
  size_t nbytes;
  bool is_dynamic;
};

// One operator of a method's operator table and how the method calls it.
struct OperatorUse {
  const char* name;      // "aten::add" (points into the program)
  const char* overload;  // "out", or "" when the program stores none
  size_t calls;          // KernelCall instructions that call it
  // Bit i set: some call passes a tensor (or tensor-list item) of ScalarType i.
  uint64_t dtype_bits;
};

class MethodMeta final {
 public:
  explicit MethodMeta(const etr_fb::ExecutionPlan* plan) : plan_(plan) {}

  const char* name() const;
  size_t num_inputs() const;
  [[nodiscard]] Result<Tag> input_tag(size_t index) const;
  [[nodiscard]] Result<TensorInfo> input_tensor_meta(size_t index) const;
  size_t num_outputs() const;
  [[nodiscard]] Result<Tag> output_tag(size_t index) const;
  [[nodiscard]] Result<TensorInfo> output_tensor_meta(size_t index) const;
  // Planned buffers the caller must provide (memory ids 1..n in the file).
  size_t num_memory_planned_buffers() const;
  [[nodiscard]] Result<int64_t> memory_planned_buffer_size(size_t index) const;
  size_t num_instructions() const;
  size_t num_backends() const;
  [[nodiscard]] Result<const char*> get_backend_name(size_t index) const;
  bool uses_backend(const char* name) const;
  // The method's operator table with call counts and argument dtypes (for
  // inspectors: no kernel is looked up). Out-of-range value indices in a
  // call are skipped here; load_method reports them.
  size_t num_operators() const;
  [[nodiscard]] Result<OperatorUse> operator_use(size_t index) const;

  // Bytes load_method takes from the method allocator for the method's own
  // tables (values, tensor metadata, lists, instructions, I/O and delegate
  // tables): a method allocator of exactly this size, aligned to 16 bytes,
  // is enough for a method whose kernels and delegates keep no state. Kernels
  // whose prepare step builds state and delegates' init allocate after it,
  // from the same allocator (its used() shows the total after load).
  size_t method_allocator_bytes() const;

  // Internal: the program's plan.
  const etr_fb::ExecutionPlan* plan() const { return plan_; }

 private:
  [[nodiscard]] Result<Tag> value_tag(int32_t value_index) const;
  [[nodiscard]] Result<TensorInfo> tensor_info(int32_t value_index) const;
  const etr_fb::ExecutionPlan* plan_;
};

}  // namespace etr
