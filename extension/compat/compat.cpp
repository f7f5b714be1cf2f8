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
    case extension::Module::LoadMode::Mmap: return ::etr::ModuleOptions::Loader::Mmap;
    case extension::Module::LoadMode::MmapUseMlock:
    case extension::Module::LoadMode::MmapUseMlockIgnoreErrors:
      return ::etr::ModuleOptions::Loader::MmapLocked;
  }
  return ::etr::ModuleOptions::Loader::File;
}

}  // namespace

// ---- EValue ----------------------------------------------------------------

namespace runtime {

EValue::EValue(executorch::aten::Tensor t) : tag(Tag::Tensor), tensor_(t) {
  if (t.etr_source() != nullptr) {
    value_ = *t.etr_source();
    rebind();
  }
}

EValue::EValue(const std::shared_ptr<executorch::aten::Tensor>& t) : tag(Tag::Tensor) {
  if (t == nullptr) {
    // A failed maker: the Module call fails with InvalidArgument.
    tag = Tag::None;
    value_ = ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::InvalidArgument));
    return;
  }
  owner_ = t;
  tensor_ = *t;
  if (t->etr_source() != nullptr) {
    value_ = *t->etr_source();
    rebind();
  }
}

EValue::EValue(const EValue& other)
    : tag(other.tag),
      int_(other.int_),
      double_(other.double_),
      bool_(other.bool_),
      string_(other.string_),
      value_(other.value_),
      owner_(other.owner_),
      tensor_(other.tensor_),
      lists_(other.lists_) {
  rebind();
}

EValue::EValue(EValue&& other) noexcept
    : tag(other.tag),
      int_(other.int_),
      double_(other.double_),
      bool_(other.bool_),
      string_(std::move(other.string_)),
      value_(std::move(other.value_)),
      owner_(std::move(other.owner_)),
      tensor_(other.tensor_),
      lists_(std::move(other.lists_)) {
  rebind();
}

EValue& EValue::operator=(const EValue& other) {
  if (this != &other) {
    EValue copy(other);
    *this = std::move(copy);
  }
  return *this;
}

EValue& EValue::operator=(EValue&& other) noexcept {
  if (this != &other) {
    tag = other.tag;
    int_ = other.int_;
    double_ = other.double_;
    bool_ = other.bool_;
    string_ = std::move(other.string_);
    value_ = std::move(other.value_);
    owner_ = std::move(other.owner_);
    tensor_ = other.tensor_;
    lists_ = std::move(other.lists_);
    rebind();
  }
  return *this;
}

EValue EValue::int_list(std::vector<int64_t> items) {
  EValue v;
  v.tag = Tag::ListInt;
  v.lists_.ints = std::move(items);
  return v;
}

EValue EValue::double_list(executorch::aten::ArrayRef<double> items) {
  EValue v;
  v.tag = Tag::ListDouble;
  v.lists_.doubles = items;
  return v;
}

EValue EValue::bool_list(executorch::aten::ArrayRef<bool> items) {
  EValue v;
  v.tag = Tag::ListBool;
  v.lists_.bools = items;
  return v;
}

EValue EValue::tensor_list(std::vector<executorch::aten::Tensor> items) {
  EValue v;
  v.tag = Tag::ListTensor;
  v.lists_.tensors = std::move(items);
  return v;
}

EValue EValue::optional_tensor_list(std::vector<std::optional<executorch::aten::Tensor>> items) {
  EValue v;
  v.tag = Tag::ListOptionalTensor;
  v.lists_.optional_tensors = std::move(items);
  return v;
}

void EValue::rebind() {
  // The tensor lives in value_'s shared storage: only the source pointer moves.
  if (tag == Tag::Tensor && value_.is_tensor()) {
    tensor_ = executorch::aten::Tensor(&value_.mutable_tensor(), &value_);
  }
}

EValue EValue::from_etr(::etr::Value value) {
  EValue out;
  out.tag = to_official(value.tag());
  switch (value.tag()) {
    case ::etr::Tag::Int: out.int_ = value.to_int(); break;
    case ::etr::Tag::Double: out.double_ = value.to_double(); break;
    case ::etr::Tag::Bool: out.bool_ = value.to_bool(); break;
    case ::etr::Tag::String: out.string_ = value.to_string(); break;
    case ::etr::Tag::Tensor:
      out.value_ = std::move(value);
      out.rebind();
      break;
    default: break;
  }
  return out;
}

::etr::Value EValue::to_etr() const {
  if (value_.error() != ::etr::Error::Ok) return value_;
  switch (tag) {
    case Tag::None: return ::etr::Value();
    case Tag::Int: return ::etr::Value(int_);
    case Tag::Double: return ::etr::Value(double_);
    case Tag::Bool: return ::etr::Value(bool_);
    case Tag::String: return ::etr::Value(string_);
    case Tag::Tensor: {
      if (value_.is_tensor()) return value_;
      // A TensorPtr or a plain view: borrow its data, in its dim order.
      const ::etr::Tensor* t = tensor_.unsafeGetTensorImpl();
      if (t == nullptr) {
        return ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::InvalidArgument));
      }
      return ::etr::Value(::etr::BorrowedTensor::wrap(
          t->scalar_type(), std::vector<int32_t>(t->sizes().begin(), t->sizes().end()),
          t->mutable_data(), std::vector<uint8_t>(t->dim_order().begin(), t->dim_order().end())));
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

Module::~Module() = default;

runtime::Error Module::load(const Program::Verification) {
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

runtime::Result<std::vector<runtime::EValue>> Module::execute(
    const std::string& method_name, const std::vector<runtime::EValue>& input_values) {
  std::vector<::etr::Value> inputs;
  inputs.reserve(input_values.size());
  for (const runtime::EValue& v : input_values) inputs.push_back(v.to_etr());
  const runtime::Error flushed = runtime::internal::flush_official_kernels();
  if (flushed != runtime::Error::Ok) return flushed;
  auto outputs = module_->execute(method_name, inputs);
  if (!outputs.ok()) return to_official(outputs.error());
  std::vector<runtime::EValue> result;
  result.reserve(outputs->size());
  for (::etr::Value& v : *outputs) result.push_back(runtime::EValue::from_etr(std::move(v)));
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
