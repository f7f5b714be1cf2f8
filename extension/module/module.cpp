#include "extension/module/module.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "extension/data_loader/file_data_loader.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "extension/memory/method_memory.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/backend/backend.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#if defined(ETR_HAVE_XNNPACK)
#include "backends/xnnpack/xnnpack_backend.h"
#endif
#if defined(ETR_MODULE_HAVE_VULKAN)
#include "backends/vulkan/vulkan_backend.h"
#endif
#if defined(ETR_MODULE_HAVE_QUANTIZED)
#include "kernels/quantized/quantized_kernels.h"
#endif
#if defined(ETR_MODULE_HAVE_LLM)
#include "kernels/llm/llm_kernels.h"
#endif
#if defined(ETR_MODULE_HAVE_OPTIMIZED)
#include "kernels/optimized/optimized_kernels.h"
#endif
#if defined(ETR_MODULE_HAVE_THREADPOOL)
#include "extension/threadpool/pthread_pool.h"
#endif

namespace etr {
namespace {

constexpr size_t kBufferAlignment = 64;

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

// Uninitialised, 64-byte aligned heap memory (at least one byte); null when
// the size overflows or the heap is exhausted.
AlignedBuffer allocate_aligned(size_t size) {
  size_t rounded = 0;
  if (!align_up(size == 0 ? 1 : size, kBufferAlignment, &rounded)) return nullptr;
  return AlignedBuffer(static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded)));
}

// Adds `library` unless a library of that name is already registered.
Error add_kernels(const KernelLibrary& library) {
  const Error err = register_kernels(library);
  return err == Error::RegistrationAlreadyRegistered ? Error::Ok : err;
}

}  // namespace

Error register_builtins() {
  static std::once_flag once;
  static Error result = Error::Ok;
  std::call_once(once, [] {
    result = add_kernels(portable_kernel_library());
    if (result == Error::Ok) result = add_kernels(portable_half_kernel_library());
    if (result == Error::Ok) result = add_kernels(prim_ops_library());
#if defined(ETR_MODULE_HAVE_QUANTIZED)
    if (result == Error::Ok) result = add_kernels(quantized_kernel_library());
#endif
#if defined(ETR_MODULE_HAVE_LLM)
    if (result == Error::Ok) result = add_kernels(llm_kernel_library());
#endif
#if defined(ETR_MODULE_HAVE_OPTIMIZED)
    // ETR_OPTIMIZED_KERNELS=0 in the environment keeps to the portable kernels
    // (to compare, or to rule the optimized ones out when chasing a bug).
    const char* optimized = std::getenv("ETR_OPTIMIZED_KERNELS");
    const bool use_optimized = optimized == nullptr || std::strcmp(optimized, "0") != 0;
    if (result == Error::Ok && use_optimized) result = add_kernels(optimized_kernel_library());
#endif
#if defined(ETR_HAVE_XNNPACK)
    if (result == Error::Ok) {
      result = register_xnnpack_backend();
      if (result == Error::RegistrationAlreadyRegistered) result = Error::Ok;
    }
#endif
#if defined(ETR_MODULE_HAVE_VULKAN)
    // Registration touches no device: a machine without a Vulkan driver only
    // fails when a Vulkan-lowered program is loaded, naming the reason.
    if (result == Error::Ok) {
      result = register_vulkan_backend();
      if (result == Error::RegistrationAlreadyRegistered) result = Error::Ok;
    }
#endif
  });
  if (result != Error::Ok) {
    ETR_FAIL(result, "module: cannot register the built-in kernels and backends: %s",
             to_string(result));
  }
  return Error::Ok;
}

