// Method load: orchestration, planned-memory checks and delegate init.
#include <cinttypes>
#include <cstring>
#include <new>

#include "runtime/executor/flatbuffer_util.h"
#include "runtime/executor/method_loader.h"

namespace etr {

Result<Method> Program::load_method(const char* method_name, MemoryManager* memory,
                                    const MethodLoadOptions& options) const {
  if (method_name == nullptr || memory == nullptr || memory->method_allocator() == nullptr) {
    ETR_FAIL(Error::InvalidArgument,
             "load_method: method name, memory manager and method allocator are required");
  }
  ExecuteObserver* const observer = options.observer;
  if (observer == nullptr) return load_method_impl(method_name, memory, options);
  observer->on_load_begin(method_name, LoadPhase::LoadMethod);
  Result<Method> method = load_method_impl(method_name, memory, options);
  observer->on_load_end(method_name, LoadPhase::LoadMethod, method.error());
  return method;
}

Result<Method> Program::load_method_impl(const char* method_name, MemoryManager* memory,
                                         const MethodLoadOptions& options) const {
  ETR_ASSIGN_OR_RETURN(MethodMeta meta, method_meta(method_name));
  Method method;
  method.s_.program = this;
  method.s_.plan = meta.plan();
  method.s_.memory = memory;
  method.s_.thread_pool = options.thread_pool;
  method.s_.max_instructions = options.max_instructions;
  MethodLoader loader(*this, meta.plan(), memory, options,
                      options.kernels == nullptr ? default_kernel_registry() : *options.kernels,
                      options.backends == nullptr ? default_backend_registry() : *options.backends,
                      &method);
  method.s_.observer = options.observer;
  // On failure `method` is destroyed here, which releases whatever loaded so far.
  if (options.observer != nullptr) options.observer->on_load_begin(method_name, LoadPhase::Init);
  const Error loaded = loader.load();
  if (options.observer != nullptr)
    options.observer->on_load_end(method_name, LoadPhase::Init, loaded);
  ETR_RETURN_IF_ERROR(loaded);
  method.s_.initialized = true;
  return Result<Method>(std::move(method));
}

Error MethodLoader::merge_named_data() {
  bool ok = named_data_.add(&program_.named_data());
  for (size_t i = 0; i < options_.external_data.size(); ++i)
    ok = ok && named_data_.add(options_.external_data[i]);
  if (!ok) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': at most %zu external data maps may be given",
             name(), internal::MergedNamedData::kMaxMaps - 1);
  }
  return Error::Ok;
}

Error MethodLoader::load() {
  ETR_RETURN_IF_ERROR(merge_named_data());
  ETR_RETURN_IF_ERROR(check_planned_memory());
  ETR_RETURN_IF_ERROR(parse_values());
  ETR_RETURN_IF_ERROR(
      parse_io(plan_->inputs(), "input", &method_->s_.input_indices, &method_->s_.num_inputs));
  ETR_RETURN_IF_ERROR(
      parse_io(plan_->outputs(), "output", &method_->s_.output_indices, &method_->s_.num_outputs));
  ETR_RETURN_IF_ERROR(check_inputs());
  // Delegates before the instructions: the view copies' aliasing
  // (view_elision.cpp) asks each delegate which arguments it writes.
  ETR_RETURN_IF_ERROR(init_delegates());
  ETR_RETURN_IF_ERROR(resolve_chains());
  // Last, so that a method allocator short of
  // MethodMeta::method_allocator_bytes() fails here, on a table every method
  // needs, instead of loading without a kernel's optional state.
  return init_io_state();
}

Error MethodLoader::check_inputs() {
  const internal::MethodState& s = method_->s_;
  for (size_t i = 0; i < s.num_inputs; ++i) {
    // set_input copies into an input's memory: a program constant (possibly
    // read-only mapped file pages, shared by every method) cannot be one.
    if (is_constant_value(s.input_indices[i])) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': input %zu (value %d) is a constant tensor; inputs must be planned "
               "or caller-provided",
               name(), i, static_cast<int>(s.input_indices[i]));
    }
  }
  return Error::Ok;
}

Error MethodLoader::init_io_state() {
  internal::MethodState& s = method_->s_;
  const size_t ni = s.num_inputs;
  const size_t no = s.num_outputs;
  s.input_set = alloc_->allocate_array<bool>(ni);
  s.input_planned = alloc_->allocate_array<bool>(ni);
  s.input_consumed = alloc_->allocate_array<bool>(ni);
  s.output_planned = alloc_->allocate_array<uint8_t>(no);
  if ((ni != 0 &&
       (s.input_set == nullptr || s.input_planned == nullptr || s.input_consumed == nullptr)) ||
      (no != 0 && s.output_planned == nullptr)) {
    return method_allocation_failed(name(), "input/output state", 3 * ni + no);
  }
  for (size_t i = 0; i < ni; ++i) {
    const EValue& v = s.values[s.input_indices[i]];
    // Non-tensor inputs keep their exported value: they count as set.
    s.input_set[i] = !v.is_tensor();
    s.input_planned[i] = v.is_tensor() && v.to_tensor().mutable_data() != nullptr;
    s.input_consumed[i] = s.input_planned[i] && shares_memory(v.tensor_ptr());
  }
  for (size_t i = 0; i < no; ++i) {
    const EValue& v = s.values[s.output_indices[i]];
    s.output_planned[i] =
        !v.is_tensor() || v.to_tensor().mutable_data() != nullptr || v.to_tensor().numel() == 0
            ? internal::kOutputPlanned
            : internal::kOutputUnplanned;
  }
  return Error::Ok;
}

