#include "runtime/executor/method_meta.h"

#include <cinttypes>
#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/executor/flatbuffer_util.h"
#include "runtime/executor/method.h"
#include "runtime/executor/platform_arena.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"
#include "schema/program_generated.h"

namespace etr {
namespace {

template <typename V>
size_t vec_size(const V* v) {
  return v == nullptr ? 0 : v->size();
}

Tag tag_of(etr_fb::KernelTypes t) {
  switch (t) {
    case etr_fb::KernelTypes::Null: return Tag::None;
    case etr_fb::KernelTypes::Int: return Tag::Int;
    case etr_fb::KernelTypes::Bool: return Tag::Bool;
    case etr_fb::KernelTypes::Double: return Tag::Double;
    case etr_fb::KernelTypes::Tensor: return Tag::Tensor;
    case etr_fb::KernelTypes::String: return Tag::String;
    case etr_fb::KernelTypes::IntList: return Tag::IntList;
    case etr_fb::KernelTypes::DoubleList: return Tag::DoubleList;
    case etr_fb::KernelTypes::BoolList: return Tag::BoolList;
    case etr_fb::KernelTypes::TensorList: return Tag::TensorList;
    case etr_fb::KernelTypes::OptionalTensorList: return Tag::OptionalTensorList;
    default: return Tag::None;
  }
}

}  // namespace

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  const auto* plans = program_->execution_plan();
  const flatbuffers::uoffset_t num_plans = plans == nullptr ? 0 : plans->size();
  for (flatbuffers::uoffset_t i = 0; i < num_plans; ++i) {
    const etr_fb::ExecutionPlan* plan = plans->Get(i);
    // A plan without a name cannot be asked for by name.
    if (plan == nullptr || plan->name() == nullptr) continue;
    if (std::strcmp(plan->name()->c_str(), method_name) == 0) {
      if (plan->values() == nullptr || plan->inputs() == nullptr || plan->outputs() == nullptr ||
          plan->non_const_buffer_sizes() == nullptr ||
          !internal::vector_aligned(plan->non_const_buffer_sizes())) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': values, inputs, outputs or non_const_buffer_sizes is missing or "
                 "misaligned",
                 method_name);
      }
      return MethodMeta(plan, this);
    }
  }
  ETR_FAIL(Error::NotFound, "program has no method named '%s'", method_name);
}

const char* MethodMeta::name() const { return plan_->name()->c_str(); }
size_t MethodMeta::num_inputs() const { return vec_size(plan_->inputs()); }
size_t MethodMeta::num_outputs() const { return vec_size(plan_->outputs()); }

Result<Tag> MethodMeta::value_tag(int32_t value_index) const {
  const auto* values = plan_->values();
  if (value_index < 0 || static_cast<size_t>(value_index) >= vec_size(values)) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': value index %" PRId32 " is out of range (%zu values)", name(),
             value_index, vec_size(values));
  }
  const etr_fb::EValue* v = values->Get(static_cast<flatbuffers::uoffset_t>(value_index));
  if (v == nullptr)
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%" PRId32 "] is null", name(),
             value_index);
  return tag_of(v->val_type());
}

Result<Tag> MethodMeta::input_tag(size_t index) const {
  if (index >= num_inputs()) {
    ETR_FAIL(Error::InvalidArgument, "input index %zu is out of range (%zu inputs)", index,
             num_inputs());
  }
  return value_tag(plan_->inputs()->Get(static_cast<flatbuffers::uoffset_t>(index)));
}

Result<Tag> MethodMeta::output_tag(size_t index) const {
  if (index >= num_outputs()) {
    ETR_FAIL(Error::InvalidArgument, "output index %zu is out of range (%zu outputs)", index,
             num_outputs());
  }
  return value_tag(plan_->outputs()->Get(static_cast<flatbuffers::uoffset_t>(index)));
}