namespace {

Result<std::unique_ptr<DataLoader>> open_loader(const std::string& path,
                                                ModuleOptions::Loader kind) {
  if (kind == ModuleOptions::Loader::File) {
    Result<FileDataLoader> file = FileDataLoader::from(path.c_str());
    if (!file.ok()) return file.error();
    return std::unique_ptr<DataLoader>(new FileDataLoader(std::move(*file)));
  }
  const MmapDataLoader::Mlock lock = kind == ModuleOptions::Loader::MmapLocked
                                         ? MmapDataLoader::Mlock::LockIgnoreErrors
                                         : MmapDataLoader::Mlock::None;
  Result<MmapDataLoader> mapped = MmapDataLoader::from(path.c_str(), lock);
  if (!mapped.ok()) return mapped.error();
  return std::unique_ptr<DataLoader>(new MmapDataLoader(std::move(*mapped)));
}

// All memory of one loaded method. Members never move once set up (the
// method keeps pointers to them); `method` is declared last so it is
// destroyed first.
struct MethodSlot {
  // Planned buffers, a growing method allocator and the temp allocator.
  std::unique_ptr<MethodMemory> memory;
  std::vector<AlignedBuffer> output_buffers;
  // The last inputs, kept alive until the next call (a method may keep a
  // pointer to an unplanned input's data).
  std::vector<Value> last_inputs;
  std::unique_ptr<Method> method;
};

Error allocate_memory(const MethodMeta& meta, const ModuleOptions& options, MethodSlot* slot) {
  MethodMemoryOptions memory;
  memory.temp_bytes = options.temp_bytes;
  ETR_ASSIGN_OR_RETURN(slot->memory, MethodMemory::create(meta, memory));
  return Error::Ok;
}

// Binds heap memory to every tensor output the program did not plan.
Error bind_unplanned_outputs(MethodSlot* slot) {
  Method& method = *slot->method;
  const MethodMeta meta = method.method_meta();
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& out = method.get_output(i);
    if (!out.is_tensor() || out.to_tensor().mutable_data() != nullptr) continue;
    Result<TensorInfo> info = meta.output_tensor_meta(i);
    if (!info.ok()) return info.error();
    if (info->is_memory_planned) continue;
    slot->output_buffers.push_back(allocate_aligned(info->nbytes));
    if (slot->output_buffers.back() == nullptr) {
      ETR_FAIL(Error::MemoryAllocationFailed, "method '%s': cannot allocate output %zu",
               method.name(), i);
    }
    const size_t size = info->nbytes == 0 ? 1 : info->nbytes;
    ETR_RETURN_IF_ERROR(method.set_output_data_ptr(slot->output_buffers.back().get(), size, i));
  }
  return Error::Ok;
}

std::vector<int32_t> to_vector(Span<const int32_t> s) { return {s.begin(), s.end()}; }

// Checks a tensor input against the declared dtype and shape.
Error check_tensor_input(const char* method, size_t index, const Tensor& t,
                         const TensorInfo& info) {
  if (t.dtype() != info.dtype) {
    ETR_FAIL(Error::InvalidType, "method '%s' input %zu: dtype %s, expected %s", method, index,
             to_string(t.dtype()), to_string(info.dtype));
  }
  bool fits = t.dim() == info.sizes.size();
  for (size_t d = 0; fits && d < t.dim(); ++d) {
    fits = info.is_dynamic ? t.sizes()[d] <= info.sizes[d] : t.sizes()[d] == info.sizes[d];
  }
  if (!fits) {
    ETR_FAIL(Error::InvalidArgument, "method '%s' input %zu: shape %s, expected %s%s", method,
             index, shape_string(t.sizes()).c_str(), info.is_dynamic ? "at most " : "",
             shape_string(info.sizes).c_str());
  }
  return Error::Ok;
}

