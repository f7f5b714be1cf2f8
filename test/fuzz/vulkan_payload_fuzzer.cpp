// libFuzzer harness for the Vulkan delegate's init: header and flatbuffer
// checks, operator planning, and (for payloads that pass them) buffer,
// pipeline and command-buffer creation on lavapipe. The input is a payload,
// or any bytes containing one (so whole .pte fixtures seed it: the harness
// starts at the first VH00 header it finds). Every named-data key resolves
// to zero bytes, so constants never stop the fuzzer early.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "backends/vulkan/vulkan_backend.h"
#include "runtime/core/named_data_map.h"
#include "runtime/platform/platform.h"

namespace {

class ZeroData final : public etr::NamedDataMap {
 public:
  etr::Result<etr::FreeableBuffer> get_data(etr::StringView) const override {
    return etr::FreeableBuffer(zeros_.data(), zeros_.size());
  }
  etr::Result<etr::TensorLayout> get_layout(etr::StringView) const override {
    return etr::Error::NotFound;
  }
  size_t num_keys() const override { return 0; }
  etr::Result<const char*> key_at(size_t) const override { return etr::Error::NotFound; }

 private:
  std::vector<uint8_t> zeros_ = std::vector<uint8_t>(1 << 20, 0);
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool init = [] {
    etr::PlatformHooks hooks = etr::platform_hooks();
    hooks.log = [](etr::LogLevel, const char*, int, const char*) {};
    etr::set_platform_hooks(hooks);
    // The same CPU driver the tests use, whatever GPU the machine has.
    setenv("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 0);
    return true;
  }();
  (void)init;
  size_t start = 0;
  for (size_t i = 0; i + 8 <= size; ++i) {
    if (std::memcmp(data + i + 4, "VH00", 4) == 0) {
      start = i;
      break;
    }
  }
  // An aligned copy, as a loader would hand it over.
  std::vector<uint64_t> copy((size - start + 7) / 8 + 1);
  std::memcpy(copy.data(), data + start, size - start);
  static ZeroData zeros;
  etr::FreeableBuffer processed(copy.data(), size - start);
  static std::vector<uint8_t> pool(size_t{1} << 20);
  etr::MemoryAllocator alloc(pool.data(), pool.size());
  etr::BackendInitContext ctx{&alloc, &zeros, "forward", 0, nullptr, {}};
  etr::Result<etr::DelegateHandle*> h = etr::vulkan_backend().init(ctx, &processed, {});
  if (h.ok()) etr::vulkan_backend().destroy(*h);
  return 0;
}
