// The official EValue and MethodMeta over etr::Value, etr::HostTensor and
// etr::BorrowedTensor, and the official Module over the official Program and
// Method of this layer (program.cpp).
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/named_data_map/merged_data_map.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/platform/runtime.h>

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "extension/compat/internal.h"
#include "extension/module/value.h"
#include "extension/tensor/host_tensor.h"
#include "runtime/core/error.h"
#include "runtime/platform/log.h"
#if defined(ETR_COMPAT_HAVE_THREADPOOL)
#include "extension/threadpool/pthread_pool.h"
#endif

namespace executorch {
namespace {

using runtime::Error;
using runtime::Tag;

// etr::Error uses the official values for every official code.
Error to_official(::etr::Error e) {
  switch (e) {
    case ::etr::Error::BackendMissing: return Error::NotFound;
    default: break;
  }
  const char* name = ::etr::to_string(e);
  if (std::strcmp(name, "Unknown") == 0) return Error::Internal;
  return static_cast<Error>(static_cast<runtime::error_code_t>(e));
}

Tag to_official(::etr::Tag t) {
  switch (t) {
    case ::etr::Tag::None: return Tag::None;
    case ::etr::Tag::Int: return Tag::Int;
    case ::etr::Tag::Double: return Tag::Double;
    case ::etr::Tag::Bool: return Tag::Bool;
    case ::etr::Tag::String: return Tag::String;
    case ::etr::Tag::Tensor: return Tag::Tensor;
    case ::etr::Tag::IntList: return Tag::ListInt;
    case ::etr::Tag::DoubleList: return Tag::ListDouble;
    case ::etr::Tag::BoolList: return Tag::ListBool;
    case ::etr::Tag::TensorList: return Tag::ListTensor;
    case ::etr::Tag::OptionalTensorList: return Tag::ListOptionalTensor;
  }
  return Tag::None;
}

}  // namespace

// ---- EValue ----------------------------------------------------------------

namespace runtime {
namespace {

static_assert(std::is_trivially_copyable<executorch::aten::Tensor>::value,
              "EValue copies its tensor payload as plain bytes");

// The storage of a string this runtime made (what as_string_ptr points to).
struct StringStorage {
  std::string chars;
  executorch::aten::ArrayRef<char> ref;
};

// The storage of a list this runtime made: the item EValues, pointers to
// them, the unwrapped array and the list itself (heap: nothing moves).
template <typename T>
struct ListStorage {
  std::vector<EValue> items;
  std::vector<EValue*> pointers;
  std::vector<T> unwrapped;
  BoxedEvalueList<T> list;

