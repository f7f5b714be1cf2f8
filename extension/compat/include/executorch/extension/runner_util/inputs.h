// Compatibility layer (extension/compat): prepare_input_tensors(), which
// allocates every tensor input of a Method on the heap, fills it (with ones,
// or with the caller's bytes) and sets it; BufferCleanup frees the memory.
#pragma once

#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>

#include <cstdlib>
#include <utility>
#include <vector>

namespace executorch {
namespace extension {

using ::executorch::runtime::Method;
using ::executorch::runtime::TensorInfo;

// Frees a set of malloc'd buffers (and the malloc'd array holding them) on
// destruction. Movable.
class BufferCleanup final {
 public:
  // Takes ownership of `buffers.data()` and of each element.
  explicit BufferCleanup(executorch::runtime::Span<void*> buffers) : buffers_(buffers) {}
  BufferCleanup(BufferCleanup&& rhs) noexcept : buffers_(rhs.buffers_) {
    rhs.buffers_ = executorch::runtime::Span<void*>();
  }
  ~BufferCleanup() {
    for (void* buffer : buffers_) free(buffer);
    free(buffers_.data());
  }

 private:
  BufferCleanup(const BufferCleanup&) = delete;
  BufferCleanup& operator=(const BufferCleanup&) = delete;
  BufferCleanup& operator=(BufferCleanup&&) noexcept = delete;

  executorch::runtime::Span<void*> buffers_;
};

struct PrepareInputTensorsOptions {
  // Fails (InvalidArgument) when the inputs need more bytes than this in all.
  size_t max_total_allocation_size = 1024 * 1024 * 1024;
  // Fails (InvalidArgument) when the method has more inputs than this.
  size_t max_inputs = 1024;
};

// Allocates and sets every tensor input of `method`: input i gets the bytes
// of input_buffers[i] when given (at least the input's byte size; the rest
// is ignored), otherwise ones. Non-tensor inputs are left alone. The
// returned object owns the memory and must live until the last execute().
executorch::runtime::Result<BufferCleanup> prepare_input_tensors(
    Method& method, PrepareInputTensorsOptions options = {},
    const std::vector<std::pair<char*, size_t>>& input_buffers = {});

namespace internal {
// Builds a tensor over `data_ptr` (tensor_meta.nbytes() bytes) with the
// input's shape, fills it with ones when `fill_tensor`, and sets it as input
// `input_index`.
executorch::runtime::Error fill_and_set_input(Method& method, TensorInfo& tensor_meta,
                                              size_t input_index, void* data_ptr,
                                              bool fill_tensor = true);
}  // namespace internal

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::BufferCleanup;
using ::executorch::extension::prepare_input_tensors;
}  // namespace util
}  // namespace executor
}  // namespace torch
