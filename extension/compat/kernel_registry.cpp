// The official operator registry (runtime/kernel/operator_registry.h) over
// etr's kernel registry. Official kernels are kept in a fixed table; at the
// next method load they join etr's registry as a library of variadic entries
// (kVariadicArgs), one per operator name. The entry's prepare step picks the
// kernel for each call as the official runtime does at method load: the key
// made from the dtype and dim order of the call's tensor arguments, else the
// operator's fallback kernel (registered without a key); none fails the load
// with OperatorMissing naming the key. Its run function calls that
// OpFunction with official EValues viewing the call's values (tensors
// shared, not copied).
//
// A method-local kernel list (load_method's `kernel_registry`) becomes a
// registry of that method's own (make_method_kernels): entries of the same
// kind over the list, above copies of every library of etr's default
// registry; their prepare step consults the list of the method loading on
// the thread (MethodKernelsScope).
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "extension/compat/internal.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace executorch {
namespace runtime {
namespace {

constexpr size_t kMaxKernels = ET_MAX_REGISTERED_KERNELS;
constexpr size_t kMaxFlushes = 8;

void run_official(::etr::KernelContext& ctx, ::etr::EValue* const* args);
::etr::Error prepare_official(::etr::KernelPrepareContext& ctx, ::etr::EValue* const* args);
::etr::Error prepare_method_local(::etr::KernelPrepareContext& ctx, ::etr::EValue* const* args);

// The kernel a call was given at method load (its prepare state).
struct SelectedKernel {
  OpFunction fn;
};

struct OfficialRegistry {
  std::mutex mutex;
  Kernel kernels[kMaxKernels];
  size_t num_kernels = 0;
  // One etr entry per distinct name (the first kernel registered for it).
  ::etr::KernelEntry entries[kMaxKernels];
  size_t num_entries = 0;
  size_t num_flushed = 0;
  char library_names[kMaxFlushes][32];
  size_t num_libraries = 0;
};

OfficialRegistry& registry() {
  static OfficialRegistry r;  // built on first use: safe from static initializers
  return r;
}

// The function registered first under `name` (null when none). Callers hold
// the mutex or run after registration ended (method execution).
OpFunction find_function(const OfficialRegistry& r, const char* name) {
  for (size_t i = 0; i < r.num_kernels; ++i) {
    if (std::strcmp(r.kernels[i].name_, name) == 0) return r.kernels[i].op_;
  }
  return nullptr;
}

// The values of one call seen as official EValues; reused by the thread.
struct CallFrame {
  std::vector<EValue> values;
  std::vector<EValue*> pointers;
};

// Most tensor arguments one call's kernel key is made of.
constexpr size_t kMaxKeyTensors = 32;

// The key of a call: its tensor arguments (not tensor lists), in order, as
// upstream keys them, into meta[0..*count).
::etr::Error call_key(::etr::KernelPrepareContext& ctx, ::etr::EValue* const* args,
                      TensorMeta* meta, size_t* count) {
  *count = 0;
  for (size_t i = 0; i < ctx.num_args(); ++i) {
    if (!args[i]->is_tensor()) continue;
    if (*count == kMaxKeyTensors) {
      ETR_FAIL(::etr::Error::NotSupported,
               "official kernel '%s': the call has more than %zu tensor arguments to key",
               ctx.op_name(), kMaxKeyTensors);
    }
    const ::etr::Tensor& t = args[i]->to_tensor();
    const ::etr::Span<const uint8_t> order = t.dim_order();
    meta[(*count)++] =
        TensorMeta(t.scalar_type(),
                   Span<executorch::aten::DimOrderType>(
                       const_cast<executorch::aten::DimOrderType*>(order.data()), order.size()));
  }
  return ::etr::Error::Ok;
}

// The kernel key string of meta[0..count), or "(too long)".
void key_text(const TensorMeta* meta, size_t count, char* key, size_t key_size) {
  if (internal::make_kernel_key_string(Span<const TensorMeta>(meta, count), key, key_size) !=
      Error::Ok) {
    std::snprintf(key, key_size, "(too long)");
  }
}

// The function of `list` for operator `name` and the call key `key` (the
// kernel registered for exactly that key first, then the operator's
// fallback kernel); null when none. `keyed`: the call has tensor arguments.
OpFunction find_in_list(const char* name, const char* key, bool keyed, Span<const Kernel> list) {
  if (keyed) {
    for (const Kernel& k : list) {
      if (std::strcmp(k.name_, name) == 0 && !k.kernel_key_.is_fallback() &&
          std::strcmp(k.kernel_key_.data(), key) == 0) {
        return k.op_;
      }
    }
  }
  for (const Kernel& k : list) {
    if (std::strcmp(k.name_, name) == 0 && k.kernel_key_.is_fallback()) return k.op_;
  }
  return nullptr;
}

// Stores the kernel chosen for a call as its prepare state.
::etr::Error select_function(::etr::KernelPrepareContext& ctx, OpFunction fn) {
  SelectedKernel* state = ctx.make_state<SelectedKernel>();
  if (state == nullptr) {
    ETR_FAIL(::etr::Error::MemoryAllocationFailed, "official kernel '%s': no memory for its state",
             ctx.op_name());
  }
  state->fn = fn;
  ctx.set_state(state);
  return ::etr::Error::Ok;
}

::etr::Error prepare_official(::etr::KernelPrepareContext& ctx, ::etr::EValue* const* args) {
  const char* op = ctx.op_name();
  TensorMeta meta[kMaxKeyTensors];
  size_t count = 0;
  const ::etr::Error keyed = call_key(ctx, args, meta, &count);
  if (keyed != ::etr::Error::Ok) return keyed;
  Result<OpFunction> fn = get_op_function_from_registry(op, Span<const TensorMeta>(meta, count));
  if (!fn.ok()) {
    char key[internal::kKernelKeyBufSize];
    key_text(meta, count, key, sizeof(key));
    ETR_FAIL(::etr::Error::OperatorMissing,
             "official kernel '%s': none registered for key '%s' and no fallback kernel", op, key);
  }
  return select_function(ctx, *fn);
}

// The method-local list of the method loading on this thread (null: none).
thread_local const internal::MethodKernels* t_method_kernels = nullptr;

// The prepare step of a method-local operator: the list's kernel for the
// call's key (else its fallback kernel); when it has none, the call is
// declined for the global registry's kernels of the operator, and fails
// with OperatorMissing when there are none.
::etr::Error prepare_method_local(::etr::KernelPrepareContext& ctx, ::etr::EValue* const* args) {
  const char* op = ctx.op_name();
  const internal::MethodKernels* local = t_method_kernels;
  if (local == nullptr) return ::etr::Error::NotSupported;  // not loading: the global kernels
  TensorMeta meta[kMaxKeyTensors];
  size_t count = 0;
  const ::etr::Error keyed = call_key(ctx, args, meta, &count);
  if (keyed != ::etr::Error::Ok) return keyed;
  char key[internal::kKernelKeyBufSize];
  const bool fits = internal::make_kernel_key_string(Span<const TensorMeta>(meta, count), key,
                                                     sizeof(key)) == Error::Ok;
  const OpFunction fn =
      find_in_list(op, fits ? key : "", fits && count != 0,
                   Span<const Kernel>(local->kernels.data(), local->kernels.size()));
  if (fn != nullptr) return select_function(ctx, fn);
  // The method-local library comes first: a second candidate is global.
  ::etr::KernelCandidate candidates[2];
  if (local->registry.candidates(op, ::etr::op_name_hash(op), candidates, 2) > 1) {
    return ::etr::Error::NotSupported;
  }
  if (!fits) std::snprintf(key, sizeof(key), "(too long)");
  ETR_FAIL(::etr::Error::OperatorMissing,
           "kernel '%s': neither the method-local kernels nor the global registry have one for "
           "key '%s' (nor a fallback kernel)",
           op, key);
}

void run_official(::etr::KernelContext& ctx, ::etr::EValue* const* args) {
  const char* op = ctx.op_name();
  const SelectedKernel* selected = ctx.state<SelectedKernel>();
  const OpFunction fn = selected != nullptr ? selected->fn : find_function(registry(), op);
  if (fn == nullptr) {
    ETR_LOG(Error, "official kernel '%s': not registered", op);
    ctx.fail(::etr::Error::OperatorMissing);
    return;
  }
  const size_t n = ctx.num_args();
  thread_local CallFrame frame;
  frame.values.resize(n);
  frame.pointers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    frame.values[i] = internal::face_of(*args[i]);
    frame.pointers[i] = &frame.values[i];
  }
  KernelRuntimeContext official_ctx(KernelRuntimeContext::FromEtr{}, ctx.temp_allocator());
  fn(official_ctx, Span<EValue*>(frame.pointers.data(), n));
  // Scalars the kernel stored go back to the method's values (tensors are
  // shared already).
  for (size_t i = 0; i < n; ++i) {
    const EValue& v = frame.values[i];
    if (v.isInt() && args[i]->is_int()) args[i]->set_int(v.toInt());
    if (v.isDouble() && args[i]->is_double()) args[i]->set_double(v.toDouble());
    if (v.isBool() && args[i]->is_bool()) args[i]->set_bool(v.toBool());
  }
  const Error err = official_ctx.failure_state();
  if (err != Error::Ok) {
    ETR_LOG(Error, "official kernel '%s' failed: %s", op, to_string(err));
    ctx.fail(static_cast<::etr::Error>(static_cast<uint8_t>(err)));
  }
}

}  // namespace