  explicit ListStorage(std::vector<EValue> values)
      : items(std::move(values)), pointers(items.size()), unwrapped(items.size()) {
    for (size_t i = 0; i < items.size(); ++i) pointers[i] = &items[i];
    list = BoxedEvalueList<T>(pointers.data(), unwrapped.data(), static_cast<int>(items.size()));
  }
};

// The storage of a double or bool list this runtime made: the ArrayRef the
// payload points to (a view of the method's array).
template <typename T>
struct ArrayStorage {
  executorch::aten::ArrayRef<T> ref;
};

}  // namespace

EValue::EValue(executorch::aten::Tensor t) : tag(Tag::Tensor) { init_tensor(t); }

void EValue::init_tensor(const executorch::aten::Tensor& t) {
  new (&payload.as_tensor) executorch::aten::Tensor(t);
  if (t.etr_source() != nullptr) {
    // Keep the etr value holding the tensor alive (its copies share the
    // tensor object, so the view's tensor pointer stays the same).
    auto held = std::make_shared<::etr::Value>(*t.etr_source());
    executorch::aten::Tensor view(&held->mutable_tensor(), held.get());
    view.set_device(t.device());
    new (&payload.as_tensor) executorch::aten::Tensor(view);
    keep_ = std::move(held);
  }
}

EValue::EValue(const std::shared_ptr<executorch::aten::Tensor>& t) : tag(Tag::Tensor) {
  if (t == nullptr) {
    // A failed maker: the Module call fails with InvalidArgument.
    tag = Tag::None;
    invalid_ = true;
    return;
  }
  // The TensorPtr keeps its tensor (and the etr value behind it) alive.
  new (&payload.as_tensor) executorch::aten::Tensor(*t);
  keep_ = t;
}

EValue::EValue(const char* s, size_t size) : tag(Tag::String) {
  auto storage = std::make_shared<StringStorage>();
  storage->chars.assign(s, size);
  storage->ref = executorch::aten::ArrayRef<char>(storage->chars.data(), storage->chars.size());
  payload.copyable_union.as_string_ptr = &storage->ref;
  keep_ = std::move(storage);
}

EValue EValue::int_list(std::vector<int64_t> items) {
  std::vector<EValue> values(items.begin(), items.end());
  auto storage = std::make_shared<ListStorage<int64_t>>(std::move(values));
  EValue v(&storage->list);
  v.keep_ = std::move(storage);
  return v;
}

EValue EValue::double_list(executorch::aten::ArrayRef<double> items) {
  auto storage = std::make_shared<ArrayStorage<double>>();
  storage->ref = items;
  EValue v(&storage->ref);
  v.keep_ = std::move(storage);
  return v;
}

EValue EValue::bool_list(executorch::aten::ArrayRef<bool> items) {
  auto storage = std::make_shared<ArrayStorage<bool>>();
  storage->ref = items;
  EValue v(&storage->ref);
  v.keep_ = std::move(storage);
  return v;
}

EValue EValue::tensor_list(std::vector<executorch::aten::Tensor> items) {
  std::vector<EValue> values(items.begin(), items.end());
  auto storage = std::make_shared<ListStorage<executorch::aten::Tensor>>(std::move(values));
  EValue v(&storage->list);
  v.keep_ = std::move(storage);
  return v;
}

EValue EValue::optional_tensor_list(std::vector<std::optional<executorch::aten::Tensor>> items) {
  std::vector<EValue> values;
  values.reserve(items.size());
  for (auto& item : items) values.push_back(item.has_value() ? EValue(*item) : EValue());
  auto storage =
      std::make_shared<ListStorage<std::optional<executorch::aten::Tensor>>>(std::move(values));
  EValue v(&storage->list);
  v.keep_ = std::move(storage);
  return v;
}

EValue EValue::from_etr(::etr::Value value) {
  switch (value.tag()) {
    case ::etr::Tag::None: return EValue();
    case ::etr::Tag::Int: return EValue(value.to_int());
    case ::etr::Tag::Double: return EValue(value.to_double());
    case ::etr::Tag::Bool: return EValue(value.to_bool());
    case ::etr::Tag::String: return EValue(value.to_string().data(), value.to_string().size());
    case ::etr::Tag::Tensor: {
      auto held = std::make_shared<::etr::Value>(std::move(value));
      EValue out;
      out.tag = Tag::Tensor;
      new (&out.payload.as_tensor) executorch::aten::Tensor(&held->mutable_tensor(), held.get());
      out.keep_ = std::move(held);
      return out;
    }
    default: break;
  }
  // etr::Module returns no list values.
  EValue out;
  out.tag = to_official(value.tag());
  return out;
}

::etr::Value EValue::to_etr() const {
  if (invalid_)
    return ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::InvalidArgument));
  switch (tag) {
    case Tag::None: return ::etr::Value();
    case Tag::Int: return ::etr::Value(toInt());
    case Tag::Double: return ::etr::Value(toDouble());
    case Tag::Bool: return ::etr::Value(toBool());
    case Tag::String: return ::etr::Value(std::string(toString()));
    case Tag::Tensor: {
      const executorch::aten::Tensor& t = payload.as_tensor;
      if (t.etr_source() != nullptr && t.etr_source()->is_tensor()) return *t.etr_source();
      // A TensorPtr or a plain view: borrow its data, in its dim order.
      const ::etr::Tensor* impl = t.unsafeGetTensorImpl();
      if (impl == nullptr) {
        return ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::InvalidArgument));
      }
      return ::etr::Value(::etr::BorrowedTensor::wrap(
          impl->scalar_type(), std::vector<int32_t>(impl->sizes().begin(), impl->sizes().end()),
          impl->mutable_data(),
          std::vector<uint8_t>(impl->dim_order().begin(), impl->dim_order().end())));
    }
    default:
      ETR_LOG(Error, "EValue: list values cannot be passed as inputs");
      return ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::NotSupported));
  }
}