bool MethodLoader::shares_memory(const Tensor* t) const {
  const uint8_t* lo = static_cast<const uint8_t*>(t->const_data());
  const uint8_t* hi = lo + t->capacity_bytes();
  for (size_t v = 0; v < method_->s_.num_values; ++v) {
    const EValue& other = method_->s_.values[v];
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
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': %s %" PRIu32 " refers to value %" PRId32 " (%zu values)", name(), what,
               i, ids->Get(i), method_->s_.num_values);
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
      ETR_FAIL(
          Error::InvalidArgument,
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
  method_->s_.delegates = alloc_->allocate_array<internal::Delegate>(n);
  if (method_->s_.delegates == nullptr)
    return method_allocation_failed(name(), "delegates", n * sizeof(internal::Delegate));
  // Report every missing backend before initialising any.
  size_t missing = 0;
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    const etr_fb::BackendDelegate* d = delegates->Get(i);
    if (d == nullptr || d->id() == nullptr || d->processed() == nullptr) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': delegate %" PRIu32 " has no id or no processed data", name(), i);
    }
    const BackendInterface* backend = backends_.find(StringView(d->id()->c_str(), d->id()->size()));
    if (backend == nullptr || !backend->is_available()) {
      ETR_LOG(Error, "method '%s': delegate %" PRIu32 " needs backend '%s', which is %s", name(), i,
              d->id()->c_str(),
              backend == nullptr ? "not registered" : "not available on this machine");
      ++missing;
    }
  }
  if (missing != 0) {
    ETR_FAIL(Error::BackendMissing,
             "method '%s': %zu delegate(s) need a backend that is not available", name(), missing);
  }
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    ETR_RETURN_IF_ERROR(init_delegate(i, delegates->Get(i)));
  }
  return Error::Ok;
}

Error MethodLoader::init_delegate(size_t index, const etr_fb::BackendDelegate* d) {
  const BackendInterface* backend = backends_.find(StringView(d->id()->c_str(), d->id()->size()));
  const etr_fb::BackendDelegateDataReference* ref = d->processed();
  FreeableBuffer processed;
  if (ref->location() == etr_fb::DataLocation::INLINE) {
    const auto* inl = program_.flatbuffer()->backend_delegate_data();
    if (inl == nullptr || ref->index() >= inl->size() ||
        inl->Get(ref->index())->data() == nullptr) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': delegate %zu inline data index %" PRIu32 " is out of range", name(),
               index, ref->index());
    }
    const auto* bytes = inl->Get(ref->index())->data();
    processed = FreeableBuffer(bytes->data(), bytes->size());
  } else if (ref->location() == etr_fb::DataLocation::SEGMENT) {
    Result<FreeableBuffer> seg = program_.load_segment(ref->index(), SegmentKind::Backend);
    if (!seg.ok())
      ETR_FAIL(seg.error(), "method '%s': delegate %zu data segment %" PRIu32 " cannot be loaded",
               name(), index, ref->index());
    processed = std::move(*seg);
  } else {
    ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %zu has unknown data location %d",
             name(), index, static_cast<int>(ref->location()));
  }
  const auto* specs = d->compile_specs();
  const size_t ns = specs == nullptr ? 0 : specs->size();
  CompileSpec* cs = alloc_->allocate_array<CompileSpec>(ns);
  if (ns != 0 && cs == nullptr)
    return method_allocation_failed(name(), "compile specs", ns * sizeof(CompileSpec));
  for (size_t k = 0; k < ns; ++k) {
    const etr_fb::CompileSpec* s = specs->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (s == nullptr || s->key() == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': delegate %zu compile spec %zu has no key",
               name(), index, k);
    }
    cs[k].key = s->key()->c_str();
    cs[k].value = s->value() == nullptr
                      ? Span<const uint8_t>()
                      : Span<const uint8_t>(s->value()->data(), s->value()->size());
  }
  Span<const BackendOption> opts;
  for (const DelegateOptions& o : options_.delegate_options) {
    if (o.backend != nullptr &&
        StringView(o.backend) == StringView(d->id()->c_str(), d->id()->size()))
      opts = o.options;
  }
  // Delegates keep a pointer to the merged map, so it lives in the method's tables.
  internal::MergedNamedData* named = alloc_->allocate_array<internal::MergedNamedData>(1);
  if (named == nullptr)
    return method_allocation_failed(name(), "delegate named data", sizeof(*named));
  new (named) internal::MergedNamedData(named_data_);
  MemoryAllocator* state = options_.delegate_allocator != nullptr ? options_.delegate_allocator
                                                                  : memory_->method_allocator();
  BackendInitContext ctx{state, named, name(), index, options_.thread_pool, opts};
  Result<DelegateHandle*> handle = backend->init(ctx, &processed, Span<const CompileSpec>(cs, ns));
  if (!handle.ok()) {
    ETR_FAIL(handle.error(), "method '%s': delegate %zu (%s) failed to initialise", name(), index,
             d->id()->c_str());
  }
  method_->s_.delegates[index] = internal::Delegate{backend, *handle, d->id()->c_str()};
  method_->s_.num_delegates = index + 1;
  return Error::Ok;
}

}  // namespace etr