namespace internal {

Error make_kernel_key_string(Span<const TensorMeta> key, char* buf, size_t buf_size) {
  // No tensors: the empty key (nothing to write into an empty buffer).
  if (key.size() == 0) {
    if (buf_size == 0) return Error::Ok;
    ET_CHECK_OR_RETURN_ERROR(buf != nullptr, InvalidArgument, "kernel key: null buffer");
    buf[0] = '\0';
    return Error::Ok;
  }
  ET_CHECK_OR_RETURN_ERROR(buf != nullptr, InvalidArgument, "kernel key: null buffer");
  size_t used = 0;
  auto put = [&](const char* s) {
    const size_t len = std::strlen(s);
    if (used + len + 1 > buf_size) return false;
    std::memcpy(buf + used, s, len + 1);
    used += len;
    return true;
  };
  ET_CHECK_OR_RETURN_ERROR(put("v1/"), InvalidArgument, "kernel key: buffer of %zu bytes too small",
                           buf_size);
  for (size_t t = 0; t < key.size(); ++t) {
    // The format writes each dtype and dim order entry with at most two digits.
    const int dtype = static_cast<int>(key[t].dtype_);
    ET_CHECK_OR_RETURN_ERROR(dtype >= 0 && dtype <= 99, InvalidArgument,
                             "kernel key: dtype %d of tensor %zu cannot be written", dtype, t);
    char num[8];
    std::snprintf(num, sizeof(num), "%d;", dtype);
    ET_CHECK_OR_RETURN_ERROR(put(num), InvalidArgument, "kernel key: buffer of %zu bytes too small",
                             buf_size);
    for (size_t d = 0; d < key[t].dim_order_.size(); ++d) {
      const int entry = static_cast<int>(key[t].dim_order_[d]);
      ET_CHECK_OR_RETURN_ERROR(entry <= 99, InvalidArgument,
                               "kernel key: dim order entry %d of tensor %zu cannot be written",
                               entry, t);
      std::snprintf(num, sizeof(num), d + 1 < key[t].dim_order_.size() ? "%d," : "%d", entry);
      ET_CHECK_OR_RETURN_ERROR(put(num), InvalidArgument,
                               "kernel key: buffer of %zu bytes too small", buf_size);
    }
    if (t + 1 < key.size()) {
      ET_CHECK_OR_RETURN_ERROR(put("|"), InvalidArgument,
                               "kernel key: buffer of %zu bytes too small", buf_size);
    }
  }
  return Error::Ok;
}

Error flush_official_kernels() {
  OfficialRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.num_flushed == r.num_entries) return Error::Ok;
  ET_CHECK_OR_RETURN_ERROR(r.num_libraries < kMaxFlushes, RegistrationExceedingMaxKernels,
                           "official kernels: registered in more than %zu batches between method "
                           "loads",
                           kMaxFlushes);
  char* name = r.library_names[r.num_libraries];
  std::snprintf(name, sizeof(r.library_names[0]),
                r.num_libraries == 0 ? "executorch_official" : "executorch_official_%zu",
                r.num_libraries + 1);
  ::etr::KernelLibrary library;
  library.name = name;
  library.priority = ::etr::kCustomPriority;
  library.kernels = ::etr::Span<const ::etr::KernelEntry>(r.entries + r.num_flushed,
                                                          r.num_entries - r.num_flushed);
  const ::etr::Error err = ::etr::register_kernels(library);
  if (err != ::etr::Error::Ok) return to_official_error(static_cast<int>(err));
  ++r.num_libraries;
  r.num_flushed = r.num_entries;
  return Error::Ok;
}

