// Method load, step 1: the value table (scalars, lists, tensors and where
// each tensor's memory comes from).
#include <cinttypes>
#include <cstring>
#include <new>

#include "runtime/core/checked_math.h"
#include "runtime/executor/flatbuffer_util.h"
#include "runtime/executor/method_loader.h"

namespace etr {

Error method_allocation_failed(const char* method, const char* what, size_t bytes) {
  ETR_FAIL(Error::MemoryAllocationFailed,
           "method '%s': method allocator is out of memory allocating %zu bytes for %s", method,
           bytes, what);
}

Error MethodLoader::parse_values() {
  const auto* values = plan_->values();
  const size_t n = values->size();
  method_->s_.values = alloc_->allocate_array<EValue>(n);
  if (method_->s_.values == nullptr && n != 0) {
    return method_allocation_failed(name(), "the value table", n * sizeof(EValue));
  }
  for (size_t i = 0; i < n; ++i) new (&method_->s_.values[i]) EValue();
  method_->s_.num_values = n;
  if (n != 0) {
    constant_values_ = alloc_->allocate_array<uint8_t>((n + 7) / 8);
    if (constant_values_ == nullptr)
      return method_allocation_failed(name(), "the constant value map", (n + 7) / 8);
    std::memset(constant_values_, 0, (n + 7) / 8);
  }
  // External constants own a buffer each for the method's lifetime.
  size_t num_external = 0;
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    const etr_fb::EValue* v = values->Get(i);
    const etr_fb::Tensor* t = v == nullptr ? nullptr : v->val_as_Tensor();
    if (t != nullptr && t->extra_tensor_info() != nullptr &&
        t->extra_tensor_info()->location() == etr_fb::TensorDataLocation::EXTERNAL) {
      ++num_external;
    }
  }
  if (num_external > 0) {
    method_->s_.external_buffers = alloc_->allocate_array<FreeableBuffer>(num_external);
    if (method_->s_.external_buffers == nullptr) {
      return method_allocation_failed(name(), "external data handles",
                                      num_external * sizeof(FreeableBuffer));
    }
  }
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    ETR_RETURN_IF_ERROR(parse_value(i, values->Get(i)));
  }
  mutable_segment_.release();
  return Error::Ok;
}

Error MethodLoader::parse_value(size_t i, const etr_fb::EValue* v) {
  EValue* out = &method_->s_.values[i];
  if (v == nullptr) ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] is null", name(), i);
  const void* payload = v->val();
  const etr_fb::KernelTypes type = v->val_type();
  if (payload == nullptr && type != etr_fb::KernelTypes::Null) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] has type %d but no payload", name(),
             i, static_cast<int>(type));
  }
  switch (type) {
    case etr_fb::KernelTypes::Null: *out = EValue(); return Error::Ok;
    case etr_fb::KernelTypes::Int:
      *out = EValue(static_cast<int64_t>(v->val_as_Int()->int_val()));
      return Error::Ok;
    case etr_fb::KernelTypes::Bool: *out = EValue(v->val_as_Bool()->bool_val()); return Error::Ok;
    case etr_fb::KernelTypes::Double:
      *out = EValue(v->val_as_Double()->double_val());
      return Error::Ok;
    case etr_fb::KernelTypes::String: {
      const flatbuffers::String* s = v->val_as_String()->string_val();
      if (s == nullptr)
        ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] string is null", name(), i);
      *out = EValue(StringView(s->c_str(), s->size()));
      return Error::Ok;
    }
    case etr_fb::KernelTypes::Tensor: return parse_tensor(i, v->val_as_Tensor(), out);
    case etr_fb::KernelTypes::IntList: return parse_int_list(i, v->val_as_IntList(), out);
    case etr_fb::KernelTypes::DoubleList: {
      const auto* items = v->val_as_DoubleList()->items();
      if (items == nullptr || !internal::vector_aligned(items)) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': values[%zu] double list is missing or misaligned", name(), i);
      }
      *out = EValue(Span<const double>(items->data(), items->size()));
      return Error::Ok;
    }
    case etr_fb::KernelTypes::BoolList: {
      const auto* items = v->val_as_BoolList()->items();
      if (items == nullptr)
        ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] bool list has no items", name(),
                 i);
      bool* copy = alloc_->allocate_array<bool>(items->size());
      if (copy == nullptr && items->size() != 0)
        return method_allocation_failed(name(), "a bool list", items->size());
      // Bytes other than 0/1 would be invalid bools; normalise while copying.
      for (flatbuffers::uoffset_t k = 0; k < items->size(); ++k) copy[k] = items->data()[k] != 0;
      *out = EValue(Span<const bool>(copy, items->size()));
      return Error::Ok;
    }
    case etr_fb::KernelTypes::TensorList:
      return parse_list_refs(i, v->val_as_TensorList()->items(), false, out);
    case etr_fb::KernelTypes::OptionalTensorList:
      return parse_list_refs(i, v->val_as_OptionalTensorList()->items(), true, out);
    default:
      ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] has unknown type %d", name(), i,
               static_cast<int>(type));
  }
}

