// Compatibility layer (extension/compat): the official MergedDataMap, one
// NamedDataMap over several (e.g. two .ptd files). Keys must be unique across
// the maps; load() fails with InvalidArgument on a duplicate or a null map.
// The maps are not owned and must outlive the merged one.
#pragma once

#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/span.h>

#include <string>
#include <unordered_map>
#include <vector>

#define ET_MERGED_DATA_MAP_NAMESPACE merged_data_map

namespace executorch::extension {
namespace ET_MERGED_DATA_MAP_NAMESPACE {

class MergedDataMap final : public executorch::runtime::NamedDataMap {
 public:
  static executorch::runtime::Result<MergedDataMap> load(
      executorch::runtime::Span<const executorch::runtime::NamedDataMap*> named_data_maps);

  ET_NODISCARD executorch::runtime::Result<const executorch::runtime::TensorLayout>
  get_tensor_layout(std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> get_data(
      std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Error load_data_into(std::string_view key, void* buffer,
                                                         size_t size) const override;
  ET_NODISCARD executorch::runtime::Result<uint32_t> get_num_keys() const override;
  ET_NODISCARD executorch::runtime::Result<const char*> get_key(uint32_t index) const override;

  MergedDataMap(MergedDataMap&&) noexcept = default;
  ~MergedDataMap() override = default;

 private:
  MergedDataMap(std::vector<const executorch::runtime::NamedDataMap*> named_data_maps,
                std::unordered_map<std::string, uint32_t> key_to_map_index)
      : named_data_maps_(std::move(named_data_maps)),
        key_to_map_index_(std::move(key_to_map_index)) {}
  MergedDataMap(const MergedDataMap&) = delete;
  MergedDataMap& operator=(MergedDataMap&&) noexcept = delete;
  MergedDataMap& operator=(const MergedDataMap&) = delete;

  // The map holding `key`, or null.
  const executorch::runtime::NamedDataMap* find(std::string_view key) const;

  std::vector<const executorch::runtime::NamedDataMap*> named_data_maps_;
  std::unordered_map<std::string, uint32_t> key_to_map_index_;
};

}  // namespace ET_MERGED_DATA_MAP_NAMESPACE
}  // namespace executorch::extension
