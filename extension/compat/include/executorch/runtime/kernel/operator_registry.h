// Compatibility layer (extension/compat): the official operator registry.
// Kernels registered here (register_kernels, EXECUTORCH_LIBRARY) join etr's
// kernel registry as one library, "executorch_official", above etr's own
// libraries (kCustomPriority): a program that names the operator runs the
// registered function. They are handed over to etr at the next
// Program::load_method (or Module load), so registering from static
// initializers (as the official headers do) works.
//
// Kernel keys (per-dtype variants) are stored and listed, but a program's
// call goes to the operator's first registered kernel.
#pragma once

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef ET_MAX_REGISTERED_KERNELS
#define ET_MAX_REGISTERED_KERNELS 2000
#endif

namespace executorch {
namespace runtime {

class KernelRuntimeContext;

// The boxed calling convention: every value of the call, return slot last.
using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);

// The dtype and dim order of one tensor argument (kernel keys).
struct TensorMeta {
  executorch::aten::ScalarType dtype_;
  Span<executorch::aten::DimOrderType> dim_order_;

  TensorMeta() = default;
  TensorMeta(executorch::aten::ScalarType dtype, Span<executorch::aten::DimOrderType> order)
      : dtype_(dtype), dim_order_(order) {}

  bool operator==(const TensorMeta& other) const { return equals(other); }
  bool operator!=(const TensorMeta& other) const { return !equals(other); }
  bool equals(const TensorMeta& other) const {
    if (dtype_ != other.dtype_ || dim_order_.size() != other.dim_order_.size()) return false;
    for (size_t i = 0; i < dim_order_.size(); ++i) {
      if (dim_order_[i] != other.dim_order_[i]) return false;
    }
    return true;
  }
};

// A kernel's key string ("v1/6;0,1|6;0,1" style), or none for the fallback
// kernel that takes any dtype.
struct KernelKey {
 public:
  constexpr KernelKey() = default;
  /* implicit */ constexpr KernelKey(const char* kernel_key_data)
      : kernel_key_data_(kernel_key_data) {}

  bool operator==(const KernelKey& other) const { return equals(other); }
  bool operator!=(const KernelKey& other) const { return !equals(other); }
  bool equals(const KernelKey& other) const {
    if (is_fallback() != other.is_fallback()) return false;
    return is_fallback() || std::strcmp(kernel_key_data_, other.kernel_key_data_) == 0;
  }
  bool is_fallback() const { return kernel_key_data_ == nullptr; }
  const char* data() const { return kernel_key_data_; }

 private:
  const char* kernel_key_data_ = nullptr;
};

// An operator name ("my_ops::mul3.out", static storage), key and function.
struct Kernel {
  const char* name_;
  KernelKey kernel_key_;
  OpFunction op_;

  constexpr explicit Kernel(const char* name, OpFunction func) : name_(name), op_(func) {}
  constexpr explicit Kernel(const char* name, KernelKey key, OpFunction func)
      : name_(name), kernel_key_(key), op_(func) {}
  constexpr Kernel() : name_(nullptr), op_(nullptr) {}
};

namespace internal {
constexpr size_t kKernelKeyBufSize = 659;
// Writes the key string of `key` ("v1/<dtype>;<dim order>|...") into buf.
// InvalidArgument when it does not fit.
Error make_kernel_key_string(Span<const TensorMeta> key, char* buf, size_t buf_size);
}  // namespace internal

// True when a kernel is registered as `name` (with that key, when given).
bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list = {});
// The function registered as `name`; NotFound when none.
Result<OpFunction> get_op_function_from_registry(const char* name,
                                                 Span<const TensorMeta> meta_list = {});
Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list,
                                                 Span<const Kernel> kernel_list);
// Every kernel registered through this API, in registration order.
Span<const Kernel> get_registered_kernels();

// Registers kernels (not owned: their names must have static storage).
// RegistrationAlreadyRegistered when a (name, key) pair is registered
// already, RegistrationExceedingMaxKernels past ET_MAX_REGISTERED_KERNELS;
// the official runtime aborts on either, and so does this one (with the
// message), so a registration made from a static initializer cannot fail
// silently.
ET_NODISCARD Error register_kernels(const Span<const Kernel>);
ET_NODISCARD inline Error register_kernel(const Kernel& kernel) {
  return register_kernels({&kernel, 1});
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Kernel;
using ::executorch::runtime::KernelKey;
using ::executorch::runtime::KernelRuntimeContext;
using ::executorch::runtime::OpFunction;
using ::executorch::runtime::TensorMeta;
inline ::executorch::runtime::Error register_kernels(ArrayRef<Kernel> kernels) {
  return ::executorch::runtime::register_kernels({kernels.data(), kernels.size()});
}
inline OpFunction getOpsFn(const char* name, ArrayRef<TensorMeta> meta_list = {}) {
  auto result = ::executorch::runtime::get_op_function_from_registry(
      name, {meta_list.data(), meta_list.size()});
  ET_CHECK(result.ok());
  return *result;
}
inline bool hasOpsFn(const char* name, ArrayRef<TensorMeta> meta_list = {}) {
  return ::executorch::runtime::registry_has_op_function(name,
                                                         {meta_list.data(), meta_list.size()});
}
inline ArrayRef<Kernel> get_kernels() {
  ::executorch::runtime::Span<const Kernel> kernels =
      ::executorch::runtime::get_registered_kernels();
  return ArrayRef<Kernel>(kernels.data(), kernels.size());
}
}  // namespace executor
}  // namespace torch