// ---- MethodMeta --------------------------------------------------------------

Result<Tag> MethodMeta::input_tag(size_t index) const {
  auto r = meta_.input_tag(index);
  if (!r.ok()) return to_official(r.error());
  return to_official(*r);
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  auto r = meta_.input_tensor_meta(index);
  if (!r.ok()) return to_official(r.error());
  return TensorInfo(*r);
}

Result<Tag> MethodMeta::output_tag(size_t index) const {
  auto r = meta_.output_tag(index);
  if (!r.ok()) return to_official(r.error());
  return to_official(*r);
}

Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  auto r = meta_.output_tensor_meta(index);
  if (!r.ok()) return to_official(r.error());
  return TensorInfo(*r);
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  auto r = meta_.memory_planned_buffer_size(index);
  if (!r.ok()) return to_official(r.error());
  return *r;
}

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  auto r = meta_.get_backend_name(index);
  if (!r.ok()) return to_official(r.error());
  return *r;
}

}  // namespace runtime

// ---- Module ------------------------------------------------------------------

namespace extension {
namespace module {

using merged_data_map::MergedDataMap;
using runtime::Error;
using runtime::EValue;
using runtime::Result;

namespace {

constexpr size_t kPlannedAlignment = 64;

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<uint8_t, FreeDeleter>;

// `size` bytes (at least one), 64-byte aligned and uninitialised; null when
// the size overflows or the heap is exhausted.
AlignedBytes allocate_aligned(size_t size) {
  size_t rounded = size == 0 ? 1 : size;
  if (__builtin_add_overflow(rounded, kPlannedAlignment - 1, &rounded)) return nullptr;
  rounded &= ~(kPlannedAlignment - 1);
  return AlignedBytes(static_cast<uint8_t*>(std::aligned_alloc(kPlannedAlignment, rounded)));
}

// The loader of `path` for a load mode.
Result<std::unique_ptr<runtime::DataLoader>> open_loader(const std::string& path,
                                                         Module::LoadMode mode) {
  if (mode == Module::LoadMode::File) {
    Result<FileDataLoader> file = FileDataLoader::from(path.c_str());
    if (!file.ok()) return file.error();
    return std::unique_ptr<runtime::DataLoader>(new FileDataLoader(std::move(*file)));
  }
  MmapDataLoader::MlockConfig mlock = MmapDataLoader::MlockConfig::NoMlock;
  if (mode == Module::LoadMode::MmapUseMlock) mlock = MmapDataLoader::MlockConfig::UseMlock;
  if (mode == Module::LoadMode::MmapUseMlockIgnoreErrors) {
    mlock = MmapDataLoader::MlockConfig::UseMlockIgnoreErrors;
  }
  if (mode == Module::LoadMode::MmapUseMadvise) mlock = MmapDataLoader::MlockConfig::UseMadvise;
  Result<MmapDataLoader> mapped = MmapDataLoader::from(path.c_str(), mlock);
  if (!mapped.ok()) return mapped.error();
  return std::unique_ptr<runtime::DataLoader>(new MmapDataLoader(std::move(*mapped)));
}

// The caller's method allocator, or one that takes each allocation from
// malloc() (as upstream).
std::unique_ptr<runtime::MemoryAllocator> or_malloc(
    std::unique_ptr<runtime::MemoryAllocator> given) {
  if (given != nullptr) return given;
  return std::make_unique<MallocMemoryAllocator>();
}

// The temp memory of a Module given none: 16 MiB (etr::Module's default),
// 64-byte aligned, owned with the allocator. A bump allocator rather than
// upstream's MallocMemoryAllocator: it costs no malloc and free per kernel
// call that takes scratch, and the optimized kernels fit their tiles to what
// it has left.
constexpr uint32_t kDefaultTempBytes = uint32_t{16} << 20;

struct TempBuffer {
  AlignedBytes bytes = allocate_aligned(kDefaultTempBytes);
};

class DefaultTempAllocator final : private TempBuffer, public runtime::MemoryAllocator {
 public:
  DefaultTempAllocator()
      : runtime::MemoryAllocator(bytes != nullptr ? kDefaultTempBytes : 0, bytes.get()) {}
};

std::unique_ptr<runtime::MemoryAllocator> or_default_temp(
    std::unique_ptr<runtime::MemoryAllocator> given) {
  if (given != nullptr) return given;
  return std::make_unique<DefaultTempAllocator>();
}

// An owning copy of a method's output: a tensor's data is copied (in its dim
// order), other values are values already.
Result<EValue> copy_output(const EValue& out) {
  if (!out.isTensor()) return out;
  const ::etr::Tensor* t = out.toTensor().unsafeGetTensorImpl();
  if (t == nullptr) return out;
  ::etr::Result<::etr::HostTensor> copy = ::etr::HostTensor::from_bytes(
      t->dtype(), std::vector<int32_t>(t->sizes().begin(), t->sizes().end()), t->const_data(),
      t->nbytes(), std::vector<uint8_t>(t->dim_order().begin(), t->dim_order().end()));
  if (!copy.ok()) return to_official(copy.error());
  return EValue::from_etr(::etr::Value(std::move(*copy)));
}

}  // namespace

// What the Module keeps beside upstream's members: the .ptd maps, the shared
// arenas and the thread pool.
struct Module::State {
  // .ptd loaders: the one given at construction, then those opened from
  // data_files_ (dropped again when a load fails).
  std::vector<std::unique_ptr<runtime::DataLoader>> data_map_loaders;
  size_t num_given_loaders = 0;
  std::vector<std::unique_ptr<FlatTensorDataMap>> data_maps;
  std::unique_ptr<MergedDataMap> merged;
  // What methods search for named data (null: no .ptd).
  const NamedDataMap* data_map = nullptr;
  bool data_loaded = false;
  // share_memory_arenas: planned buffers 0 and 1 of every method.
  std::vector<AlignedBytes> arenas;
  std::vector<size_t> arena_sizes;
#if defined(ETR_COMPAT_HAVE_THREADPOOL)
  std::unique_ptr<::etr::PthreadPool> pool;
  bool pool_tried = false;
#endif