// Sets input `index` from `v`, checking its kind, dtype and shape first.
Error set_one_input(Method& method, size_t index, const Value& v) {
  const char* name = method.name();
  if (v.error() != Error::Ok) {
    ETR_FAIL(v.error(), "method '%s' input %zu: the value could not be built (%s)", name, index,
             to_string(v.error()));
  }
  const MethodMeta meta = method.method_meta();
  ETR_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(index));
  const bool same_kind = v.tag() == tag || (tag == Tag::Double && v.is_int());
  if (!same_kind) {
    ETR_FAIL(Error::InvalidType, "method '%s' input %zu: got a %s, expected a %s", name, index,
             to_string(v.tag()), to_string(tag));
  }
  Error err = Error::Ok;
  switch (tag) {
    case Tag::Tensor: {
      ETR_ASSIGN_OR_RETURN(const TensorInfo info, meta.input_tensor_meta(index));
      ETR_RETURN_IF_ERROR(check_tensor_input(name, index, v.tensor(), info));
      err = method.set_input(v.tensor(), index);
      break;
    }
    case Tag::Int: err = method.set_input(EValue(v.to_int()), index); break;
    case Tag::Double:
      err = method.set_input(EValue(v.is_int() ? static_cast<double>(v.to_int()) : v.to_double()),
                             index);
      break;
    case Tag::Bool: err = method.set_input(EValue(v.to_bool()), index); break;
    case Tag::String:
      err = method.set_input(EValue(StringView(v.to_string().data(), v.to_string().size())), index);
      break;
    case Tag::None: err = method.set_input(EValue(), index); break;
    default:
      ETR_FAIL(Error::NotSupported, "method '%s' input %zu: %s inputs are not supported", name,
               index, to_string(tag));
  }
  if (err != Error::Ok) {
    ETR_FAIL(err, "method '%s': cannot set input %zu: %s", name, index, to_string(err));
  }
  return Error::Ok;
}

// An owning copy of output `index` (tensors keep their dim order).
Result<Value> copy_output(const Method& method, size_t index) {
  const EValue& v = method.get_output(index);
  switch (v.tag()) {
    case Tag::Tensor: {
      const Tensor& t = v.to_tensor();
      Result<HostTensor> copy =
          HostTensor::from_bytes(t.dtype(), to_vector(t.sizes()), t.const_data(), t.nbytes(),
                                 std::vector<uint8_t>(t.dim_order().begin(), t.dim_order().end()));
      if (!copy.ok()) {
        ETR_FAIL(copy.error(), "method '%s': cannot copy output %zu", method.name(), index);
      }
      return Value(std::move(*copy));
    }
    case Tag::Int: return Value(v.to_int());
    case Tag::Double: return Value(v.to_double());
    case Tag::Bool: return Value(v.to_bool());
    case Tag::String: return Value(std::string(v.to_string().data(), v.to_string().size()));
    case Tag::None: return Value();
    default:
      ETR_FAIL(Error::NotSupported, "method '%s' output %zu: %s outputs are not supported",
               method.name(), index, to_string(v.tag()));
  }
}

}  // namespace

struct Module::Impl {
  std::string path;
  std::vector<std::string> data_paths;
  ModuleOptions options;
  // Declared in dependency order: later members use earlier ones and are
  // destroyed first.
  // The program loader given at construction (taken by load()).
  std::unique_ptr<DataLoader> given_loader;
  // .ptd loaders given at construction, then those opened from data_paths.
  std::vector<std::unique_ptr<DataLoader>> data_loaders;
  size_t num_given_data_loaders = 0;
  std::vector<std::unique_ptr<FlatTensorDataMap>> data_maps;
  std::vector<const NamedDataMap*> data_views;
  bool data_loaded = false;
  // The program and the loader it reads from (shared with other Modules).
  std::shared_ptr<const Program> program;
#if defined(ETR_MODULE_HAVE_THREADPOOL)
  std::unique_ptr<PthreadPool> own_pool;
#endif
  std::map<std::string, std::unique_ptr<MethodSlot>> methods;

  Error load_data_files();
  ThreadPool* thread_pool();
  Result<MethodSlot*> slot(const std::string& name);
};