Result<std::unique_ptr<MethodKernels>> make_method_kernels(Span<const Kernel> kernels,
                                                           const char* method_name) {
  auto made = std::make_unique<MethodKernels>();
  made->kernels.assign(kernels.begin(), kernels.end());
  for (size_t i = 0; i < made->kernels.size(); ++i) {
    const Kernel& k = made->kernels[i];
    ET_CHECK_OR_RETURN_ERROR(k.name_ != nullptr && k.op_ != nullptr, InvalidArgument,
                             "load_method('%s'): method-local kernel %zu has no %s", method_name, i,
                             k.name_ == nullptr ? "name" : "function");
    bool seen = false;
    for (const ::etr::KernelEntry& e : made->entries)
      seen = seen || std::strcmp(e.name, k.name_) == 0;
    if (seen) continue;
    made->entries.push_back(::etr::KernelEntry{k.name_, ::etr::op_name_hash(k.name_), run_official,
                                               prepare_method_local, nullptr, ::etr::kVariadicArgs,
                                               0, ::etr::kAllTypes});
  }
  ::etr::KernelLibrary library;
  library.name = "executorch_method_local";
  library.priority = std::numeric_limits<int>::max();
  library.kernels =
      ::etr::Span<const ::etr::KernelEntry>(made->entries.data(), made->entries.size());
  ::etr::Error err = made->registry.add(library);
  // Then every library of the default registry, in its order.
  const ::etr::KernelRegistry& global = ::etr::default_kernel_registry();
  for (size_t l = 0; l < global.num_libraries() && err == ::etr::Error::Ok; ++l) {
    err = made->registry.add(global.library(l));
  }
  if (err != ::etr::Error::Ok) {
    ET_LOG(Error, "load_method('%s'): cannot make the method's kernel registry: %s", method_name,
           ::etr::to_string(err));
    return to_official_error(static_cast<int>(err));
  }
  return made;
}