Error MethodLoader::parse_int_list(size_t i, const etr_fb::IntList* list, EValue* out) {
  const auto* items = list->items();
  if (items == nullptr || !internal::vector_aligned(items)) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] int list is missing or misaligned",
             name(), i);
  }
  const size_t n = items->size();
  EValue** refs = alloc_->allocate_array<EValue*>(n);
  int64_t* scratch = alloc_->allocate_array<int64_t>(n);
  if (n != 0 && (refs == nullptr || scratch == nullptr)) {
    return method_allocation_failed(name(), "an int list", n * (sizeof(EValue*) + sizeof(int64_t)));
  }
  for (size_t k = 0; k < n; ++k) {
    const int64_t ref = items->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (ref < 0 || static_cast<uint64_t>(ref) >= i || !method_->s_.values[ref].is_int()) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': values[%zu] int list item %zu refers to value %lld, which is not an "
               "earlier Int value",
               name(), i, k, static_cast<long long>(ref));
    }
    refs[k] = &method_->s_.values[ref];
  }
  *out = EValue(BoxedIntList(refs, scratch, n));
  return Error::Ok;
}

Error MethodLoader::parse_list_refs(size_t i, const flatbuffers::Vector<int32_t>* items,
                                    bool optional, EValue* out) {
  if (items == nullptr)
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] tensor list has no items", name(), i);
  const size_t n = items->size();
  EValue** refs = alloc_->allocate_array<EValue*>(n);
  if (n != 0 && refs == nullptr)
    return method_allocation_failed(name(), "a tensor list", n * sizeof(EValue*));
  for (size_t k = 0; k < n; ++k) {
    const int32_t ref = items->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (optional && ref == -1) {
      refs[k] = nullptr;
      continue;
    }
    const bool earlier = ref >= 0 && static_cast<size_t>(ref) < i;
    const bool ok_tag = earlier && (method_->s_.values[ref].is_tensor() ||
                                    (optional && method_->s_.values[ref].is_none()));
    if (!ok_tag) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': values[%zu] %s item %zu refers to value %" PRId32
               ", which is not an earlier "
               "Tensor value",
               name(), i, optional ? "optional tensor list" : "tensor list", k, ref);
    }
    refs[k] = &method_->s_.values[ref];
  }
  *out = EValue(BoxedTensorList(refs, n), optional);
  return Error::Ok;
}

