// MmapDataLoader: exact bytes for ranges across page boundaries, hostile
// ranges refused (overflow included), mappings released with the buffer.
#include "extension/data_loader/mmap_data_loader.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/executor/program.h"
#include "runtime/platform/error_capture.h"

namespace etr {
namespace {

class MmapDataLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    page_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    bytes_.resize(3 * page_ + 123);
    for (size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<uint8_t>(i * 7 + 3);
    char name[] = "/tmp/etr_mmap_testXXXXXX";
    const int fd = ::mkstemp(name);
    ASSERT_GE(fd, 0);
    path_ = name;
    ASSERT_EQ(::write(fd, bytes_.data(), bytes_.size()), static_cast<ssize_t>(bytes_.size()));
    ::close(fd);
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // True while the page holding `p` is mapped in this process.
  static bool mapped(const void* p, size_t page) {
    unsigned char vec = 0;
    void* base = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~(uintptr_t{page} - 1));
    return ::mincore(base, page, &vec) == 0 || errno != ENOMEM;
  }

  size_t page_ = 4096;
  std::vector<uint8_t> bytes_;
  std::string path_;
};

TEST_F(MmapDataLoaderTest, LoadsExactBytesAtAnyOffset) {
  Result<MmapDataLoader> loader = MmapDataLoader::from(path_.c_str());
  ASSERT_TRUE(loader.ok());
  ASSERT_TRUE(loader->size().ok());
  EXPECT_EQ(*loader->size(), bytes_.size());
  const size_t ranges[][2] = {{0, 1},         {0, bytes_.size()},           {page_ - 1, 2},
                              {page_, page_}, {2 * page_ + 5, page_ + 100}, {bytes_.size() - 1, 1},
                              {17, 3 * page_}};
  for (const auto& r : ranges) {
    Result<FreeableBuffer> b = loader->load(r[0], r[1], SegmentKind::Constant);
    ASSERT_TRUE(b.ok()) << r[0] << "+" << r[1];
    ASSERT_EQ(b->size(), r[1]);
    EXPECT_EQ(std::memcmp(b->data(), bytes_.data() + r[0], r[1]), 0) << r[0] << "+" << r[1];
    std::vector<uint8_t> copy(r[1]);
    ASSERT_EQ(loader->load_into(r[0], r[1], SegmentKind::Program, copy.data()), Error::Ok);
    EXPECT_EQ(std::memcmp(copy.data(), bytes_.data() + r[0], r[1]), 0);
  }
}

TEST_F(MmapDataLoaderTest, HostileRangesAreRefused) {
  Result<MmapDataLoader> loader = MmapDataLoader::from(path_.c_str());
  ASSERT_TRUE(loader.ok());
  const size_t n = bytes_.size();
  const size_t max = std::numeric_limits<size_t>::max();
  const size_t ranges[][2] = {{n, 1},      {n + 1, 0}, {0, n + 1}, {n - 1, 2},
                              {max, 1},    {1, max},   {max, max}, {page_, max - page_ + 1},
                              {max - 3, 8}};
  uint8_t sink[16];
  for (const auto& r : ranges) {
    char msg[256];
    ErrorCapture capture(msg, sizeof(msg));
    Result<FreeableBuffer> b = loader->load(r[0], r[1], SegmentKind::Backend);
    EXPECT_EQ(b.error(), Error::InvalidArgument) << r[0] << "+" << r[1];
    EXPECT_NE(std::string(capture.message()).find("outside the"), std::string::npos);
    EXPECT_EQ(loader->load_into(r[0], r[1], SegmentKind::Backend, sink), Error::InvalidArgument);
  }
  // Empty ranges inside (or at the end of) the file are fine.
  Result<FreeableBuffer> empty = loader->load(n, 0, SegmentKind::Constant);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
}

TEST_F(MmapDataLoaderTest, ReleaseUnmapsThePages) {
  Result<MmapDataLoader> loader = MmapDataLoader::from(path_.c_str());
  ASSERT_TRUE(loader.ok());
  Result<FreeableBuffer> b = loader->load(page_ + 10, page_, SegmentKind::Backend);
  ASSERT_TRUE(b.ok());
  const uint8_t* p = static_cast<const uint8_t*>(b->data());
  EXPECT_EQ(p[0], bytes_[page_ + 10]);
  EXPECT_TRUE(mapped(p, page_));
  EXPECT_TRUE(mapped(p + page_ - 1, page_));
  b->release();
  EXPECT_EQ(b->data(), nullptr);
  EXPECT_FALSE(mapped(p, page_));
  EXPECT_FALSE(mapped(p + page_ - 1, page_));
}

TEST_F(MmapDataLoaderTest, BuffersOutliveTheLoader) {
  FreeableBuffer kept;
  {
    Result<MmapDataLoader> loader = MmapDataLoader::from(path_.c_str());
    ASSERT_TRUE(loader.ok());
    MmapDataLoader moved(std::move(*loader));
    Result<FreeableBuffer> got = moved.load(5, 100, SegmentKind::Constant);
    ASSERT_TRUE(got.ok());
    kept = std::move(*got);
  }
  ASSERT_EQ(kept.size(), 100u);
  EXPECT_EQ(std::memcmp(kept.data(), bytes_.data() + 5, 100), 0);
}

TEST_F(MmapDataLoaderTest, LockIgnoringErrorsStillLoads) {
  Result<MmapDataLoader> loader =
      MmapDataLoader::from(path_.c_str(), MmapDataLoader::Mlock::LockIgnoreErrors);
  ASSERT_TRUE(loader.ok());
  Result<FreeableBuffer> b = loader->load(3, 2 * page_, SegmentKind::Constant);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(std::memcmp(b->data(), bytes_.data() + 3, 2 * page_), 0);
}

TEST(MmapDataLoaderOpen, MissingFileAndDirectoryAreRefused) {
  char msg[256];
  ErrorCapture capture(msg, sizeof(msg));
  EXPECT_EQ(MmapDataLoader::from("/nonexistent/x.pte").error(), Error::AccessFailed);
  EXPECT_NE(std::string(capture.message()).find("/nonexistent/x.pte"), std::string::npos);
  EXPECT_EQ(MmapDataLoader::from("/tmp").error(), Error::AccessFailed);
  EXPECT_EQ(MmapDataLoader::from(nullptr).error(), Error::InvalidArgument);
}

TEST(MmapDataLoaderOpen, LoadsAProgram) {
  Result<MmapDataLoader> loader =
      MmapDataLoader::from((std::string(ETR_SOURCE_DIR) + "/test/models/two_methods.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(&*loader);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(program->num_methods(), 6u);
}

}  // namespace
}  // namespace etr