MethodKernelsScope::MethodKernelsScope(const MethodKernels* kernels) : previous_(t_method_kernels) {
  t_method_kernels = kernels;
}

MethodKernelsScope::~MethodKernelsScope() { t_method_kernels = previous_; }

}  // namespace internal

Error register_kernels(const Span<const Kernel> kernels) {
  OfficialRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  ET_CHECK_MSG(kernels.size() <= kMaxKernels - r.num_kernels,
               "Kernel registration failed with error %" PRIu32
               ": %zu kernels registered, %zu more exceed the limit of %zu",
               static_cast<uint32_t>(Error::RegistrationExceedingMaxKernels), r.num_kernels,
               kernels.size(), kMaxKernels);
  for (const Kernel& k : kernels) {
    ET_CHECK_MSG(k.name_ != nullptr && k.op_ != nullptr, "Kernel registration: incomplete kernel");
    for (size_t i = 0; i < r.num_kernels; ++i) {
      ET_CHECK_MSG(std::strcmp(k.name_, r.kernels[i].name_) != 0 ||
                       !(k.kernel_key_ == r.kernels[i].kernel_key_),
                   "Kernel registration failed with error %" PRIu32 ": re-registering %s",
                   static_cast<uint32_t>(Error::RegistrationAlreadyRegistered), k.name_);
    }
    if (find_function(r, k.name_) == nullptr) {
      r.entries[r.num_entries++] = ::etr::KernelEntry{k.name_,
                                                      ::etr::op_name_hash(k.name_),
                                                      run_official,
                                                      prepare_official,
                                                      nullptr,
                                                      ::etr::kVariadicArgs,
                                                      0,
                                                      ::etr::kAllTypes};
    }
    r.kernels[r.num_kernels++] = k;
  }
  return Error::Ok;
}

bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list) {
  return get_op_function_from_registry(name, meta_list).ok();
}

Result<OpFunction> get_op_function_from_registry(const char* name,
                                                 Span<const TensorMeta> meta_list) {
  return get_op_function_from_registry(name, meta_list, get_registered_kernels());
}

Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list,
                                                 Span<const Kernel> kernel_list) {
  ET_CHECK_OR_RETURN_ERROR(name != nullptr, InvalidArgument, "null operator name");
  char key[internal::kKernelKeyBufSize];
  const Error made = internal::make_kernel_key_string(meta_list, key, sizeof(key));
  ET_CHECK_OR_RETURN_ERROR(made == Error::Ok, InvalidArgument,
                           "kernel '%s': the argument key does not fit a kernel key", name);
  const OpFunction fn = find_in_list(name, key, meta_list.size() != 0, kernel_list);
  if (fn != nullptr) return fn;
  ET_LOG(Error, "kernel '%s' not found", name);
  return Error::OperatorMissing;
}

Span<const Kernel> get_registered_kernels() {
  OfficialRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return Span<const Kernel>(r.kernels, r.num_kernels);
}

}  // namespace runtime
}  // namespace executorch
