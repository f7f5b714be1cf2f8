// The official backend registry (runtime/backend/interface.h) over etr's.
// Each official BackendInterface is registered in etr's backend registry
// through a bridge that converts the contexts, payload, compile specs,
// options and values to their official faces and back.
#include <executorch/runtime/backend/interface.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "extension/compat/internal.h"
#include "runtime/backend/backend.h"
#include "runtime/core/named_data_map.h"

namespace executorch {
namespace runtime {

BackendInterface::~BackendInterface() = default;

namespace {

::etr::Error to_etr(Error e) { return static_cast<::etr::Error>(static_cast<uint8_t>(e)); }

// An official MemoryAllocator that allocates from an etr one (the method's
// or the temp allocator), for the contexts official backends receive.
class AllocatorFace final : public MemoryAllocator {
 public:
  explicit AllocatorFace(::etr::MemoryAllocator* target)
      : MemoryAllocator(0, nullptr), target_(target) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    void* p = target_ == nullptr ? nullptr : target_->allocate(size, alignment);
    if (p == nullptr) ET_LOG(Error, "Memory allocation failed: %zuB requested", size);
    return p;
  }
  void reset() override {
    if (target_ != nullptr) target_->reset();
  }

 private:
  ::etr::MemoryAllocator* target_;
};

// An official NamedDataMap over etr's merged named data of the method.
class MapFace final : public NamedDataMap {
 public:
  explicit MapFace(const ::etr::NamedDataMap* map) : map_(map) {}
  Result<const TensorLayout> get_tensor_layout(std::string_view key) const override {
    ::etr::Result<::etr::TensorLayout> layout =
        map_->get_layout(::etr::StringView(key.data(), key.size()));
    if (!layout.ok()) return internal::to_official_error(static_cast<int>(layout.error()));
    return TensorLayout::create(layout->sizes, layout->dim_order, layout->dtype);
  }
  Result<FreeableBuffer> get_data(std::string_view key) const override {
    ::etr::Result<::etr::FreeableBuffer> data =
        map_->get_data(::etr::StringView(key.data(), key.size()));
    if (!data.ok()) return internal::to_official_error(static_cast<int>(data.error()));
    return internal::to_official_buffer(std::move(*data));
  }
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override {
    ::etr::Result<::etr::FreeableBuffer> data =
        map_->get_data(::etr::StringView(key.data(), key.size()));
    if (!data.ok()) return internal::to_official_error(static_cast<int>(data.error()));
    ET_CHECK_OR_RETURN_ERROR(size <= data->size() && (buffer != nullptr || size == 0),
                             InvalidArgument, "load_data_into('%.*s'): %zu bytes asked, %zu stored",
                             static_cast<int>(key.size()), key.data(), size, data->size());
    if (size != 0) std::memcpy(buffer, data->data(), size);
    return Error::Ok;
  }
  Result<uint32_t> get_num_keys() const override { return static_cast<uint32_t>(map_->num_keys()); }
  Result<const char*> get_key(uint32_t index) const override {
    ::etr::Result<const char*> key = map_->key_at(index);
    if (!key.ok()) return internal::to_official_error(static_cast<int>(key.error()));
    return *key;
  }
  const ::etr::NamedDataMap* etr_map() const override { return map_; }

 private:
  const ::etr::NamedDataMap* map_;
};

// What etr keeps as the delegate's handle.
struct BridgeHandle {
  DelegateHandle* official = nullptr;
  std::unique_ptr<AllocatorFace> allocator;
  std::unique_ptr<MapFace> map;
  // The delegate's processed data, taken from etr's loader, and the official
  // buffer over it that the backend received: as upstream, it stays valid
  // until the backend frees it or the delegate is destroyed (after the
  // backend's destroy), and freeing it releases etr's (a loaded segment goes
  // back to the data loader; inline data needs no release).
  ::etr::FreeableBuffer processed;
  std::optional<FreeableBuffer> payload;
};

// An etr option as an official one.
BackendOption to_official(const ::etr::BackendOption& o) {
  BackendOption out;
  std::strncpy(out.key, o.key == nullptr ? "" : o.key, kMaxOptionKeyLength - 1);
  switch (o.kind) {
    case ::etr::BackendOption::Kind::Bool: out.value = o.bool_value; break;
    case ::etr::BackendOption::Kind::Int: out.value = static_cast<int>(o.int_value); break;
    case ::etr::BackendOption::Kind::String: {
      std::array<char, kMaxOptionValueLength> text{};
      std::strncpy(text.data(), o.string_value == nullptr ? "" : o.string_value,
                   kMaxOptionValueLength - 1);
      out.value = text;
      break;
    }
  }
  return out;
}

// The values of one delegate call seen as official EValues.
struct CallFrame {
  std::vector<EValue> values;
  std::vector<EValue*> pointers;
};

class BackendBridge final : public ::etr::BackendInterface {
 public:
  BackendBridge(const char* name, runtime::BackendInterface* official)
      : name_(name), official_(official) {}

