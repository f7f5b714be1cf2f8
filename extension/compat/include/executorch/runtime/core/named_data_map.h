// Compatibility layer (extension/compat): the official NamedDataMap
// interface (blobs and tensor layouts by key: a program's named data, a
// .ptd file). Program::load_method takes any implementation.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace etr {
class NamedDataMap;
}  // namespace etr

namespace executorch {
namespace runtime {

class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  // The layout of the tensor stored under `key`; NotFound when absent.
  ET_NODISCARD virtual Result<const TensorLayout> get_tensor_layout(std::string_view key) const = 0;
  // The bytes stored under `key`; NotFound when absent.
  ET_NODISCARD virtual Result<FreeableBuffer> get_data(std::string_view key) const = 0;
  // Copies the bytes stored under `key` (exactly `size` of them) into `buffer`.
  ET_NODISCARD virtual Error load_data_into(std::string_view key, void* buffer,
                                            size_t size) const = 0;
  ET_NODISCARD virtual Result<uint32_t> get_num_keys() const = 0;
  ET_NODISCARD virtual Result<const char*> get_key(uint32_t index) const = 0;

  // Internal (extension/compat): the etr map behind this one, when it wraps
  // one (the runtime then reads it directly); null for other maps.
  virtual const ::etr::NamedDataMap* etr_map() const { return nullptr; }
};

}  // namespace runtime
}  // namespace executorch