Error MethodLoader::parse_tensor(size_t i, const etr_fb::Tensor* t, EValue* out) {
  const ScalarType dtype = static_cast<ScalarType>(t->scalar_type());
  if (!is_valid(dtype)) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] tensor has unknown dtype %d", name(),
             i, static_cast<int>(t->scalar_type()));
  }
  if (t->storage_offset() != 0) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': values[%zu] tensor has storage_offset %" PRId32 " (must be 0)", name(),
             i, t->storage_offset());
  }
  const auto* sizes = t->sizes();
  const auto* order = t->dim_order();
  if (sizes == nullptr)
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] tensor has no sizes", name(), i);
  const size_t dim = sizes->size();
  if (dim > kTensorMaxDim || (order != nullptr && order->size() != dim)) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': values[%zu] tensor rank %zu is above %zu or does not match its dim "
             "order length",
             name(), i, dim, kTensorMaxDim);
  }
  ShapeDynamism dyn = ShapeDynamism::Static;
  if (t->shape_dynamism() == etr_fb::TensorShapeDynamism::DYNAMIC_BOUND) {
    dyn = ShapeDynamism::DynamicBound;
  } else if (t->shape_dynamism() != etr_fb::TensorShapeDynamism::STATIC) {
    ETR_FAIL(Error::NotSupported, "method '%s': values[%zu] tensor has unbounded dynamic shape",
             name(), i);
  }
  Tensor* tensor = alloc_->allocate_array<Tensor>(1);
  int32_t* sz = alloc_->allocate_array<int32_t>(dim);
  uint8_t* dord = alloc_->allocate_array<uint8_t>(dim);
  int64_t* strides = alloc_->allocate_array<int64_t>(dim);
  if (tensor == nullptr || sz == nullptr || dord == nullptr || strides == nullptr) {
    return method_allocation_failed(name(), "tensor metadata", sizeof(Tensor) + dim * 13);
  }
  for (size_t d = 0; d < dim; ++d) {
    sz[d] = sizes->Get(static_cast<flatbuffers::uoffset_t>(d));
    dord[d] = order == nullptr ? static_cast<uint8_t>(d)
                               : order->Get(static_cast<flatbuffers::uoffset_t>(d));
  }
  int64_t numel = 0;
  size_t nbytes = 0;
  if (!compute_strides(Span<const int32_t>(sz, dim), Span<const uint8_t>(dord, dim), strides,
                       &numel) ||
      !checked_mul(static_cast<size_t>(numel), element_size(dtype), &nbytes)) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': values[%zu] tensor has a negative size, a dim order that is not a "
             "permutation, or a byte size that overflows",
             name(), i);
  }
  new (tensor) Tensor();
  tensor->init_raw(dtype, dim, sz, dord, strides, nullptr, 0, dyn, numel);
  ETR_RETURN_IF_ERROR(bind_tensor_data(i, t, tensor));
  *out = EValue(tensor);
  return Error::Ok;
}

Error MethodLoader::bind_tensor_data(size_t i, const etr_fb::Tensor* t, Tensor* tensor) {
  const size_t nbytes = tensor->nbytes();
  const etr_fb::AllocationDetails* alloc = t->allocation_info();
  const etr_fb::ExtraTensorInfo* extra = t->extra_tensor_info();
  const uint32_t k = t->data_buffer_idx();
  const bool external =
      extra != nullptr && extra->location() == etr_fb::TensorDataLocation::EXTERNAL;
  if (alloc == nullptr && (external || k != 0))  // a program constant: is_constant_value
    constant_values_[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  void* planned = nullptr;
  if (alloc != nullptr) {
    const uint32_t id = alloc->memory_id();
    const uint64_t offset =
        uint64_t{alloc->memory_offset_low()} | (uint64_t{alloc->memory_offset_high()} << 32);
    HierarchicalAllocator* pm = memory_->planned_memory();
    const size_t have = pm == nullptr ? 0 : pm->num_buffers();
    if (id == 0 || id > have) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': values[%zu] tensor uses memory id %" PRIu32
               " but %zu planned buffers exist",
               name(), i, id, have);
    }
    planned = pm->offset_address(id - 1, offset, nbytes);
    if (planned == nullptr) {
      ETR_FAIL(
          Error::InvalidProgram,
          "method '%s': values[%zu] tensor [offset %llu, +%zu) does not fit planned buffer %" PRIu32
          " "
          "(%zu bytes)",
          name(), i, static_cast<unsigned long long>(offset), nbytes, id,
          pm->buffer(id - 1).size());
    }
    tensor->set_data(planned, nbytes);
  }
  if (external) {
    ETR_RETURN_IF_ERROR(bind_external(i, t, tensor, planned != nullptr));
    return check_data_alignment(i, tensor);
  }
  if (k == 0)
    return check_data_alignment(i, tensor);  // planned without initial data, or bound at run time
  if (planned != nullptr) {
    ETR_RETURN_IF_ERROR(copy_mutable_data(i, k, planned, nbytes));
    return check_data_alignment(i, tensor);
  }
  Result<const void*> data = program_.constant_data(k, nbytes);
  if (!data.ok()) {
    ETR_FAIL(data.error(), "method '%s': values[%zu] constant tensor data is unavailable", name(),
             i);
  }
  tensor->set_data(const_cast<void*>(*data), nbytes);
  return check_data_alignment(i, tensor);
}

Error MethodLoader::check_data_alignment(size_t i, const Tensor* tensor) {
  const size_t align = tensor_data_alignment(tensor->dtype());
  if (reinterpret_cast<uintptr_t>(tensor->const_data()) % align != 0) {
    ETR_FAIL(
        Error::InvalidProgram,
        "method '%s': values[%zu] tensor data is not %zu-byte aligned as its dtype %s requires",
        name(), i, align, to_string(tensor->dtype()));
  }
  return Error::Ok;
}