Error Module::Impl::load_data_files() {
  data_loaders.resize(num_given_data_loaders);
  data_maps.clear();
  data_views.clear();
  for (size_t i = 0; i < num_given_data_loaders; ++i) {
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(data_loaders[i].get());
    if (!map.ok()) ETR_FAIL(map.error(), "module: cannot load data file %zu (a data loader)", i);
    data_maps.push_back(std::make_unique<FlatTensorDataMap>(std::move(*map)));
    data_views.push_back(data_maps.back().get());
  }
  for (const std::string& p : data_paths) {
    Result<std::unique_ptr<DataLoader>> l = open_loader(p, options.loader);
    if (!l.ok()) ETR_FAIL(l.error(), "module: cannot open data file '%s'", p.c_str());
    data_loaders.push_back(std::move(*l));
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(data_loaders.back().get());
    if (!map.ok()) ETR_FAIL(map.error(), "module: cannot load data file '%s'", p.c_str());
    data_maps.push_back(std::make_unique<FlatTensorDataMap>(std::move(*map)));
    data_views.push_back(data_maps.back().get());
  }
  return Error::Ok;
}

ThreadPool* Module::Impl::thread_pool() {
  if (options.thread_pool != nullptr) return options.thread_pool;
#if defined(ETR_MODULE_HAVE_THREADPOOL)
  if (options.num_threads != 1 && own_pool == nullptr) {
    own_pool = PthreadPool::create(options.num_threads);
    if (own_pool == nullptr) ETR_LOG(Info, "module: no thread pool; running single-threaded");
  }
  return own_pool.get();
#else
  return nullptr;
#endif
}

Result<MethodSlot*> Module::Impl::slot(const std::string& name) {
  auto found = methods.find(name);
  if (found != methods.end()) return found->second.get();
  ETR_ASSIGN_OR_RETURN(const MethodMeta meta, program->method_meta(name.c_str()));
  auto s = std::make_unique<MethodSlot>();
  ETR_RETURN_IF_ERROR(allocate_memory(meta, options, s.get()));
  MethodLoadOptions load_options;
  load_options.kernels = options.kernels;
  load_options.backends = options.backends;
  load_options.thread_pool = thread_pool();
  load_options.observer = options.observer;
  load_options.kernel_fusion = options.kernel_fusion;
  load_options.external_data =
      Span<const NamedDataMap* const>(data_views.data(), data_views.size());
  Result<Method> m = program->load_method(name.c_str(), s->memory->manager(), load_options);
  if (!m.ok()) {
    ETR_FAIL(m.error(), "module: cannot load method '%s' of '%s': %s", name.c_str(), path.c_str(),
             to_string(m.error()));
  }
  s->method = std::make_unique<Method>(std::move(*m));
  ETR_RETURN_IF_ERROR(bind_unplanned_outputs(s.get()));
  MethodSlot* raw = s.get();
  methods.emplace(name, std::move(s));
  return raw;
}

Module::Module(std::string path, std::vector<std::string> data_paths, ModuleOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->data_paths = std::move(data_paths);
  impl_->options = options;
}

Module::Module(std::unique_ptr<DataLoader> loader,
               std::vector<std::unique_ptr<DataLoader>> data_loaders, ModuleOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = "<data loader>";
  impl_->given_loader = std::move(loader);
  impl_->num_given_data_loaders = data_loaders.size();
  impl_->data_loaders = std::move(data_loaders);
  impl_->options = options;
}

Module::Module(std::shared_ptr<const Program> program,
               std::vector<std::unique_ptr<DataLoader>> data_loaders, ModuleOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = "<shared program>";
  impl_->program = std::move(program);
  impl_->num_given_data_loaders = data_loaders.size();
  impl_->data_loaders = std::move(data_loaders);
  impl_->options = options;
}

std::shared_ptr<const Program> Module::shared_program() const {
  return impl_ == nullptr ? nullptr : impl_->program;
}

Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

bool Module::is_loaded() const { return impl_ != nullptr && impl_->program != nullptr; }