Result<TensorInfo> MethodMeta::tensor_info(int32_t value_index) const {
  ETR_ASSIGN_OR_RETURN(const Tag tag, value_tag(value_index));
  if (tag != Tag::Tensor) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': value %" PRId32 " is %s, not a Tensor", name(),
             value_index, to_string(tag));
  }
  const etr_fb::Tensor* t =
      plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(value_index))->val_as_Tensor();
  if (t == nullptr || t->sizes() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': tensor value %" PRId32 " has no sizes", name(),
             value_index);
  }
  TensorInfo info;
  info.dtype = static_cast<ScalarType>(t->scalar_type());
  info.sizes = Span<const int32_t>(t->sizes()->data(), t->sizes()->size());
  info.dim_order = t->dim_order() == nullptr
                       ? Span<const uint8_t>()
                       : Span<const uint8_t>(t->dim_order()->data(), t->dim_order()->size());
  info.is_memory_planned = t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
  info.is_dynamic = t->shape_dynamism() != etr_fb::TensorShapeDynamism::STATIC;
  size_t n = element_size(info.dtype);
  if (n == 0) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': tensor value %" PRId32 " has invalid dtype %d",
             name(), value_index, static_cast<int>(info.dtype));
  }
  for (int32_t s : info.sizes) {
    if (s < 0 || !checked_mul(n, static_cast<size_t>(s), &n)) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': tensor value %" PRId32 " has an invalid size",
               name(), value_index);
    }
  }
  info.nbytes = n;
  return info;
}

namespace {
// The fully qualified name of a serialized value when it is a named tensor,
// else null.
const flatbuffers::String* attribute_name(const etr_fb::EValue* value) {
  const etr_fb::Tensor* t = value == nullptr ? nullptr : value->val_as_Tensor();
  if (t == nullptr || t->extra_tensor_info() == nullptr) return nullptr;
  return t->extra_tensor_info()->fully_qualified_name();
}
}  // namespace

size_t MethodMeta::num_attributes() const {
  size_t count = 0;
  const size_t n = vec_size(plan_->values());
  for (size_t i = 0; i < n; ++i) {
    if (attribute_name(plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(i))) != nullptr) {
      ++count;
    }
  }
  return count;
}

Result<TensorInfo> MethodMeta::attribute_tensor_meta(size_t index) const {
  size_t seen = 0;
  const size_t n = vec_size(plan_->values());
  for (size_t i = 0; i < n; ++i) {
    const flatbuffers::String* fqn =
        attribute_name(plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(i)));
    if (fqn == nullptr) continue;
    if (seen++ == index) {
      ETR_ASSIGN_OR_RETURN(TensorInfo info, tensor_info(static_cast<int32_t>(i)));
      info.name = fqn->c_str();
      info.name_size = fqn->size();
      return info;
    }
  }
  ETR_FAIL(Error::InvalidArgument, "attribute index %zu is out of range (%zu attributes)", index,
           seen);
}

Result<size_t> MethodMeta::attribute_value_index(const char* name, size_t name_size) const {
  if (name == nullptr && name_size != 0) ETR_FAIL(Error::InvalidArgument, "attribute: null name");
  const size_t n = vec_size(plan_->values());
  for (size_t i = 0; i < n; ++i) {
    const flatbuffers::String* fqn =
        attribute_name(plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(i)));
    if (fqn != nullptr && fqn->size() == name_size &&
        (name_size == 0 || std::memcmp(fqn->data(), name, name_size) == 0)) {
      return i;
    }
  }
  ETR_FAIL(Error::NotFound, "method '%s' has no attribute tensor named '%.*s'", this->name(),
           static_cast<int>(name_size < 256 ? name_size : 256), name_size == 0 ? "" : name);
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  if (index >= num_inputs()) {
    ETR_FAIL(Error::InvalidArgument, "input index %zu is out of range (%zu inputs)", index,
             num_inputs());
  }
  return tensor_info(plan_->inputs()->Get(static_cast<flatbuffers::uoffset_t>(index)));
}

Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  if (index >= num_outputs()) {
    ETR_FAIL(Error::InvalidArgument, "output index %zu is out of range (%zu outputs)", index,
             num_outputs());
  }
  return tensor_info(plan_->outputs()->Get(static_cast<flatbuffers::uoffset_t>(index)));
}