  const char* name() const { return name_; }
  runtime::BackendInterface* official() const { return official_; }

  bool is_available() const override { return official_->is_available(); }

  ::etr::Result<::etr::DelegateHandle*> init(
      ::etr::BackendInitContext& ctx, ::etr::FreeableBuffer* processed,
      ::etr::Span<const ::etr::CompileSpec> specs) const override {
    auto handle = std::make_unique<BridgeHandle>();
    handle->allocator = std::make_unique<AllocatorFace>(ctx.method_allocator);
    if (ctx.named_data != nullptr) handle->map = std::make_unique<MapFace>(ctx.named_data);
    std::vector<CompileSpec> official_specs;
    for (const ::etr::CompileSpec& s : specs) {
      official_specs.push_back(
          CompileSpec{s.key, SizedBuffer{const_cast<uint8_t*>(s.value.data()), s.value.size()}});
    }
    std::vector<BackendOption> options;
    for (const ::etr::BackendOption& o : ctx.options) options.push_back(to_official(o));
    BackendInitContext official_ctx(handle->allocator.get(), internal::active_event_tracer(),
                                    ctx.method_name, handle->map.get(),
                                    Span<const BackendOption>(options.data(), options.size()));
    handle->processed = std::move(*processed);
    handle->payload.emplace(
        handle->processed.data(), handle->processed.size(),
        [](void* context, void*, size_t) {
          static_cast<::etr::FreeableBuffer*>(context)->release();
        },
        &handle->processed);
    Result<DelegateHandle*> official_handle =
        official_->init(official_ctx, &*handle->payload,
                        ArrayRef<CompileSpec>(official_specs.data(), official_specs.size()));
    if (!official_handle.ok()) {
      ETR_FAIL(to_etr(official_handle.error()), "backend '%s': init of delegate %zu failed: %s",
               name_, ctx.delegate_index, to_string(official_handle.error()));
    }
    handle->official = *official_handle;
    return static_cast<::etr::DelegateHandle*>(handle.release());
  }

  ::etr::Error execute(::etr::BackendExecutionContext& ctx, ::etr::DelegateHandle* handle,
                       ::etr::Span<::etr::EValue*> args) const override {
    auto* h = static_cast<BridgeHandle*>(handle);
    thread_local CallFrame frame;
    frame.values.resize(args.size());
    frame.pointers.resize(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      frame.values[i] = internal::face_of(*args[i]);
      frame.pointers[i] = &frame.values[i];
    }
    AllocatorFace temp(ctx.temp_allocator);
    BackendExecutionContext official_ctx(internal::active_event_tracer(), &temp, ctx.method_name);
    const Error err = official_->execute(
        official_ctx, h->official, Span<EValue*>(frame.pointers.data(), frame.pointers.size()));
    for (size_t i = 0; i < args.size(); ++i) {  // scalars the backend stored
      const EValue& v = frame.values[i];
      if (v.isInt() && args[i]->is_int()) args[i]->set_int(v.toInt());
      if (v.isDouble() && args[i]->is_double()) args[i]->set_double(v.toDouble());
      if (v.isBool() && args[i]->is_bool()) args[i]->set_bool(v.toBool());
    }
    if (err != Error::Ok) {
      ETR_FAIL(to_etr(err), "backend '%s': execute failed: %s", name_, to_string(err));
    }
    return ::etr::Error::Ok;
  }

  void destroy(::etr::DelegateHandle* handle) const override {
    auto* h = static_cast<BridgeHandle*>(handle);
    if (h == nullptr) return;
    official_->destroy(h->official);
    delete h;
  }

