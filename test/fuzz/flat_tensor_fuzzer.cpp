// libFuzzer harness for the .ptd reader: arbitrary bytes -> FlatTensorDataMap,
// then every accessor for every key.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "runtime/platform/platform.h"

namespace {

// Touches every byte a returned span claims, so ASan sees a bad range.
uint32_t touch(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t sum = 0;
  for (size_t i = 0; i < size; ++i) sum += p[i];
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Rejections are logged; drop the messages so stderr does not slow the run.
  static bool initialised = [] {
    etr::PlatformHooks hooks{};
    hooks.log = [](etr::LogLevel, const char*, int, const char*) {};
    etr::set_platform_hooks(hooks);
    return true;
  }();
  (void)initialised;
  // The reader requires 8-byte-aligned bytes; a copy also gives ASan exact bounds.
  void* copy = std::aligned_alloc(16, (size + 16) & ~size_t{15});
  if (size != 0) std::memcpy(copy, data, size);
  volatile uint32_t sink = 0;
  {
    etr::BufferDataLoader loader(copy, size);
    etr::Result<etr::FlatTensorDataMap> map = etr::FlatTensorDataMap::load(&loader);
    if (map.ok()) {
      const size_t n = map->num_keys();
      for (size_t i = 0; i <= n; ++i) {  // one past the end must fail cleanly
        etr::Result<const char*> key = map->key_at(i);
        if (!key.ok()) continue;
        etr::Result<etr::FreeableBuffer> bytes = map->get_data(*key);
        if (bytes.ok()) sink = sink + touch(bytes->data(), bytes->size());
        etr::Result<etr::TensorLayout> layout = map->get_layout(*key);
        if (layout.ok()) {
          sink = sink + touch(layout->sizes.data(), layout->sizes.size() * sizeof(int32_t));
          sink = sink + touch(layout->dim_order.data(), layout->dim_order.size());
        }
      }
      (void)map->get_data("");
      (void)map->get_layout("");
    }
  }
  (void)sink;
  std::free(copy);
  return 0;
}
