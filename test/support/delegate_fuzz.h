// The body of the delegate-payload fuzz harnesses: one call runs a
// backend's init (and destroy) on the payload found in `data`.
//   - The payload starts at the first header whose magic (bytes 4..7) is
//     `magic`, so whole .pte fixtures seed the corpus; with none, at byte 0.
//   - It is copied to aligned memory, as a loader would hand it over.
//   - Every named-data key resolves to 1 MiB of zeros, so constants never
//     stop the fuzzer early.
//   - The method allocator is a fresh one over the same `pool_bytes` of
//     memory for every input; the runtime's log is silenced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/backend/backend.h"
#include "runtime/core/named_data_map.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace fuzz {

class ZeroData final : public NamedDataMap {
 public:
  Result<FreeableBuffer> get_data(StringView) const override {
    return FreeableBuffer(zeros_.data(), zeros_.size());
  }
  Result<TensorLayout> get_layout(StringView) const override { return Error::NotFound; }
  size_t num_keys() const override { return 0; }
  Result<const char*> key_at(size_t) const override { return Error::NotFound; }

 private:
  std::vector<uint8_t> zeros_ = std::vector<uint8_t>(1 << 20, 0);
};

template <size_t kPoolBytes>
int run_delegate_init(const BackendInterface& backend, const char (&magic)[5], const uint8_t* data,
                      size_t size) {
  static const bool init = [] {
    PlatformHooks hooks = platform_hooks();
    hooks.log = [](LogLevel, const char*, int, const char*) {};
    set_platform_hooks(hooks);
    return true;
  }();
  (void)init;
  size_t start = 0;
  for (size_t i = 0; i + 8 <= size; ++i) {
    if (std::memcmp(data + i + 4, magic, 4) == 0) {
      start = i;
      break;
    }
  }
  std::vector<uint64_t> copy((size - start + 7) / 8 + 1);
  std::memcpy(copy.data(), data + start, size - start);
  static ZeroData zeros;
  FreeableBuffer processed(copy.data(), size - start);
  static std::vector<uint8_t> pool(kPoolBytes);
  MemoryAllocator alloc(pool.data(), pool.size());
  BackendInitContext ctx{&alloc, &zeros, "forward", 0, nullptr, {}};
  Result<DelegateHandle*> h = backend.init(ctx, &processed, {});
  if (h.ok()) backend.destroy(*h);
  return 0;
}

}  // namespace fuzz
}  // namespace etr
