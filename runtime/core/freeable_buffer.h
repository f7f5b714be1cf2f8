// FreeableBuffer: a read-only byte range plus an optional release function.
// Move-only; releases on destruction.
#pragma once

#include <cstddef>

namespace etr {

class FreeableBuffer final {
 public:
  using FreeFn = void (*)(void* context, const void* data, size_t size);

  FreeableBuffer() = default;
  // Does not take ownership of `data` unless `free_fn` is non-null, in which
  // case free_fn(context, data, size) is called exactly once on release.
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn = nullptr, void* context = nullptr)
      : data_(data), size_(size), free_fn_(free_fn), context_(context) {}
  FreeableBuffer(FreeableBuffer&& o) noexcept
      : data_(o.data_), size_(o.size_), free_fn_(o.free_fn_), context_(o.context_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.free_fn_ = nullptr;
  }
  FreeableBuffer& operator=(FreeableBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_;
      size_ = o.size_;
      free_fn_ = o.free_fn_;
      context_ = o.context_;
      o.data_ = nullptr;
      o.size_ = 0;
      o.free_fn_ = nullptr;
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  ~FreeableBuffer() { release(); }

  void release() {
    if (free_fn_ != nullptr) free_fn_(context_, data_, size_);
    free_fn_ = nullptr;
    data_ = nullptr;
    size_ = 0;
  }

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const void* data_ = nullptr;
  size_t size_ = 0;
  FreeFn free_fn_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace etr