Error Module::load() {
  if (impl_ == nullptr) ETR_FAIL(Error::InvalidState, "module: used after move");
  Impl& s = *impl_;
  if (s.program != nullptr && s.data_loaded) return Error::Ok;
  if (s.options.kernels == nullptr || s.options.backends == nullptr) {
    ETR_RETURN_IF_ERROR(register_builtins());
  }
  if (s.program == nullptr) {
    std::unique_ptr<DataLoader> owned;
    if (s.given_loader != nullptr) {
      owned = std::move(s.given_loader);
    } else {
      Result<std::unique_ptr<DataLoader>> loader = open_loader(s.path, s.options.loader);
      if (!loader.ok()) ETR_FAIL(loader.error(), "module: cannot open '%s'", s.path.c_str());
      owned = std::move(*loader);
    }
    Result<Program> program = Program::load(owned.get());
    if (!program.ok()) {
      // A given loader stays for another try.
      if (s.path == "<data loader>") s.given_loader = std::move(owned);
      ETR_FAIL(program.error(), "module: cannot load program '%s': %s", s.path.c_str(),
               to_string(program.error()));
    }
    ETR_RETURN_IF_ERROR(s.load_data_files());
    // The program and its loader live together, as long as any Module
    // (or other holder) shares the program.
    struct Loaded {
      std::unique_ptr<DataLoader> loader;
      Program program;
    };
    auto loaded = std::make_shared<Loaded>(Loaded{std::move(owned), std::move(*program)});
    s.program = std::shared_ptr<const Program>(loaded, &loaded->program);
  } else {
    ETR_RETURN_IF_ERROR(s.load_data_files());
  }
  s.data_loaded = true;
  return Error::Ok;
}

Result<std::vector<std::string>> Module::method_names() {
  ETR_RETURN_IF_ERROR(load());
  std::vector<std::string> names;
  for (size_t i = 0; i < impl_->program->num_methods(); ++i) {
    ETR_ASSIGN_OR_RETURN(const char* n, impl_->program->get_method_name(i));
    names.emplace_back(n);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& name) {
  ETR_RETURN_IF_ERROR(load());
  Result<MethodMeta> meta = impl_->program->method_meta(name.c_str());
  if (!meta.ok()) {
    ETR_FAIL(meta.error(), "module: no method '%s' in '%s'", name.c_str(), impl_->path.c_str());
  }
  return meta;
}

Error Module::load_method(const std::string& name) {
  Result<Method*> m = method(name);
  return m.ok() ? Error::Ok : m.error();
}

bool Module::is_method_loaded(const std::string& name) const {
  return impl_ != nullptr && impl_->methods.count(name) != 0;
}

bool Module::unload_method(const std::string& name) {
  return impl_ != nullptr && impl_->methods.erase(name) != 0;
}

Result<Method*> Module::method(const std::string& name) {
  ETR_RETURN_IF_ERROR(method_meta(name).error());
  ETR_ASSIGN_OR_RETURN(MethodSlot* const s, impl_->slot(name));
  return s->method.get();
}

Result<std::vector<Value>> Module::execute(const std::string& name,
                                           const std::vector<Value>& inputs) {
  ETR_RETURN_IF_ERROR(method_meta(name).error());
  ETR_ASSIGN_OR_RETURN(MethodSlot* const s, impl_->slot(name));
  Method& m = *s->method;
  if (inputs.size() != m.inputs_size()) {
    ETR_FAIL(Error::InvalidArgument, "method '%s' takes %zu inputs, got %zu", name.c_str(),
             m.inputs_size(), inputs.size());
  }
  s->last_inputs = inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ETR_RETURN_IF_ERROR(set_one_input(m, i, inputs[i]));
  }
  return run(name);
}

Result<std::vector<Value>> Module::run(const std::string& name) {
  ETR_RETURN_IF_ERROR(method_meta(name).error());
  ETR_ASSIGN_OR_RETURN(MethodSlot* const s, impl_->slot(name));
  Method& m = *s->method;
  const Error err = m.execute();
  if (err != Error::Ok) {
    ETR_FAIL(err, "method '%s': execution failed: %s", name.c_str(), to_string(err));
  }
  std::vector<Value> outputs;
  outputs.reserve(m.outputs_size());
  for (size_t i = 0; i < m.outputs_size(); ++i) {
    ETR_ASSIGN_OR_RETURN(Value v, copy_output(m, i));
    outputs.push_back(std::move(v));
  }
  return outputs;
}

}  // namespace etr