  // The pool methods run on: the Module's own (one thread per physical
  // core, made at the first method load), none under a NoThreadPoolGuard.
  ::etr::ThreadPool* thread_pool() {
    if (threadpool::NoThreadPoolGuard::is_enabled()) return nullptr;
#if defined(ETR_COMPAT_HAVE_THREADPOOL)
    if (!pool_tried) {
      pool_tried = true;
      pool = ::etr::PthreadPool::create(0);
    }
    return pool.get();
#else
    return nullptr;
#endif
  }
};

Module::Module(const std::string& file_path, const LoadMode load_mode,
               std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator, bool share_memory_arenas)
    : Module(file_path, std::vector<std::string>{}, load_mode, std::move(event_tracer),
             std::move(memory_allocator), std::move(temp_allocator), share_memory_arenas) {}

Module::Module(const std::string& file_path, const std::string& data_map_path,
               const LoadMode load_mode, std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator, bool share_memory_arenas)
    : Module(file_path,
             data_map_path.empty() ? std::vector<std::string>{}
                                   : std::vector<std::string>{data_map_path},
             load_mode, std::move(event_tracer), std::move(memory_allocator),
             std::move(temp_allocator), share_memory_arenas) {}

Module::Module(const std::string& file_path, std::vector<std::string> data_files,
               const LoadMode load_mode, std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator, bool share_memory_arenas)
    : file_path_(file_path),
      data_files_(std::move(data_files)),
      load_mode_(load_mode),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_default_temp(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas),
      state_(std::make_unique<State>()) {
  runtime::runtime_init();
}

Module::Module(std::unique_ptr<runtime::DataLoader> data_loader,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
               std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::DataLoader> data_map_loader, bool share_memory_arenas)
    : data_loader_(std::move(data_loader)),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_default_temp(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas),
      state_(std::make_unique<State>()) {
  if (data_map_loader != nullptr) state_->data_map_loaders.push_back(std::move(data_map_loader));
  state_->num_given_loaders = state_->data_map_loaders.size();
  runtime::runtime_init();
}

Module::Module(std::shared_ptr<Program> program,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
               std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::DataLoader> data_map_loader, bool share_memory_arenas)
    : program_(std::move(program)),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_default_temp(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas),
      state_(std::make_unique<State>()) {
  if (data_map_loader != nullptr) state_->data_map_loaders.push_back(std::move(data_map_loader));
  state_->num_given_loaders = state_->data_map_loaders.size();
  runtime::runtime_init();
}

Module::~Module() = default;

Error Module::load(const Program::Verification verification) { return load_internal(verification); }

Error Module::load(const LoadBackendOptionsMap& backend_options,
                   const Program::Verification verification) {
  // A deep copy of the options (kept only when the load succeeds).
  std::vector<std::vector<runtime::BackendOption>> storage;
  for (size_t i = 0; i < backend_options.size(); ++i) {
    const auto entry = backend_options.entry_at(i);
    storage.emplace_back(entry.options.begin(), entry.options.end());
  }
  LoadBackendOptionsMap map;
  for (size_t i = 0; i < backend_options.size(); ++i) {
    const Error err = map.set_options(
        backend_options.entry_at(i).backend_id,
        runtime::Span<runtime::BackendOption>(storage[i].data(), storage[i].size()));
    if (err != Error::Ok) return err;
  }
  const Error err = load_internal(verification);
  if (err != Error::Ok) return err;
  // Moving the arrays keeps their data where the map's spans point.
  backend_options_storage_ = std::move(storage);
  backend_options_map_ = map;
  return Error::Ok;
}

Error Module::load_internal(Program::Verification verification) {
  if (program_ == nullptr) {
    if (data_loader_ == nullptr) {
      auto loader = open_loader(file_path_, load_mode_);
      if (!loader.ok()) {
        ET_LOG(Error, "Module: cannot open '%s'", file_path_.c_str());
        return loader.error();
      }
      data_loader_ = std::move(*loader);
    }
    Result<Program> program = Program::load(data_loader_.get(), verification);
    if (!program.ok()) return program.error();  // the loader stays for another try
    // The program owns its loader from now on: both live as long as any
    // Module (or other holder of program()) shares the program.
    struct Loaded {
      std::unique_ptr<runtime::DataLoader> loader;
      Program program;
    };
    auto loaded = std::make_shared<Loaded>(Loaded{std::move(data_loader_), std::move(*program)});
    program_ = std::shared_ptr<Program>(loaded, &loaded->program);
  }
  State& s = *state_;
  if (s.data_loaded) return Error::Ok;
  s.data_map_loaders.resize(s.num_given_loaders);
  s.data_maps.clear();
  for (const std::string& path : data_files_) {
    auto loader = open_loader(path, load_mode_);
    if (!loader.ok()) {
      ET_LOG(Error, "Module: cannot open data file '%s'", path.c_str());
      return loader.error();
    }
    s.data_map_loaders.push_back(std::move(*loader));
  }
  std::vector<const NamedDataMap*> maps;
  for (const auto& loader : s.data_map_loaders) {
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(loader.get());
    if (!map.ok()) return map.error();
    s.data_maps.push_back(std::make_unique<FlatTensorDataMap>(std::move(*map)));
    maps.push_back(s.data_maps.back().get());
  }
  if (maps.size() == 1) {
    s.data_map = maps[0];
  } else if (maps.size() > 1) {
    Result<MergedDataMap> merged =
        MergedDataMap::load(runtime::Span<const NamedDataMap*>(maps.data(), maps.size()));
    if (!merged.ok()) return merged.error();
    s.merged = std::make_unique<MergedDataMap>(std::move(*merged));
    s.data_map = s.merged.get();
  }
  s.data_loaded = true;
  return Error::Ok;
}

Result<size_t> Module::num_methods() {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  return program_->num_methods();
}

Result<std::unordered_set<std::string>> Module::method_names() {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    Result<const char*> name = program_->get_method_name(i);
    if (!name.ok()) return name.error();
    names.emplace(*name);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  return program_->method_meta(method_name.c_str());
}

Result<std::vector<size_t>> Module::max_planned_buffer_sizes() {
  std::vector<size_t> sizes;
  for (size_t m = 0; m < program_->num_methods(); ++m) {
    Result<const char*> name = program_->get_method_name(m);
    if (!name.ok()) return name.error();
    Result<MethodMeta> meta = program_->method_meta(*name);
    if (!meta.ok()) return meta.error();
    const size_t n = meta->num_memory_planned_buffers();
    if (n > sizes.size()) sizes.resize(n, 0);
    for (size_t i = 0; i < n; ++i) {
      Result<int64_t> size = meta->memory_planned_buffer_size(i);
      if (!size.ok()) return size.error();
      if (static_cast<size_t>(*size) > sizes[i]) sizes[i] = static_cast<size_t>(*size);
    }
  }
  return sizes;
}

Error Module::load_method(const std::string& method_name,
                          runtime::HierarchicalAllocator* planned_memory,
                          runtime::EventTracer* event_tracer,
                          const LoadBackendOptionsMap* backend_options,
                          std::vector<Kernel> kernel_registry) {
  if (is_method_loaded(method_name)) return Error::Ok;
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  Result<MethodMeta> meta = program_->method_meta(method_name.c_str());
  if (!meta.ok()) return meta.error();
  MethodHolder held;
  State& s = *state_;
  if (planned_memory == nullptr) {
    held.planned_memory = std::make_unique<PlannedMemory>();
    PlannedMemory& pm = *held.planned_memory;
    if (share_memory_arenas_ && s.arenas.empty()) {
      // mem_id 1 (activations) and 2 (mutable buffers shared between
      // methods), each as large as the largest method's.
      Result<std::vector<size_t>> largest = max_planned_buffer_sizes();
      if (!largest.ok()) return largest.error();
      for (size_t i = 0; i < largest->size() && i < 2; ++i) {
        s.arenas.push_back(allocate_aligned((*largest)[i]));
        s.arena_sizes.push_back((*largest)[i]);
        ET_CHECK_OR_RETURN_ERROR(s.arenas.back() != nullptr, MemoryAllocationFailed,
                                 "Module: cannot allocate a shared arena of %zu bytes",
                                 (*largest)[i]);
      }
    }
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      Result<int64_t> size = meta->memory_planned_buffer_size(i);
      if (!size.ok()) return size.error();
      if (share_memory_arenas_ && i < s.arenas.size()) {
        pm.planned_spans.emplace_back(s.arenas[i].get(), s.arena_sizes[i]);
        continue;
      }
      pm.planned_buffers.emplace_back(allocate_aligned(static_cast<size_t>(*size)).release());
      ET_CHECK_OR_RETURN_ERROR(pm.planned_buffers.back() != nullptr, MemoryAllocationFailed,
                               "Module: cannot allocate planned buffer %zu (%" PRId64
                               " bytes) of method '%s'",
                               i, *size, method_name.c_str());
      pm.planned_spans.emplace_back(pm.planned_buffers.back().get(), static_cast<size_t>(*size));
    }
    pm.planned_memory = std::make_unique<runtime::HierarchicalAllocator>(
        runtime::Span<runtime::Span<uint8_t>>(pm.planned_spans.data(), pm.planned_spans.size()));
    planned_memory = pm.planned_memory.get();
  }
  held.memory_manager = std::make_unique<runtime::MemoryManager>(
      memory_allocator_.get(), planned_memory, temp_allocator_.get());
  held.kernel_registry = std::move(kernel_registry);
  if (backend_options == nullptr && backend_options_map_.size() != 0) {
    backend_options = &backend_options_map_;
  }
  Result<Method> method = runtime::internal::load_method_on(
      *program_, s.thread_pool(), method_name.c_str(), held.memory_manager.get(),
      event_tracer != nullptr ? event_tracer : event_tracer_.get(), s.data_map, backend_options,
      runtime::Span<const Kernel>(held.kernel_registry.data(), held.kernel_registry.size()));
  if (!method.ok()) return method.error();
  held.method = std::make_unique<Method>(std::move(*method));
  Method& m = *held.method;
  MethodState& ms = held.state;
  // Heap memory for each tensor output the program neither plans nor binds.
  const MethodMeta method_meta = m.method_meta();
  for (size_t i = 0; i < m.outputs_size(); ++i) {
    Result<runtime::Tag> tag = method_meta.output_tag(i);
    if (!tag.ok() || *tag != runtime::Tag::Tensor) continue;
    Result<runtime::TensorInfo> info = method_meta.output_tensor_meta(i);
    if (!info.ok() || info->is_memory_planned()) continue;
    if (m.get_output(i).toTensor().const_data_ptr() != nullptr) continue;
    ms.output_buffers.emplace_back(allocate_aligned(info->nbytes()).release());
    ET_CHECK_OR_RETURN_ERROR(ms.output_buffers.back() != nullptr, MemoryAllocationFailed,
                             "Module: cannot allocate output %zu of method '%s'", i,
                             method_name.c_str());
    const size_t size = info->nbytes() == 0 ? 1 : info->nbytes();
    ET_CHECK_OK_OR_RETURN_ERROR(m.set_output_data_ptr(ms.output_buffers.back().get(), size, i));
  }
  ms.inputs.resize(m.inputs_size());
  methods_.emplace(method_name, std::move(held));
  return Error::Ok;
}

Result<Module::MethodHolder*> Module::holder(const std::string& method_name) {
  auto found = methods_.find(method_name);
  if (found == methods_.end()) {
    ET_CHECK_OK_OR_RETURN_ERROR(load_method(method_name));
    found = methods_.find(method_name);
  }
  return &found->second;
}

Result<Method*> Module::method(const std::string& method_name) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  return (*h)->method.get();
}

