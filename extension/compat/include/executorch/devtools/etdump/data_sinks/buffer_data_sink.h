// Compatibility layer (extension/compat): the official BufferDataSink. Each
// blob starts at the next address aligned to `alignment` (a power of two;
// the gaps are zeroed); a blob that does not fit is OutOfResources.
#pragma once

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace etdump {

class BufferDataSink : public DataSinkBase {
 public:
  // InvalidArgument when `alignment` is not a power of two.
  static ::executorch::runtime::Result<BufferDataSink> create(
      ::executorch::runtime::Span<uint8_t> buffer, size_t alignment = 64) noexcept;
  static ::executorch::runtime::Result<BufferDataSink> create(void* ptr, size_t size,
                                                              size_t alignment = 64) noexcept;

  BufferDataSink() = default;
  BufferDataSink(const BufferDataSink&) = delete;
  BufferDataSink& operator=(const BufferDataSink&) = delete;
  BufferDataSink(BufferDataSink&&) = default;
  BufferDataSink& operator=(BufferDataSink&&) = default;
  ~BufferDataSink() override = default;

  ::executorch::runtime::Result<size_t> write(const void* ptr, size_t size) override;
  // The buffer's size.
  ::executorch::runtime::Result<size_t> get_storage_size() const;
  size_t get_used_bytes() const override;

 private:
  BufferDataSink(::executorch::runtime::Span<uint8_t> buffer, size_t alignment)
      : debug_buffer_(buffer), offset_(0), alignment_(alignment) {}

  ::executorch::runtime::Span<uint8_t> debug_buffer_;
  size_t offset_ = 0;
  size_t alignment_ = 64;
};

}  // namespace etdump
}  // namespace executorch
