// Method load: orchestration, planned-memory checks and delegate init.
#include <cstring>
#include <new>

#include "runtime/executor/method_loader.h"

namespace etr {

Result<Method> Program::load_method(const char* method_name, MemoryManager* memory,
                                    const NamedDataMap* external_data,
                                    const KernelRegistry* registry) const {
  if (method_name == nullptr || memory == nullptr || memory->method_allocator() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "load_method: method name, memory manager and method allocator are required");
  }
  ETR_ASSIGN_OR_RETURN(MethodMeta meta, method_meta(method_name));
  (void)meta;
  const etr_fb::ExecutionPlan* plan = nullptr;
  const auto* plans = program_->execution_plan();
  for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
    if (std::strcmp(plans->Get(i)->name()->c_str(), method_name) == 0) {
      plan = plans->Get(i);
      break;
    }
  }
  Method method;
  method.program_ = this;
  method.plan_ = plan;
  method.memory_ = memory;
  MethodLoader loader(*this, plan, memory, external_data,
                      registry == nullptr ? default_kernel_registry() : *registry, &method);
  // On failure `method` is destroyed here, which releases whatever loaded so far.
  ETR_RETURN_IF_ERROR(loader.load());
  method.initialized_ = true;
  return Result<Method>(std::move(method));
}

Error MethodLoader::load() {
  ETR_RETURN_IF_ERROR(check_planned_memory());
  ETR_RETURN_IF_ERROR(parse_values());
  ETR_RETURN_IF_ERROR(parse_io(plan_->inputs(), "input", &method_->input_indices_, &method_->num_inputs_));
  ETR_RETURN_IF_ERROR(parse_io(plan_->outputs(), "output", &method_->output_indices_, &method_->num_outputs_));
  const size_t ni = method_->num_inputs_;
  const size_t no = method_->num_outputs_;
  method_->input_set_ = alloc_->allocate_array<bool>(ni);
  method_->input_planned_ = alloc_->allocate_array<bool>(ni);
  method_->input_consumed_ = alloc_->allocate_array<bool>(ni);
  method_->output_planned_ = alloc_->allocate_array<bool>(no);
  if ((ni != 0 && (method_->input_set_ == nullptr || method_->input_planned_ == nullptr ||
                   method_->input_consumed_ == nullptr)) ||
      (no != 0 && method_->output_planned_ == nullptr)) {
    return method_allocation_failed(name(), "input/output state", 2 * ni + no);
  }
  for (size_t i = 0; i < ni; ++i) {
    const EValue& v = method_->values_[method_->input_indices_[i]];
    method_->input_set_[i] = false;
    method_->input_planned_[i] = v.is_tensor() && v.to_tensor().mutable_data() != nullptr;
    method_->input_consumed_[i] = method_->input_planned_[i] && shares_memory(v.tensor_ptr());
  }
  for (size_t i = 0; i < no; ++i) {
    const EValue& v = method_->values_[method_->output_indices_[i]];
    method_->output_planned_[i] = !v.is_tensor() || v.to_tensor().mutable_data() != nullptr ||
                                  v.to_tensor().numel() == 0;
  }
  ETR_RETURN_IF_ERROR(resolve_chains());
  return init_delegates();
}

bool MethodLoader::shares_memory(const Tensor* t) const {
  const uint8_t* lo = static_cast<const uint8_t*>(t->const_data());
  const uint8_t* hi = lo + t->capacity_bytes();
  for (size_t v = 0; v < method_->num_values_; ++v) {
    const EValue& other = method_->values_[v];
    if (!other.is_tensor() || other.tensor_ptr() == t) continue;
    const uint8_t* olo = static_cast<const uint8_t*>(other.to_tensor().const_data());
    if (olo == nullptr) continue;
    const uint8_t* ohi = olo + other.to_tensor().capacity_bytes();
    if (olo < hi && lo < ohi) return true;
  }
  return false;
}

Error MethodLoader::parse_io(const flatbuffers::Vector<int32_t>* ids, const char* what,
                             const int32_t** out, size_t* count) {
  for (flatbuffers::uoffset_t i = 0; i < ids->size(); ++i) {
    if (!value_in_range(ids->Get(i))) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': %s %u refers to value %d (%zu values)", name(),
               what, i, ids->Get(i), method_->num_values_);
    }
  }
  *out = ids->data();
  *count = ids->size();
  return Error::Ok;
}