bool Module::is_method_loaded(const std::string& method_name) const {
  return methods_.count(method_name) != 0;
}

bool Module::unload_method(const std::string& method_name) {
  return methods_.erase(method_name) != 0;
}

Error Module::set_input(const std::string& method_name, const EValue& input_value,
                        size_t input_index) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  ET_CHECK_OK_OR_RETURN_ERROR((*h)->method->set_input(input_value, input_index));
  (*h)->state.inputs[input_index] = input_value;
  return Error::Ok;
}

Error Module::set_inputs(const std::string& method_name, const std::vector<EValue>& input_values) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  ET_CHECK_OR_RETURN_ERROR(input_values.size() == (*h)->state.inputs.size(), InvalidArgument,
                           "set_inputs: method '%s' has %zu inputs, %zu given", method_name.c_str(),
                           (*h)->state.inputs.size(), input_values.size());
  for (size_t i = 0; i < input_values.size(); ++i) {
    ET_CHECK_OK_OR_RETURN_ERROR(set_input(method_name, input_values[i], i));
  }
  return Error::Ok;
}

Error Module::set_output(const std::string& method_name, EValue output_value, size_t output_index) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  Method& m = *(*h)->method;
  ET_CHECK_OR_RETURN_ERROR(output_index < m.outputs_size(), InvalidArgument,
                           "set_output: method '%s' has %zu outputs, index %zu given",
                           method_name.c_str(), m.outputs_size(), output_index);
  ET_CHECK_OR_RETURN_ERROR(output_value.isTensor(), InvalidArgument,
                           "set_output: output %zu of '%s' must be a tensor", output_index,
                           method_name.c_str());
  const executorch::aten::Tensor& buffer = output_value.toTensor();
  Result<runtime::TensorInfo> info = m.method_meta().output_tensor_meta(output_index);
  if (!info.ok()) return info.error();
  ET_CHECK_OR_RETURN_ERROR(buffer.scalar_type() == info->scalar_type(), InvalidArgument,
                           "set_output: output %zu of '%s' is %s, the buffer given is %s",
                           output_index, method_name.c_str(), ::etr::to_string(info->scalar_type()),
                           ::etr::to_string(buffer.scalar_type()));
  // The method writes this output into the buffer from now on (etr checks
  // its size and alignment, and whether the output may move).
  ET_CHECK_OK_OR_RETURN_ERROR(
      m.set_output_data_ptr(buffer.mutable_data_ptr(), buffer.nbytes(), output_index));
  auto& held = (*h)->state.given_outputs;
  if (held.size() <= output_index) held.resize(output_index + 1);
  held[output_index] = std::move(output_value);
  return Error::Ok;
}