Error MethodLoader::copy_mutable_data(size_t i, uint32_t k, void* dst, size_t nbytes) {
  const auto* segs = program_.flatbuffer()->mutable_data_segments();
  const etr_fb::SubsegmentOffsets* ms =
      (segs == nullptr || segs->size() == 0) ? nullptr : segs->Get(0);
  const auto* offsets = ms == nullptr ? nullptr : ms->offsets();
  if (offsets == nullptr || k >= offsets->size() || !internal::vector_aligned(offsets)) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': values[%zu] initial-state index %" PRIu32 " has no mutable data offset",
             name(), i, k);
  }
  if (!mutable_segment_loaded_) {
    Result<FreeableBuffer> seg = program_.load_segment(ms->segment_index(), SegmentKind::Mutable);
    if (!seg.ok()) {
      ETR_FAIL(seg.error(), "method '%s': cannot load the mutable data segment %" PRIu32 "", name(),
               ms->segment_index());
    }
    mutable_segment_ = std::move(*seg);
    mutable_segment_loaded_ = true;
  }
  const uint64_t off = offsets->Get(k);
  if (!range_within(off, nbytes, mutable_segment_.size())) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': values[%zu] initial state [offset %llu, +%zu) lies outside the %zu-byte "
             "mutable segment",
             name(), i, static_cast<unsigned long long>(off), nbytes, mutable_segment_.size());
  }
  if (nbytes != 0)
    std::memcpy(dst, static_cast<const uint8_t*>(mutable_segment_.data()) + off, nbytes);
  return Error::Ok;
}

namespace {

bool same_layout(const TensorLayout& l, const Tensor& t) {
  if (l.dtype != t.dtype() || l.sizes.size() != t.dim() || l.dim_order.size() != t.dim()) {
    return false;
  }
  for (size_t d = 0; d < t.dim(); ++d) {
    if (l.sizes[d] != t.sizes()[d] || l.dim_order[d] != t.dim_order()[d]) return false;
  }
  return true;
}

}  // namespace

Error MethodLoader::bind_external(size_t i, const etr_fb::Tensor* t, Tensor* tensor, bool planned) {
  const flatbuffers::String* fqn = t->extra_tensor_info()->fully_qualified_name();
  if (fqn == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': values[%zu] external tensor has no name", name(),
             i);
  }
  Result<FreeableBuffer> data = named_data_.get_data(StringView(fqn->c_str(), fqn->size()));
  if (!data.ok() && options_.external_data.size() == 0) {
    ETR_FAIL(Error::NotFound,
             "method '%s': values[%zu] tensor '%s' is stored in external data (.ptd), but none was "
             "provided",
             name(), i, fqn->c_str());
  }
  if (!data.ok()) {
    ETR_FAIL(data.error(),
             "method '%s': values[%zu] external tensor '%s' is not in the external data", name(), i,
             fqn->c_str());
  }
  const size_t nbytes = tensor->nbytes();
  if (data->size() < nbytes) {
    ETR_FAIL(Error::InvalidExternalData,
             "method '%s': values[%zu] external tensor '%s' has %zu bytes, %zu needed", name(), i,
             fqn->c_str(), data->size(), nbytes);
  }
  // A source that records the tensor's layout must agree with the program
  // exactly (dtype, sizes, dim order); an opaque blob is taken by size.
  Result<TensorLayout> layout = named_data_.get_layout(StringView(fqn->c_str(), fqn->size()));
  if (layout.ok() && !same_layout(*layout, *tensor)) {
    ETR_FAIL(Error::InvalidExternalData,
             "method '%s': values[%zu] external tensor '%s' is stored as %s with %zu dims; the "
             "program expects %s with %zu dims and the same sizes and dim order",
             name(), i, fqn->c_str(), to_string(layout->dtype), layout->sizes.size(),
             to_string(tensor->dtype()), tensor->dim());
  }
  if (planned) {
    if (nbytes != 0) std::memcpy(tensor->mutable_data(), data->data(), nbytes);
    return Error::Ok;
  }
  tensor->set_data(const_cast<void*>(data->data()), nbytes);
  new (&method_->s_.external_buffers[method_->s_.num_external_buffers.get()++])
      FreeableBuffer(std::move(*data));
  return Error::Ok;
}

}  // namespace etr
