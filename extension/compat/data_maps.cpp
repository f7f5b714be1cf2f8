// The official MergedDataMap (extension/named_data_map), NoThreadPoolGuard,
// and the flatbuffers-based entry points etr does not provide
// (validate_program, validate_tensor, PteDataMap::create).
#include <executorch/extension/named_data_map/merged_data_map.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/executor/program_validation.h>
#include <executorch/runtime/executor/pte_data_map.h>
#include <executorch/runtime/platform/log.h>

#include <cinttypes>
#include <string>
#include <utility>
#include <vector>

namespace executorch {

namespace extension {

// ---- NoThreadPoolGuard -------------------------------------------------------

namespace threadpool {
namespace {
thread_local bool g_no_thread_pool = false;
}  // namespace

bool NoThreadPoolGuard::is_enabled() { return g_no_thread_pool; }
void NoThreadPoolGuard::set_enabled(bool enabled) { g_no_thread_pool = enabled; }
}  // namespace threadpool

// ---- MergedDataMap -----------------------------------------------------------

namespace merged_data_map {

using runtime::Error;
using runtime::FreeableBuffer;
using runtime::NamedDataMap;
using runtime::Result;
using runtime::TensorLayout;

Result<MergedDataMap> MergedDataMap::load(runtime::Span<const NamedDataMap*> named_data_maps) {
  std::vector<const NamedDataMap*> maps;
  std::unordered_map<std::string, uint32_t> key_to_map;
  for (size_t m = 0; m < named_data_maps.size(); ++m) {
    const NamedDataMap* map = named_data_maps[m];
    ET_CHECK_OR_RETURN_ERROR(map != nullptr, InvalidArgument, "MergedDataMap: data map %zu is null",
                             m);
    Result<uint32_t> count = map->get_num_keys();
    if (!count.ok()) return count.error();
    for (uint32_t k = 0; k < *count; ++k) {
      Result<const char*> key = map->get_key(k);
      if (!key.ok()) return key.error();
      const bool inserted =
          key_to_map.emplace(std::string(*key), static_cast<uint32_t>(maps.size())).second;
      ET_CHECK_OR_RETURN_ERROR(inserted, InvalidArgument,
                               "MergedDataMap: key '%s' appears in more than one data map", *key);
    }
    maps.push_back(map);
  }
  return MergedDataMap(std::move(maps), std::move(key_to_map));
}

const NamedDataMap* MergedDataMap::find(std::string_view key) const {
  auto it = key_to_map_index_.find(std::string(key));
  return it == key_to_map_index_.end() ? nullptr : named_data_maps_[it->second];
}

Result<const TensorLayout> MergedDataMap::get_tensor_layout(std::string_view key) const {
  const NamedDataMap* map = find(key);
  if (map == nullptr) return Error::NotFound;
  return map->get_tensor_layout(key);
}

Result<FreeableBuffer> MergedDataMap::get_data(std::string_view key) const {
  const NamedDataMap* map = find(key);
  if (map == nullptr) return Error::NotFound;
  return map->get_data(key);
}

Error MergedDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  const NamedDataMap* map = find(key);
  if (map == nullptr) return Error::NotFound;
  return map->load_data_into(key, buffer, size);
}

Result<uint32_t> MergedDataMap::get_num_keys() const {
  return static_cast<uint32_t>(key_to_map_index_.size());
}

Result<const char*> MergedDataMap::get_key(uint32_t index) const {
  uint32_t base = 0;
  for (const NamedDataMap* map : named_data_maps_) {
    Result<uint32_t> count = map->get_num_keys();
    if (!count.ok()) return count.error();
    if (index < base + *count) return map->get_key(index - base);
    base += *count;
  }
  ET_LOG(Error, "MergedDataMap: key index %" PRIu32 " out of range (%" PRIu32 " keys)", index,
         base);
  return Error::InvalidArgument;
}

}  // namespace merged_data_map
}  // namespace extension

// ---- Flatbuffers-based entry points ------------------------------------------

namespace runtime {

Error validate_tensor(const executorch_flatbuffer::Tensor*) {
  ET_LOG(Error,
         "validate_tensor: etr does not expose flatbuffers tables; Program::load checks every "
         "tensor as it parses the program");
  return Error::NotSupported;
}

Error validate_program(const executorch_flatbuffer::Program*) {
  ET_LOG(Error,
         "validate_program: etr does not expose flatbuffers tables; Program::load checks the "
         "program as it parses it");
  return Error::NotSupported;
}

namespace internal {
Result<PteDataMap> PteDataMap::create_unsupported() {
  ET_LOG(Error,
         "PteDataMap::create: etr does not expose flatbuffers tables; a program's named data is "
         "served to its methods by Program::load_method");
  return Error::NotSupported;
}
}  // namespace internal

}  // namespace runtime
}  // namespace executorch
