// Compatibility layer (extension/compat): the official MmapDataLoader, which
// maps the file and hands out views of its pages. It wraps
// etr::MmapDataLoader (which the runtime reads through directly).
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <memory>

namespace executorch {
namespace extension {

class MmapDataLoader final : public executorch::runtime::DataLoader {
 public:
  // UseMlock: every load is locked in RAM and fails when the lock fails;
  // UseMlockIgnoreErrors: locked when possible; NoMlock and UseMadvise:
  // plain mappings.
  enum class MlockConfig {
    NoMlock,
    UseMlock,
    UseMlockIgnoreErrors,
    UseMadvise,
  };

  // Opens `file_name`; AccessFailed when it cannot be opened.
  static executorch::runtime::Result<MmapDataLoader> from(
      const char* file_name, MlockConfig mlock_config = MlockConfig::UseMlock);
  ET_DEPRECATED static executorch::runtime::Result<MmapDataLoader> From(
      const char* file_name, MlockConfig mlock_config = MlockConfig::UseMlock) {
    return from(file_name, mlock_config);
  }
  ET_DEPRECATED static executorch::runtime::Result<MmapDataLoader> From(const char* file_name,
                                                                        bool use_mlock) {
    return from(file_name, use_mlock ? MlockConfig::UseMlock : MlockConfig::NoMlock);
  }

  MmapDataLoader(MmapDataLoader&& rhs) noexcept;
  ~MmapDataLoader() override;

  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const DataLoader::SegmentInfo& segment_info) const override;
  ET_NODISCARD executorch::runtime::Result<size_t> size() const override;
  ET_NODISCARD executorch::runtime::Error load_into(size_t offset, size_t size,
                                                    const SegmentInfo& segment_info,
                                                    void* buffer) const override;
  ::etr::DataLoader* etr_loader() const override;

  // Internal (extension/compat).
  struct State;
  explicit MmapDataLoader(std::unique_ptr<State> state);

 private:
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;

  std::unique_ptr<State> state_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::MmapDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
