// The official MmapDataLoader (extension/compat): each mlock mode, loads and
// load_into at page-aligned and unaligned offsets, and the official error
// codes for bad ranges, a null destination and a loader that was moved from.
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/runtime/platform/runtime.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using executorch::extension::MmapDataLoader;
using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;

namespace {

const DataLoader::SegmentInfo kProgram(DataLoader::SegmentInfo::Type::Program);

class CompatMmapDataLoaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }

  // Three and a half pages whose byte i is (i * 7 + 3) mod 251.
  void SetUp() override {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bytes_.resize(3 * page_ + page_ / 2);
    for (size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<uint8_t>((i * 7 + 3) % 251);
    char name[] = "/tmp/etr_compat_mmap_XXXXXX";
    const int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, bytes_.data(), bytes_.size()), static_cast<ssize_t>(bytes_.size()));
    close(fd);
    path_ = name;
  }
  void TearDown() override { std::remove(path_.c_str()); }

  size_t page_ = 0;
  std::vector<uint8_t> bytes_;
  std::string path_;
};

TEST_F(CompatMmapDataLoaderTest, EveryMlockModeLoadsTheFilesBytes) {
  for (auto mode : {MmapDataLoader::MlockConfig::NoMlock, MmapDataLoader::MlockConfig::UseMlock,
                    MmapDataLoader::MlockConfig::UseMlockIgnoreErrors,
                    MmapDataLoader::MlockConfig::UseMadvise}) {
    auto loader = MmapDataLoader::from(path_.c_str(), mode);
    if (mode == MmapDataLoader::MlockConfig::UseMlock && !loader.ok()) continue;  // RLIMIT
    ASSERT_EQ(loader.error(), Error::Ok) << static_cast<int>(mode);
    EXPECT_EQ(*loader->size(), bytes_.size());
    const size_t offsets[] = {0, 1, 128, page_ - 1, page_, page_ + 3, 3 * page_};
    for (size_t offset : offsets) {
      const size_t size = bytes_.size() - offset;
      auto buffer = loader->load(offset, size, kProgram);
      if (mode == MmapDataLoader::MlockConfig::UseMlock && !buffer.ok()) continue;
      ASSERT_EQ(buffer.error(), Error::Ok) << offset;
      ASSERT_EQ(buffer->size(), size);
      EXPECT_EQ(std::memcmp(buffer->data(), bytes_.data() + offset, size), 0) << offset;
      std::vector<uint8_t> copy(size + 1, 0xEE);
      ASSERT_EQ(loader->load_into(offset, size, kProgram, copy.data()), Error::Ok);
      EXPECT_EQ(std::memcmp(copy.data(), bytes_.data() + offset, size), 0) << offset;
      EXPECT_EQ(copy[size], 0xEE);  // nothing written past the range
    }
  }
}

TEST_F(CompatMmapDataLoaderTest, BadRangesAreInvalidArgument) {
  auto loader = MmapDataLoader::from(path_.c_str(), MmapDataLoader::MlockConfig::NoMlock);
  ASSERT_EQ(loader.error(), Error::Ok);
  const size_t n = bytes_.size();
  const size_t max = std::numeric_limits<size_t>::max();
  uint8_t dst[16];
  const size_t ranges[][2] = {{0, n + 1}, {n, 1}, {n + page_, 0}, {1, max}, {max, 2}, {max, 0}};
  for (const auto& r : ranges) {
    EXPECT_EQ(loader->load(r[0], r[1], kProgram).error(), Error::InvalidArgument)
        << r[0] << "+" << r[1];
    EXPECT_EQ(loader->load_into(r[0], r[1], kProgram, dst), Error::InvalidArgument)
        << r[0] << "+" << r[1];
  }
  // An empty range at the very end is fine.
  auto empty = loader->load(n, 0, kProgram);
  ASSERT_EQ(empty.error(), Error::Ok);
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(loader->load_into(0, 4, kProgram, nullptr), Error::InvalidArgument);
}

TEST_F(CompatMmapDataLoaderTest, AMovedFromLoaderIsInvalidState) {
  auto loader = MmapDataLoader::from(path_.c_str(), MmapDataLoader::MlockConfig::NoMlock);
  ASSERT_EQ(loader.error(), Error::Ok);
  MmapDataLoader moved(std::move(*loader));
  uint8_t dst[4];
  EXPECT_EQ(loader->size().error(), Error::InvalidState);
  EXPECT_EQ(loader->load(0, 4, kProgram).error(), Error::InvalidState);
  EXPECT_EQ(loader->load_into(0, 4, kProgram, dst), Error::InvalidState);
  ASSERT_EQ(moved.load_into(5, 4, kProgram, dst), Error::Ok);
  EXPECT_EQ(std::memcmp(dst, bytes_.data() + 5, 4), 0);
}

// Upstream's LargeFileOffsetSupport returns early wherever off_t has 8
// bytes; this reads a marker 3 GiB (past INT32_MAX) into a sparse file.
TEST_F(CompatMmapDataLoaderTest, OffsetsPastTheInt32Range) {
  const size_t offset = size_t{3} << 30;
  const char marker[] = "MARKER_AT_3_GIB";
  char name[] = "/tmp/etr_compat_mmap_big_XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  const bool written = pwrite(fd, marker, sizeof(marker), static_cast<off_t>(offset)) ==
                       static_cast<ssize_t>(sizeof(marker));
  close(fd);
  if (!written) {
    std::remove(name);
    GTEST_SKIP() << "the file system refuses a 3 GiB sparse file";
  }
  {
    auto loader = MmapDataLoader::from(name, MmapDataLoader::MlockConfig::NoMlock);
    ASSERT_EQ(loader.error(), Error::Ok);
    EXPECT_EQ(*loader->size(), offset + sizeof(marker));
    auto buffer = loader->load(offset, sizeof(marker), kProgram);
    ASSERT_EQ(buffer.error(), Error::Ok);
    EXPECT_EQ(std::memcmp(buffer->data(), marker, sizeof(marker)), 0);
    char copy[sizeof(marker)] = {};
    ASSERT_EQ(loader->load_into(offset + 2, sizeof(marker) - 2, kProgram, copy), Error::Ok);
    EXPECT_EQ(std::memcmp(copy, marker + 2, sizeof(marker) - 2), 0);
    EXPECT_EQ(loader->load(offset, sizeof(marker) + 1, kProgram).error(), Error::InvalidArgument);
  }
  std::remove(name);
}

TEST_F(CompatMmapDataLoaderTest, DeprecatedFromWithABoolAndAMissingFile) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  auto loader = MmapDataLoader::From(path_.c_str(), /*use_mlock=*/false);
#pragma GCC diagnostic pop
  ASSERT_EQ(loader.error(), Error::Ok);
  EXPECT_EQ(*loader->size(), bytes_.size());
  EXPECT_EQ(MmapDataLoader::from("/nonexistent/etr_compat_mmap").error(), Error::AccessFailed);
  EXPECT_EQ(MmapDataLoader::from(nullptr).error(), Error::InvalidArgument);
}

}  // namespace
