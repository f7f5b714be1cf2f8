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

class Program;
struct MethodLoadOptions;

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
  // The tensor's fully qualified name (attribute tensors, e.g. a mutable
  // buffer "state"; points into the program), or null when it has none.
  const char* name = nullptr;
  size_t name_size = 0;
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
  // `program` (null: method_allocator_bytes() is unavailable) must outlive
  // the MethodMeta and stay where it is.
  explicit MethodMeta(const etr_fb::ExecutionPlan* plan, const Program* program = nullptr)
      : plan_(plan), program_(program) {}

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
  // Attribute tensors: the method's tensor values that carry a fully
  // qualified name, in value order (TensorInfo::name set).
  size_t num_attributes() const;
  [[nodiscard]] Result<TensorInfo> attribute_tensor_meta(size_t index) const;
  // The index in the method's value table (Method::value) of the attribute
  // tensor named `name` (`name_size` bytes); NotFound when none has it.
  [[nodiscard]] Result<size_t> attribute_value_index(const char* name, size_t name_size) const;
  size_t num_instructions() const;
  size_t num_backends() const;
  [[nodiscard]] Result<const char*> get_backend_name(size_t index) const;
  bool uses_backend(const char* name) const;
  // The method's operator table with call counts and argument dtypes (for
  // inspectors: no kernel is looked up). Out-of-range value indices in a
  // call are skipped here; load_method reports them.
  size_t num_operators() const;
  [[nodiscard]] Result<OperatorUse> operator_use(size_t index) const;

  // The exact size of the method allocator load_method needs with these
  // options: the smallest capacity of a MemoryAllocator whose buffer is
  // aligned to PlatformArena::kBufferAlignment (64 bytes) with which the load
  // grants every request it makes. It counts everything the load takes from
  // the method allocator: the method's tables (values, tensor metadata,
  // lists, instructions, operator names, I/O and delegate tables), kernel
  // prepare state (KernelPrepareContext::allocate: packed weights, plans),
  // the argument arrays of fused kernels, and delegate state
  // (BackendInitContext::method_allocator), unless options.delegate_allocator
  // is set (then delegate state is not counted: it goes there).
  //
  // It is measured, not estimated: the method is loaded once with `options`
  // (kernel registry, backends, external data, thread pool), with a
  // PlatformArena as the method allocator and planned buffers from the
  // platform heap, then everything is released. So it costs one method load
  // (kernel prepare steps and delegate init included) and needs the platform
  // heap: where platform_allocate() returns nullptr (bare metal) it fails
  // with MemoryAllocationFailed; such targets measure on a host with the same
  // kernels and hard-code the figure. A load error (missing operator, bad
  // program) is returned as it is.
  //
  // With fewer bytes, load_method fails with MemoryAllocationFailed (or the
  // delegate's DelegateMemoryAllocationFailed) naming what it was
  // allocating, or, where the request that no longer fits is optional kernel
  // state (packed weights), loads without it (slower, same results). Needs
  // a MethodMeta from Program::method_meta or Method::method_meta.
  [[nodiscard]] Result<size_t> method_allocator_bytes(const MethodLoadOptions& options) const;
  [[nodiscard]] Result<size_t> method_allocator_bytes() const;
  // With options.delegate_allocator set: the exact size of that allocator
  // (over a 64-byte-aligned buffer) for the delegates' state, measured the
  // same way (one load; the caller's allocator is not touched). 0 when it is
  // not set (delegate state is then in method_allocator_bytes()).
  [[nodiscard]] Result<size_t> delegate_allocator_bytes(const MethodLoadOptions& options) const;

  // Internal: the program's plan.
  const etr_fb::ExecutionPlan* plan() const { return plan_; }

 private:
  [[nodiscard]] Result<Tag> value_tag(int32_t value_index) const;
  [[nodiscard]] Result<TensorInfo> tensor_info(int32_t value_index) const;
  // One measuring load; either output may be null.
  [[nodiscard]] Error measure_load(const MethodLoadOptions& options, size_t* method_bytes,
                                   size_t* delegate_bytes) const;
  const etr_fb::ExecutionPlan* plan_;
  const Program* program_;
};

}  // namespace etr