size_t MethodMeta::num_memory_planned_buffers() const {
  const size_t n = vec_size(plan_->non_const_buffer_sizes());
  return n == 0 ? 0 : n - 1;  // entry 0 is reserved
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  if (index >= num_memory_planned_buffers()) {
    ETR_FAIL(Error::InvalidArgument, "planned buffer index %zu is out of range (%zu buffers)",
             index, num_memory_planned_buffers());
  }
  const int64_t size =
      plan_->non_const_buffer_sizes()->Get(static_cast<flatbuffers::uoffset_t>(index + 1));
  if (size < 0) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': planned buffer %zu has negative size", name(),
             index);
  }
  return size;
}

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  const auto* chains = plan_->chains();
  for (flatbuffers::uoffset_t i = 0; i < vec_size(chains); ++i) {
    const etr_fb::Chain* c = chains->Get(i);
    if (c != nullptr) n += vec_size(c->instructions());
  }
  return n;
}

size_t MethodMeta::num_backends() const { return vec_size(plan_->delegates()); }

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  if (index >= num_backends()) {
    ETR_FAIL(Error::InvalidArgument, "backend index %zu is out of range (%zu delegates)", index,
             num_backends());
  }
  const etr_fb::BackendDelegate* d =
      plan_->delegates()->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (d == nullptr || d->id() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %zu has no id", name(), index);
  }
  return d->id()->c_str();
}

bool MethodMeta::uses_backend(const char* backend_name) const {
  for (size_t i = 0; i < num_backends(); ++i) {
    Result<const char*> n = get_backend_name(i);
    if (n.ok() && std::strcmp(*n, backend_name) == 0) return true;
  }
  return false;
}

size_t MethodMeta::num_operators() const { return vec_size(plan_->operators()); }

Result<OperatorUse> MethodMeta::operator_use(size_t index) const {
  if (index >= num_operators()) {
    ETR_FAIL(Error::InvalidArgument, "operator index %zu is out of range (%zu operators)", index,
             num_operators());
  }
  const etr_fb::Operator* op = plan_->operators()->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (op == nullptr || op->name() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': operator %zu has no name", name(), index);
  }
  OperatorUse use{op->name()->c_str(), op->overload() == nullptr ? "" : op->overload()->c_str(), 0,
                  0};
  const auto* values = plan_->values();
  auto add_dtype = [&](int32_t v) {
    if (v < 0 || static_cast<size_t>(v) >= vec_size(values)) return;
    const etr_fb::EValue* ev = values->Get(static_cast<flatbuffers::uoffset_t>(v));
    const etr_fb::Tensor* t = ev == nullptr ? nullptr : ev->val_as_Tensor();
    const int dtype = t == nullptr ? -1 : static_cast<int>(t->scalar_type());
    if (dtype >= 0 && dtype < 64) use.dtype_bits |= uint64_t{1} << dtype;
  };
  const auto* chains = plan_->chains();
  for (flatbuffers::uoffset_t c = 0; c < vec_size(chains); ++c) {
    const auto* instrs = chains->Get(c) == nullptr ? nullptr : chains->Get(c)->instructions();
    for (flatbuffers::uoffset_t i = 0; i < vec_size(instrs); ++i) {
      const etr_fb::Instruction* in = instrs->Get(i);
      const etr_fb::KernelCall* call = in == nullptr ? nullptr : in->instr_args_as_KernelCall();
      if (call == nullptr || call->op_index() < 0 || static_cast<size_t>(call->op_index()) != index)
        continue;
      ++use.calls;
      for (flatbuffers::uoffset_t a = 0; a < vec_size(call->args()); ++a) {
        const int32_t v = call->args()->Get(a);
        add_dtype(v);
        if (v < 0 || static_cast<size_t>(v) >= vec_size(values) || values->Get(v) == nullptr)
          continue;
        const etr_fb::TensorList* list = values->Get(v)->val_as_TensorList();
        for (flatbuffers::uoffset_t k = 0; list != nullptr && k < vec_size(list->items()); ++k)
          add_dtype(list->items()->Get(k));
      }
    }
  }
  return use;
}

