// The official ExecuTorch C++ API (include/executorch/...) mapped onto
// etr::Module, etr::Value, etr::HostTensor and etr::BorrowedTensor.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

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

// What a TensorPtr points into: the etr value holding the tensor and the view.
struct TensorHolder {
  ::etr::Value value;
  aten::Tensor tensor;
  std::function<void(void*)> deleter;
  void* data = nullptr;
  TensorHolder() = default;
  TensorHolder(const TensorHolder&) = delete;
  TensorHolder& operator=(const TensorHolder&) = delete;
  ~TensorHolder() {
    if (deleter) deleter(data);
  }
};

extension::TensorPtr make_holder(::etr::Value value, std::function<void(void*)> deleter = nullptr,
                                 void* data = nullptr) {
  if (!value.is_tensor()) {
    if (deleter) deleter(data);  // the tensor never took `data`
    return nullptr;
  }
  auto holder = std::make_shared<TensorHolder>();
  holder->value = std::move(value);
  holder->tensor = aten::Tensor(&holder->value.mutable_tensor(), &holder->value);
  holder->deleter = std::move(deleter);
  holder->data = data;
  return extension::TensorPtr(holder, &holder->tensor);
}

// True when `strides` is empty or the contiguous strides of `t`.
bool strides_match(const ::etr::Tensor& t, const std::vector<aten::StridesType>& strides) {
  if (strides.empty()) return true;
  if (strides.size() != t.dim()) return false;
  for (size_t i = 0; i < strides.size(); ++i) {
    if (t.size(i) > 1 && strides[i] != t.stride(i)) return false;
  }
  return true;
}

template <typename From, typename To>
void convert(const void* src, size_t count, uint8_t* dst) {
  const From* in = static_cast<const From*>(src);
  To* out = reinterpret_cast<To*>(dst);
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<To>(in[i]);
}

template <typename From>
bool convert_from(const void* src, size_t count, aten::ScalarType to, uint8_t* dst) {
  switch (to) {
    case aten::ScalarType::Byte: convert<From, uint8_t>(src, count, dst); return true;
    case aten::ScalarType::Char: convert<From, int8_t>(src, count, dst); return true;
    case aten::ScalarType::Short: convert<From, int16_t>(src, count, dst); return true;
    case aten::ScalarType::Int: convert<From, int32_t>(src, count, dst); return true;
    case aten::ScalarType::Long: convert<From, int64_t>(src, count, dst); return true;
    case aten::ScalarType::Float: convert<From, float>(src, count, dst); return true;
    case aten::ScalarType::Double: convert<From, double>(src, count, dst); return true;
    case aten::ScalarType::Bool: convert<From, bool>(src, count, dst); return true;
    default: return false;
  }
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
      // A plain view: borrow its (contiguous) data.
      const ::etr::Tensor* t = tensor_.unsafeGetTensorImpl();
      if (t == nullptr) {
        return ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::InvalidArgument));
      }
      if (!t->is_contiguous_order()) {
        ETR_LOG(Error, "EValue: a Tensor view must be contiguous to be passed as an input");
        return ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::NotSupported));
      }
      return ::etr::Value(::etr::BorrowedTensor::wrap(
          t->scalar_type(), std::vector<int32_t>(t->sizes().begin(), t->sizes().end()),
          t->mutable_data()));
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

// ---- TensorPtr makers --------------------------------------------------------

namespace internal {

TensorPtr make_owned(std::vector<aten::SizesType> sizes, const void* bytes, size_t nbytes,
                     std::vector<aten::DimOrderType> dim_order,
                     std::vector<aten::StridesType> strides, aten::ScalarType type) {
  auto t =
      ::etr::HostTensor::from_bytes(type, std::move(sizes), bytes, nbytes, std::move(dim_order));
  if (!t.ok()) return nullptr;  // the reason was logged
  if (!strides_match(t->tensor(), strides)) {
    ETR_LOG(Error, "make_tensor_ptr: strides other than the dim order's are not supported");
    return nullptr;
  }
  return make_holder(::etr::Value(std::move(*t)));
}

std::vector<uint8_t> cast_elements(const void* data, size_t count, aten::ScalarType from,
                                   aten::ScalarType to, bool* ok) {
  std::vector<uint8_t> out(count * ::etr::element_size(to));
  bool done = false;
  switch (from) {
    case aten::ScalarType::Byte: done = convert_from<uint8_t>(data, count, to, out.data()); break;
    case aten::ScalarType::Char: done = convert_from<int8_t>(data, count, to, out.data()); break;
    case aten::ScalarType::Short: done = convert_from<int16_t>(data, count, to, out.data()); break;
    case aten::ScalarType::Int: done = convert_from<int32_t>(data, count, to, out.data()); break;
    case aten::ScalarType::Long: done = convert_from<int64_t>(data, count, to, out.data()); break;
    case aten::ScalarType::Float: done = convert_from<float>(data, count, to, out.data()); break;
    case aten::ScalarType::Double: done = convert_from<double>(data, count, to, out.data()); break;
    case aten::ScalarType::Bool: done = convert_from<bool>(data, count, to, out.data()); break;
    default: break;
  }
  if (!done) {
    ETR_LOG(Error, "make_tensor_ptr: no cast from %s to %s", ::etr::to_string(from),
            ::etr::to_string(to));
    out.clear();
  }
  *ok = done;
  return out;
}

}  // namespace internal

TensorPtr make_tensor_ptr(std::vector<aten::SizesType> sizes, void* data,
                          std::vector<aten::DimOrderType> dim_order,
                          std::vector<aten::StridesType> strides, const aten::ScalarType type,
                          const aten::TensorShapeDynamism, std::function<void(void*)> deleter) {
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (dim_order[i] != i) {
      ETR_LOG(Error,
              "make_tensor_ptr: a non-contiguous dim order over caller data is not supported");
      if (deleter) deleter(data);
      return nullptr;
    }
  }
  ::etr::Value value(::etr::BorrowedTensor::wrap(type, std::move(sizes), data));
  if (value.is_tensor() && !strides_match(value.tensor(), strides)) {
    ETR_LOG(Error, "make_tensor_ptr: strides other than the contiguous ones are not supported");
    value = ::etr::Value(::etr::Result<::etr::HostTensor>(::etr::Error::NotSupported));
  }
  return make_holder(std::move(value), std::move(deleter), data);
}

TensorPtr zeros(std::vector<aten::SizesType> sizes, aten::ScalarType type,
                aten::TensorShapeDynamism) {
  return make_holder(::etr::Value(::etr::HostTensor::zeros(type, std::move(sizes))));
}

TensorPtr ones(std::vector<aten::SizesType> sizes, aten::ScalarType type,
               aten::TensorShapeDynamism) {
  auto t = ::etr::HostTensor::zeros(type, std::move(sizes));
  if (!t.ok() || t->fill_ones() != ::etr::Error::Ok) return nullptr;
  return make_holder(::etr::Value(std::move(*t)));
}

}  // namespace extension
}  // namespace executorch
