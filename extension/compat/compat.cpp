// The official ExecuTorch C++ API (include/executorch/...) mapped onto
// etr::Module, etr::Value, etr::HostTensor and etr::BorrowedTensor.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <cstring>
#include <utility>

#include "extension/compat/internal.h"
#include "extension/module/module.h"
#include "extension/tensor/host_tensor.h"
#include "runtime/core/error.h"
#include "runtime/platform/log.h"

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

::etr::ModuleOptions::Loader to_loader(extension::Module::LoadMode mode) {
  switch (mode) {
    case extension::Module::LoadMode::File: return ::etr::ModuleOptions::Loader::File;
    case extension::Module::LoadMode::Mmap:
    case extension::Module::LoadMode::MmapUseMadvise: return ::etr::ModuleOptions::Loader::Mmap;
    case extension::Module::LoadMode::MmapUseMlock:
    case extension::Module::LoadMode::MmapUseMlockIgnoreErrors:
      return ::etr::ModuleOptions::Loader::MmapLocked;
  }
  return ::etr::ModuleOptions::Loader::File;
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

namespace {
std::unique_ptr<::etr::Module> make_module(const std::string& path,
                                           std::vector<std::string> data_files,
                                           Module::LoadMode mode) {
  ::etr::ModuleOptions options;
  options.loader = to_loader(mode);
  // Under a NoThreadPoolGuard the Module runs on the calling thread alone.
  if (threadpool::NoThreadPoolGuard::is_enabled()) options.num_threads = 1;
  return std::make_unique<::etr::Module>(path, std::move(data_files), options);
}
}  // namespace

Module::Module(const std::string& file_path, const LoadMode load_mode)
    : module_(make_module(file_path, {}, load_mode)) {}

Module::Module(const std::string& file_path, const std::string& data_map_path,
               const LoadMode load_mode)
    : module_(make_module(file_path, {data_map_path}, load_mode)) {}

Module::Module(const std::string& file_path, std::vector<std::string> data_files,
               const LoadMode load_mode)
    : module_(make_module(file_path, std::move(data_files), load_mode)) {}

namespace {

::etr::ModuleOptions default_options() {
  ::etr::ModuleOptions options;
  if (threadpool::NoThreadPoolGuard::is_enabled()) options.num_threads = 1;
  return options;
}

// The .ptd loader given to a Module, as etr's list of data loaders.
std::vector<std::unique_ptr<::etr::DataLoader>> data_loaders_of(
    std::unique_ptr<runtime::DataLoader> data_map_loader) {
  std::vector<std::unique_ptr<::etr::DataLoader>> out;
  if (data_map_loader != nullptr) {
    out.push_back(runtime::internal::etr_loader_owning(std::move(data_map_loader)));
  }
  return out;
}

void note_unused(bool memory_allocator, bool temp_allocator, bool event_tracer) {
  if (memory_allocator || temp_allocator) {
    ET_LOG(Info, "Module: etr sizes each method's memory itself; the given allocators are unused");
  }
  if (event_tracer) {
    ET_LOG(Info,
           "Module: the given event tracer is unused (load methods through Program to trace)");
  }
}

}  // namespace

Module::Module(std::unique_ptr<runtime::DataLoader> data_loader,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
               std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::DataLoader> data_map_loader, bool share_memory_arenas)
    : share_memory_arenas_(share_memory_arenas) {
  note_unused(memory_allocator != nullptr, temp_allocator != nullptr, event_tracer != nullptr);
  ET_CHECK_MSG(data_loader != nullptr, "Module: null data loader");
  module_ = std::make_unique<::etr::Module>(
      runtime::internal::etr_loader_owning(std::move(data_loader)),
      data_loaders_of(std::move(data_map_loader)), default_options());
}

Module::Module(std::shared_ptr<Program> program,
               std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
               std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
               std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<runtime::DataLoader> data_map_loader, bool share_memory_arenas)
    : program_(program), share_memory_arenas_(share_memory_arenas) {
  note_unused(memory_allocator != nullptr, temp_allocator != nullptr, event_tracer != nullptr);
  ET_CHECK_MSG(program != nullptr, "Module: null program");
  module_ = std::make_unique<::etr::Module>(runtime::internal::etr_program_of(program),
                                            data_loaders_of(std::move(data_map_loader)),
                                            default_options());
}

Module::~Module() = default;

std::shared_ptr<Program> Module::program() const {
  if (program_ == nullptr) program_ = runtime::internal::program_over(module_->shared_program());
  return program_;
}

runtime::Error Module::load(const Program::Verification) {
  ET_CHECK_OR_RETURN_ERROR(!share_memory_arenas_, NotSupported,
                           "Module: share_memory_arenas is not supported by etr");
  // Kernels registered through the official API join etr's registry first.
  const runtime::Error flushed = runtime::internal::flush_official_kernels();
  if (flushed != runtime::Error::Ok) return flushed;
  return to_official(module_->load());
}

bool Module::is_loaded() const { return module_->is_loaded(); }

runtime::Result<size_t> Module::num_methods() {
  auto names = module_->method_names();
  if (!names.ok()) return to_official(names.error());
  return names->size();
}

runtime::Result<std::unordered_set<std::string>> Module::method_names() {
  auto names = module_->method_names();
  if (!names.ok()) return to_official(names.error());
  return std::unordered_set<std::string>(names->begin(), names->end());
}

runtime::Error Module::load_method(const std::string& method_name) {
  ET_CHECK_OR_RETURN_ERROR(!share_memory_arenas_, NotSupported,
                           "Module: share_memory_arenas is not supported by etr");
  const runtime::Error flushed = runtime::internal::flush_official_kernels();
  if (flushed != runtime::Error::Ok) return flushed;
  return to_official(module_->load_method(method_name));
}

bool Module::is_method_loaded(const std::string& method_name) const {
  return module_->is_method_loaded(method_name);
}

runtime::Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  auto meta = module_->method_meta(method_name);
  if (!meta.ok()) return to_official(meta.error());
  return MethodMeta(*meta);
}