  ::etr::Error set_option(::etr::Span<const ::etr::BackendOption> options) const override {
    std::vector<BackendOption> converted;
    for (const ::etr::BackendOption& o : options) converted.push_back(to_official(o));
    BackendOptionContext ctx;
    Span<BackendOption> view(converted.data(), converted.size());
    return to_etr(official_->set_option(ctx, view));
  }

 private:
  const char* name_;
  runtime::BackendInterface* official_;
};

struct Bridges {
  std::mutex mutex;
  std::vector<std::unique_ptr<BackendBridge>> list;
};

Bridges& bridges() {
  static Bridges b;  // built on first use: safe from static initializers
  return b;
}

BackendBridge* find_bridge(const char* name) {
  for (const auto& b : bridges().list) {
    if (std::strcmp(b->name(), name) == 0) return b.get();
  }
  return nullptr;
}

}  // namespace

BackendInterface* get_backend_class(const char* name) {
  if (name == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(bridges().mutex);
  BackendBridge* b = find_bridge(name);
  return b == nullptr ? nullptr : b->official();
}

Error register_backend(const Backend& backend) {
  ET_CHECK_OR_RETURN_ERROR(backend.name != nullptr && backend.backend != nullptr, InvalidArgument,
                           "register_backend: incomplete backend");
  std::lock_guard<std::mutex> lock(bridges().mutex);
  auto bridge = std::make_unique<BackendBridge>(backend.name, backend.backend);
  const ::etr::Error err = ::etr::register_backend({backend.name, bridge.get()});
  if (err == ::etr::Error::RegistrationAlreadyRegistered) {
    ET_LOG(Error, "register_backend: a backend named '%s' is already registered", backend.name);
    return Error::InvalidArgument;
  }
  if (err != ::etr::Error::Ok) {
    ET_LOG(Error, "register_backend('%s'): the backend registry is full", backend.name);
    return Error::Internal;
  }
  bridges().list.push_back(std::move(bridge));
  return Error::Ok;
}

size_t get_num_registered_backends() { return ::etr::num_registered_backends(); }

Result<const char*> get_backend_name(size_t index) {
  const char* name = ::etr::registered_backend_name(index);
  ET_CHECK_OR_RETURN_ERROR(name != nullptr, InvalidArgument, "backend index %zu out of range (%zu)",
                           index, get_num_registered_backends());
  return name;
}

Error set_option(const char* backend_name, const Span<BackendOption> backend_options) {
  ET_CHECK_OR_RETURN_ERROR(backend_name != nullptr, InvalidArgument, "set_option: null name");
  ET_CHECK_OR_RETURN_ERROR(::etr::find_backend(backend_name) != nullptr, NotFound,
                           "set_option: no backend named '%s'", backend_name);
  {
    std::lock_guard<std::mutex> lock(bridges().mutex);
    if (BackendBridge* b = find_bridge(backend_name)) {
      BackendOptionContext ctx;
      Span<BackendOption> view = backend_options;
      return b->official()->set_option(ctx, view);
    }
  }
  // An etr backend: its options as etr options (string values point into
  // the caller's array, which outlives the call).
  std::vector<::etr::BackendOption> converted;
  for (const BackendOption& o : backend_options) {
    if (const bool* b = std::get_if<bool>(&o.value)) {
      converted.push_back(::etr::BackendOption::of(o.key, *b));
    } else if (const int* i = std::get_if<int>(&o.value)) {
      converted.push_back(::etr::BackendOption::of(o.key, *i));
    } else if (auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&o.value)) {
      converted.push_back(::etr::BackendOption::of(o.key, static_cast<const char*>(text->data())));
    }
  }
  return internal::to_official_error(static_cast<int>(::etr::set_backend_option(
      backend_name, ::etr::Span<const ::etr::BackendOption>(converted.data(), converted.size()))));
}

Error get_option(const char* backend_name, Span<BackendOption> backend_options) {
  ET_CHECK_OR_RETURN_ERROR(backend_name != nullptr, InvalidArgument, "get_option: null name");
  std::lock_guard<std::mutex> lock(bridges().mutex);
  BackendBridge* b = find_bridge(backend_name);
  ET_CHECK_OR_RETURN_ERROR(b != nullptr, NotFound,
                           "get_option: no backend named '%s' registered through this API",
                           backend_name);
  BackendOptionContext ctx;
  return b->official()->get_option(ctx, backend_options);
}

}  // namespace runtime
}  // namespace executorch