Error Module::set_outputs(const std::string& method_name,
                          const std::vector<EValue>& output_values) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  const size_t count = (*h)->method->outputs_size();
  ET_CHECK_OR_RETURN_ERROR(output_values.size() == count, InvalidArgument,
                           "set_outputs: method '%s' has %zu outputs, %zu given",
                           method_name.c_str(), count, output_values.size());
  for (size_t i = 0; i < count; ++i) {
    ET_CHECK_OK_OR_RETURN_ERROR(set_output(method_name, output_values[i], i));
  }
  return Error::Ok;
}

Result<std::vector<EValue>> Module::get_outputs(const std::string& method_name) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  ET_CHECK_OR_RETURN_ERROR((*h)->state.ran, InvalidState,
                           "get_outputs: method '%s' has not been executed", method_name.c_str());
  const Method& m = *(*h)->method;
  std::vector<EValue> outputs;
  outputs.reserve(m.outputs_size());
  for (size_t i = 0; i < m.outputs_size(); ++i) {
    Result<EValue> copy = copy_output(m.get_output(i));
    if (!copy.ok()) return copy.error();
    outputs.push_back(std::move(*copy));
  }
  return outputs;
}

Result<EValue> Module::get_output(const std::string& method_name, size_t output_index) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  ET_CHECK_OR_RETURN_ERROR((*h)->state.ran, InvalidState,
                           "get_output: method '%s' has not been executed", method_name.c_str());
  const Method& m = *(*h)->method;
  ET_CHECK_OR_RETURN_ERROR(output_index < m.outputs_size(), InvalidArgument,
                           "get_output: method '%s' has %zu outputs, index %zu given",
                           method_name.c_str(), m.outputs_size(), output_index);
  return copy_output(m.get_output(output_index));
}