Error MethodLoader::check_planned_memory() {
  const auto* sizes = plan_->non_const_buffer_sizes();  // alignment checked by method_meta
  const size_t needed = sizes->size() == 0 ? 0 : sizes->size() - 1;
  HierarchicalAllocator* pm = memory_->planned_memory();
  const size_t have = pm == nullptr ? 0 : pm->num_buffers();
  for (size_t i = 0; i < needed; ++i) {
    const int64_t want = sizes->Get(static_cast<flatbuffers::uoffset_t>(i + 1));
    if (want <= 0) continue;
    if (i >= have || static_cast<uint64_t>(want) > pm->buffer(i).size()) {
      ETR_FAIL(Error::InvalidArgument,
               "method '%s': planned buffer %zu needs %lld bytes but the memory manager provides %zu",
               name(), i, static_cast<long long>(want), i < have ? pm->buffer(i).size() : size_t{0});
    }
  }
  return Error::Ok;
}

Error MethodLoader::init_delegates() {
  const auto* delegates = plan_->delegates();
  const size_t n = delegates == nullptr ? 0 : delegates->size();
  if (n == 0) return Error::Ok;
  method_->delegates_ = alloc_->allocate_array<internal::Delegate>(n);
  if (method_->delegates_ == nullptr) return method_allocation_failed(name(), "delegates", n * sizeof(internal::Delegate));
  // Report every missing backend before initialising any.
  size_t missing = 0;
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    const etr_fb::BackendDelegate* d = delegates->Get(i);
    if (d == nullptr || d->id() == nullptr || d->processed() == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %u has no id or no processed data", name(), i);
    }
    const BackendInterface* backend = find_backend(StringView(d->id()->c_str(), d->id()->size()));
    if (backend == nullptr || !backend->is_available()) {
      ETR_LOG(Error, "method '%s': delegate %u needs backend '%s', which is %s", name(), i,
              d->id()->c_str(), backend == nullptr ? "not registered" : "not available on this machine");
      ++missing;
    }
  }
  if (missing != 0) {
    ETR_FAIL(Error::BackendMissing, "method '%s': %zu delegate(s) need a backend that is not available",
             name(), missing);
  }
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    ETR_RETURN_IF_ERROR(init_delegate(i, delegates->Get(i)));
  }
  return Error::Ok;
}

Error MethodLoader::init_delegate(size_t index, const etr_fb::BackendDelegate* d) {
  const BackendInterface* backend = find_backend(StringView(d->id()->c_str(), d->id()->size()));
  const etr_fb::BackendDelegateDataReference* ref = d->processed();
  FreeableBuffer processed;
  if (ref->location() == etr_fb::DataLocation::INLINE) {
    const auto* inl = program_.flatbuffer()->backend_delegate_data();
    if (inl == nullptr || ref->index() >= inl->size() || inl->Get(ref->index())->data() == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %zu inline data index %u is out of range",
               name(), index, ref->index());
    }
    const auto* bytes = inl->Get(ref->index())->data();
    processed = FreeableBuffer(bytes->data(), bytes->size());
  } else if (ref->location() == etr_fb::DataLocation::SEGMENT) {
    Result<FreeableBuffer> seg = program_.load_segment(ref->index(), SegmentKind::Backend);
    if (!seg.ok()) ETR_FAIL(seg.error(), "method '%s': delegate %zu data segment %u cannot be loaded", name(), index, ref->index());
    processed = std::move(*seg);
  } else {
    ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %zu has unknown data location %d", name(),
             index, static_cast<int>(ref->location()));
  }
  const auto* specs = d->compile_specs();
  const size_t ns = specs == nullptr ? 0 : specs->size();
  CompileSpec* cs = alloc_->allocate_array<CompileSpec>(ns);
  if (ns != 0 && cs == nullptr) return method_allocation_failed(name(), "compile specs", ns * sizeof(CompileSpec));
  for (size_t k = 0; k < ns; ++k) {
    const etr_fb::CompileSpec* s = specs->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (s == nullptr || s->key() == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %zu compile spec %zu has no key", name(), index, k);
    }
    cs[k].key = s->key()->c_str();
    cs[k].value = s->value() == nullptr ? Span<const uint8_t>()
                                        : Span<const uint8_t>(s->value()->data(), s->value()->size());
  }
  BackendInitContext ctx{alloc_, &program_.named_data(), name()};
  Result<DelegateHandle*> handle = backend->init(ctx, &processed, Span<const CompileSpec>(cs, ns));
  if (!handle.ok()) {
    ETR_FAIL(handle.error(), "method '%s': delegate %zu (%s) failed to initialise", name(), index,
             d->id()->c_str());
  }
  method_->delegates_[index] = internal::Delegate{backend, *handle};
  method_->num_delegates_ = index + 1;
  return Error::Ok;
}

}  // namespace etr