namespace {

// Planned buffers from the platform heap, for a measuring load; freed on destruction.
class HeapPlannedMemory final {
 public:
  ~HeapPlannedMemory() {
    for (size_t i = 0; i < count_; ++i) platform_deallocate(spans_[i].data());
    platform_deallocate(spans_);
  }
  // False when the heap refuses (the message says which buffer).
  [[nodiscard]] Error allocate(const MethodMeta& meta) {
    const size_t n = meta.num_memory_planned_buffers();
    spans_ = static_cast<Span<uint8_t>*>(
        platform_allocate((n == 0 ? 1 : n) * sizeof(Span<uint8_t>), alignof(Span<uint8_t>)));
    if (spans_ == nullptr) return no_heap(meta, "the planned buffer table");
    for (; count_ < n; ++count_) {
      ETR_ASSIGN_OR_RETURN(const int64_t size, meta.memory_planned_buffer_size(count_));
      if (static_cast<uint64_t>(size) > SIZE_MAX - PlatformArena::kBufferAlignment) {
        ETR_FAIL(Error::MemoryAllocationFailed,
                 "method '%s': planned buffer %zu (%lld bytes) does not fit this address space",
                 meta.name(), count_, static_cast<long long>(size));
      }
      const size_t bytes = static_cast<size_t>(size);
      void* p = platform_allocate(bytes == 0 ? 1 : bytes, PlatformArena::kBufferAlignment);
      if (p == nullptr) return no_heap(meta, "a planned buffer");
      spans_[count_] = Span<uint8_t>(static_cast<uint8_t*>(p), bytes);
    }
    planned_ = HierarchicalAllocator(Span<Span<uint8_t>>(spans_, count_));
    return Error::Ok;
  }
  HierarchicalAllocator* planned() { return &planned_; }

  static Error no_heap(const MethodMeta& meta, const char* what) {
    ETR_FAIL(Error::MemoryAllocationFailed,
             "method '%s': measuring the method allocator needs the platform heap, which refused "
             "%s (measure on a host and use that figure)",
             meta.name(), what);
  }

 private:
  Span<uint8_t>* spans_ = nullptr;
  size_t count_ = 0;
  HierarchicalAllocator planned_;
};

}  // namespace

Result<size_t> MethodMeta::method_allocator_bytes() const {
  return method_allocator_bytes(MethodLoadOptions());
}

Result<size_t> MethodMeta::method_allocator_bytes(const MethodLoadOptions& options) const {
  size_t method_bytes = 0;
  ETR_RETURN_IF_ERROR(measure_load(options, &method_bytes, nullptr));
  return method_bytes;
}

Result<size_t> MethodMeta::delegate_allocator_bytes(const MethodLoadOptions& options) const {
  if (options.delegate_allocator == nullptr) return size_t{0};
  size_t delegate_bytes = 0;
  ETR_RETURN_IF_ERROR(measure_load(options, nullptr, &delegate_bytes));
  return delegate_bytes;
}

Error MethodMeta::measure_load(const MethodLoadOptions& options, size_t* method_bytes,
                               size_t* delegate_bytes) const {
  if (program_ == nullptr) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s': measuring its memory needs a MethodMeta from its Program", name());
  }
  HeapPlannedMemory planned;
  ETR_RETURN_IF_ERROR(planned.allocate(*this));
  // Declared before the method, so the method (and its delegates) goes first.
  PlatformArena method_arena;
  PlatformArena delegate_arena;
  MethodLoadOptions measuring = options;
  // The caller's delegate allocator stays untouched; a stand-in measures it.
  if (options.delegate_allocator != nullptr) measuring.delegate_allocator = &delegate_arena;
  // A measuring load is not the caller's load: its observer does not see it.
  measuring.observer = nullptr;
  MemoryManager memory(&method_arena, planned.planned());
  Result<Method> method = program_->load_method(name(), &memory, measuring);
  if (method_arena.heap_failed() || delegate_arena.heap_failed())
    return HeapPlannedMemory::no_heap(*this, "a method-allocator chunk");
  if (!method.ok()) {
    ETR_FAIL(method.error(), "method '%s': cannot measure its memory: the load failed", name());
  }
  if (method_bytes != nullptr) *method_bytes = method_arena.bytes_needed();
  if (delegate_bytes != nullptr) *delegate_bytes = delegate_arena.bytes_needed();
  return Error::Ok;
}

}  // namespace etr
