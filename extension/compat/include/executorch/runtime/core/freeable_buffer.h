// Compatibility layer (extension/compat): the official FreeableBuffer, a
// read-only byte range (a pointer, or a 64-bit handle for device memory)
// plus an optional function that releases it. Move-only; Free() or the
// destructor calls the function once.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/assert.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {

class FreeableBuffer final {
 public:
  using FreeFn = void (*)(void* context, void* data, size_t size);
  using FreeUInt64Fn = void (*)(void* context, uint64_t data_uint64, size_t size);

  FreeableBuffer() = default;
  // Does not take ownership of `data` unless `free_fn` is non-null.
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* free_fn_context = nullptr)
      : data_(data), free_fn_(free_fn), context_(free_fn_context), size_(size) {}
  explicit FreeableBuffer(const uint64_t data_uint64, size_t size, FreeUInt64Fn free_fn,
                          void* free_fn_context = nullptr)
      : is_uint64_(true),
        data_uint64_(data_uint64),
        free_uint64_fn_(free_fn),
        context_(free_fn_context),
        size_(size) {}
  FreeableBuffer(FreeableBuffer&& rhs) noexcept
      : is_uint64_(rhs.is_uint64_),
        data_(rhs.data_),
        data_uint64_(rhs.data_uint64_),
        free_fn_(rhs.free_fn_),
        free_uint64_fn_(rhs.free_uint64_fn_),
        context_(rhs.context_),
        size_(rhs.size_) {
    rhs.data_ = nullptr;
    rhs.data_uint64_ = 0;
    rhs.free_fn_ = nullptr;
    rhs.free_uint64_fn_ = nullptr;
    rhs.context_ = nullptr;
    rhs.size_ = 0;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(FreeableBuffer&&) = delete;
  ~FreeableBuffer() { Free(); }

  // Releases the data (calls the free function once) and empties the buffer.
  void Free() {
    if (is_uint64_) {
      if (data_uint64_ != 0 && free_uint64_fn_ != nullptr) {
        free_uint64_fn_(context_, data_uint64_, size_);
      }
      data_uint64_ = 0;
    } else {
      if (data_ != nullptr && free_fn_ != nullptr) {
        free_fn_(context_, const_cast<void*>(data_), size_);
      }
      data_ = nullptr;
    }
    size_ = 0;
  }

  size_t size() const { return size_; }
  // The data pointer; a buffer holding a 64-bit handle aborts (ET_CHECK).
  const void* data() const {
    ET_CHECK_MSG(!is_uint64_,
                 "FreeableBuffer is backed by an uint64_t, please use the data_uint64_type() API.");
    return data_;
  }
  Result<const void*> data_safe() const {
    ET_CHECK_OR_RETURN_ERROR(
        !is_uint64_, InvalidType,
        "FreeableBuffer is backed by an uint64_t, please use the data_uint64_type() API.");
    return data_;
  }
  Result<uint64_t> data_uint64_type() const {
    ET_CHECK_OR_RETURN_ERROR(is_uint64_, InvalidType,
                             "FreeableBuffer is backed by a void*, please use the data() API.");
    return data_uint64_;
  }

 private:
  bool is_uint64_ = false;
  const void* data_ = nullptr;
  uint64_t data_uint64_ = 0;
  FreeFn free_fn_ = nullptr;
  FreeUInt64Fn free_uint64_fn_ = nullptr;
  void* context_ = nullptr;
  size_t size_ = 0;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::FreeableBuffer;
}  // namespace executor
}  // namespace torch