bool Module::unload_method(const std::string& method_name) {
  inputs_.erase(method_name);
  output_buffers_.erase(method_name);
  outputs_.erase(method_name);
  return module_->unload_method(method_name);
}

runtime::Result<size_t> Module::num_inputs(const std::string& method_name) {
  auto meta = module_->method_meta(method_name);
  if (!meta.ok()) return to_official(meta.error());
  return meta->num_inputs();
}

runtime::Error Module::set_input(const std::string& method_name, const runtime::EValue& input_value,
                                 size_t input_index) {
  auto count = num_inputs(method_name);
  if (!count.ok()) return count.error();
  ET_CHECK_OR_RETURN_ERROR(input_index < *count, InvalidArgument,
                           "set_input: method '%s' has %zu inputs, index %zu given",
                           method_name.c_str(), *count, input_index);
  auto& staged = inputs_[method_name];
  staged.resize(*count);
  staged[input_index] = input_value;
  return runtime::Error::Ok;
}

runtime::Error Module::set_inputs(const std::string& method_name,
                                  const std::vector<runtime::EValue>& input_values) {
  auto count = num_inputs(method_name);
  if (!count.ok()) return count.error();
  ET_CHECK_OR_RETURN_ERROR(input_values.size() == *count, InvalidArgument,
                           "set_inputs: method '%s' has %zu inputs, %zu given", method_name.c_str(),
                           *count, input_values.size());
  auto& staged = inputs_[method_name];
  staged.assign(input_values.begin(), input_values.end());
  return runtime::Error::Ok;
}

runtime::Error Module::set_output(const std::string& method_name, runtime::EValue output_value,
                                  size_t output_index) {
  auto meta = module_->method_meta(method_name);
  if (!meta.ok()) return to_official(meta.error());
  ET_CHECK_OR_RETURN_ERROR(output_index < meta->num_outputs(), InvalidArgument,
                           "set_output: method '%s' has %zu outputs, index %zu given",
                           method_name.c_str(), meta->num_outputs(), output_index);
  ET_CHECK_OR_RETURN_ERROR(output_value.isTensor(), InvalidArgument,
                           "set_output: output %zu of '%s' must be a tensor", output_index,
                           method_name.c_str());
  const executorch::aten::Tensor& buffer = output_value.toTensor();
  auto info = meta->output_tensor_meta(output_index);
  if (!info.ok()) return to_official(info.error());
  ET_CHECK_OR_RETURN_ERROR(buffer.scalar_type() == info->dtype, InvalidArgument,
                           "set_output: output %zu of '%s' is %s, the buffer given is %s",
                           output_index, method_name.c_str(), ::etr::to_string(info->dtype),
                           ::etr::to_string(buffer.scalar_type()));
  const runtime::Error flushed = runtime::internal::flush_official_kernels();
  if (flushed != runtime::Error::Ok) return flushed;
  auto method = module_->method(method_name);
  if (!method.ok()) return to_official(method.error());
  // The method writes this output into the buffer from now on (etr checks
  // its size and alignment, and whether the output may move).
  const runtime::Error err = to_official(
      (*method)->set_output_data_ptr(buffer.mutable_data_ptr(), buffer.nbytes(), output_index));
  if (err != runtime::Error::Ok) return err;
  // The buffer's owner (a TensorPtr) stays alive while the method uses it.
  auto& held = output_buffers_[method_name];
  if (held.size() <= output_index) held.resize(output_index + 1);
  held[output_index] = std::move(output_value);
  return runtime::Error::Ok;
}

