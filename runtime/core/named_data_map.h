// NamedDataMap: blobs looked up by key (a program's named data, a .ptd file).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/freeable_buffer.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace etr {

// Layout of a tensor stored in external data, when the source records it.
struct TensorLayout {
  ScalarType dtype;
  Span<const int32_t> sizes;
  Span<const uint8_t> dim_order;
};

class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  // The bytes stored under `key`; NotFound when absent.
  [[nodiscard]] virtual Result<FreeableBuffer> get_data(StringView key) const = 0;
  // The tensor layout stored under `key`; NotFound when absent or not recorded.
  [[nodiscard]] virtual Result<TensorLayout> get_layout(StringView key) const = 0;
  virtual size_t num_keys() const = 0;
  // Key i, NUL-terminated.
  [[nodiscard]] virtual Result<const char*> key_at(size_t index) const = 0;
};

}  // namespace etr
