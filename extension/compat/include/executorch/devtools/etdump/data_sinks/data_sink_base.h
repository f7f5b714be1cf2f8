// Compatibility layer (extension/compat): the official DataSinkBase, where
// ETDumpGen stores the bytes of logged tensors (the debug buffer).
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>

#include <cstddef>

namespace executorch {
namespace etdump {

class DataSinkBase {
 public:
  virtual ~DataSinkBase() = default;
  // Stores `length` bytes from `ptr`; returns the offset they start at.
  virtual ::executorch::runtime::Result<size_t> write(const void* ptr, size_t length) = 0;
  // Bytes written so far (padding included).
  virtual size_t get_used_bytes() const = 0;
};

}  // namespace etdump
}  // namespace executorch
