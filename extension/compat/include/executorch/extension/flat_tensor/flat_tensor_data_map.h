// Compatibility layer (extension/compat): the official FlatTensorDataMap, a
// .ptd file seen as a NamedDataMap. It wraps etr::FlatTensorDataMap (which
// Program::load_method then reads directly).
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace executorch {
namespace extension {

class FlatTensorDataMap final : public executorch::runtime::NamedDataMap {
 public:
  static constexpr uint32_t kMaxSupportedSchemaVersion = 0;

  // Loads and checks the file behind `loader` (not owned; it must outlive
  // the map). InvalidExternalData for a malformed file.
  static executorch::runtime::Result<FlatTensorDataMap> load(
      executorch::runtime::DataLoader* loader);

  ET_NODISCARD executorch::runtime::Result<const executorch::runtime::TensorLayout>
  get_tensor_layout(std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> get_data(
      std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Error load_data_into(std::string_view key, void* buffer,
                                                         size_t size) const override;
  ET_NODISCARD executorch::runtime::Result<uint32_t> get_num_keys() const override;
  ET_NODISCARD executorch::runtime::Result<const char*> get_key(uint32_t index) const override;
  const ::etr::NamedDataMap* etr_map() const override;

  FlatTensorDataMap(FlatTensorDataMap&&) noexcept;
  ~FlatTensorDataMap() override;

  // Internal (extension/compat).
  struct State;
  explicit FlatTensorDataMap(std::unique_ptr<State> state);

 private:
  FlatTensorDataMap(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(FlatTensorDataMap&&) = delete;
  FlatTensorDataMap& operator=(const FlatTensorDataMap&) = delete;

  std::unique_ptr<State> state_;
};

}  // namespace extension
}  // namespace executorch