Result<std::vector<EValue>> Module::execute(const std::string& method_name,
                                            const std::vector<EValue>& input_values) {
  Result<MethodHolder*> h = holder(method_name);
  if (!h.ok()) return h.error();
  MethodHolder& held = **h;
  Method& m = *held.method;
  ET_CHECK_OR_RETURN_ERROR(input_values.size() <= held.state.inputs.size(), InvalidArgument,
                           "method '%s' has %zu inputs, %zu given", method_name.c_str(),
                           held.state.inputs.size(), input_values.size());
  // The given inputs replace the first ones; the others are set again from
  // the values set before (a program may reuse an input's planned memory).
  for (size_t i = 0; i < input_values.size(); ++i) {
    ET_CHECK_OK_OR_RETURN_ERROR(m.set_input(input_values[i], i));
    held.state.inputs[i] = input_values[i];
  }
  for (size_t i = input_values.size(); i < held.state.inputs.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(held.state.inputs[i].has_value(), InvalidArgument,
                             "input %zu of method '%s' is not set", i, method_name.c_str());
    ET_CHECK_OK_OR_RETURN_ERROR(m.set_input(*held.state.inputs[i], i));
  }
  ET_CHECK_OK_OR_RETURN_ERROR(m.execute());
  held.state.ran = true;
  return get_outputs(method_name);
}

}  // namespace module

}  // namespace extension
}  // namespace executorch