runtime::Error Module::set_outputs(const std::string& method_name,
                                   const std::vector<runtime::EValue>& output_values) {
  auto meta = module_->method_meta(method_name);
  if (!meta.ok()) return to_official(meta.error());
  ET_CHECK_OR_RETURN_ERROR(output_values.size() == meta->num_outputs(), InvalidArgument,
                           "set_outputs: method '%s' has %zu outputs, %zu given",
                           method_name.c_str(), meta->num_outputs(), output_values.size());
  for (size_t i = 0; i < output_values.size(); ++i) {
    const runtime::Error err = set_output(method_name, output_values[i], i);
    if (err != runtime::Error::Ok) return err;
  }
  return runtime::Error::Ok;
}

runtime::Result<std::vector<runtime::EValue>> Module::get_outputs(const std::string& method_name) {
  auto found = outputs_.find(method_name);
  ET_CHECK_OR_RETURN_ERROR(found != outputs_.end(), InvalidState,
                           "get_outputs: method '%s' has not been executed", method_name.c_str());
  return found->second;
}

runtime::Result<runtime::EValue> Module::get_output(const std::string& method_name,
                                                    size_t output_index) {
  auto outputs = get_outputs(method_name);
  if (!outputs.ok()) return outputs.error();
  ET_CHECK_OR_RETURN_ERROR(output_index < outputs->size(), InvalidArgument,
                           "get_output: method '%s' has %zu outputs, index %zu given",
                           method_name.c_str(), outputs->size(), output_index);
  return (*outputs)[output_index];
}

runtime::Result<std::vector<runtime::EValue>> Module::execute(
    const std::string& method_name, const std::vector<runtime::EValue>& input_values) {
  ET_CHECK_OR_RETURN_ERROR(!share_memory_arenas_, NotSupported,
                           "Module: share_memory_arenas is not supported by etr");
  auto count = num_inputs(method_name);
  if (!count.ok()) return count.error();
  ET_CHECK_OR_RETURN_ERROR(input_values.size() <= *count, InvalidArgument,
                           "method '%s' has %zu inputs, %zu given", method_name.c_str(), *count,
                           input_values.size());
  // The given inputs replace the first ones set; every input must be set.
  auto& staged = inputs_[method_name];
  staged.resize(*count);
  for (size_t i = 0; i < input_values.size(); ++i) staged[i] = input_values[i];
  std::vector<::etr::Value> inputs;
  inputs.reserve(*count);
  for (size_t i = 0; i < *count; ++i) {
    ET_CHECK_OR_RETURN_ERROR(staged[i].has_value(), InvalidArgument,
                             "input %zu of method '%s' is not set", i, method_name.c_str());
    inputs.push_back(staged[i]->to_etr());
  }
  const runtime::Error flushed = runtime::internal::flush_official_kernels();
  if (flushed != runtime::Error::Ok) return flushed;
  auto outputs = module_->execute(method_name, inputs);
  if (!outputs.ok()) return to_official(outputs.error());
  std::vector<runtime::EValue> result;
  result.reserve(outputs->size());
  for (::etr::Value& v : *outputs) result.push_back(runtime::EValue::from_etr(std::move(v)));
  outputs_[method_name] = result;
  return result;
}

runtime::Result<runtime::EValue> Module::get(const std::string& method_name,
                                             const std::vector<runtime::EValue>& input_values) {
  auto outputs = execute(method_name, input_values);
  if (!outputs.ok()) return outputs.error();
  if (outputs->empty()) {
    ETR_LOG(Error, "method '%s' has no outputs", method_name.c_str());
    return runtime::Error::InvalidArgument;
  }
  return std::move((*outputs)[0]);
}

}  // namespace module

}  // namespace extension
}  // namespace executorch
