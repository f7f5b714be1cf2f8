// Memory during the XNNPACK delegate's init: the named data holding a
// layer's weights is given back as soon as that layer is packed (the
// native GEMM and depthwise nodes keep their own copies), not after every
// layer is, so init never holds all the sources next to all the packed
// copies.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "runtime/platform/error_capture.h"
#include "test/support/in_process.h"
#include "test/xnnpack/payload_util.h"

namespace etr {
namespace testing {
namespace {

// Hands out copies of another map's named data; when a caller releases one,
// records how many bytes the method allocator had handed out by then.
class ReleaseTimingMap final : public NamedDataMap {
 public:
  ReleaseTimingMap(const NamedDataMap& inner, const MemoryAllocator* alloc)
      : inner_(inner), alloc_(alloc) {}
  Result<FreeableBuffer> get_data(StringView key) const override {
    Result<FreeableBuffer> b = inner_.get_data(key);
    if (!b.ok()) return b.error();
    copies_.emplace_back(new std::vector<uint8_t>(b->size()));
    std::memcpy(copies_.back()->data(), b->data(), b->size());
    loaded_bytes_ += b->size();
    return FreeableBuffer(copies_.back()->data(), b->size(), note,
                          const_cast<ReleaseTimingMap*>(this));
  }
  Result<TensorLayout> get_layout(StringView key) const override { return inner_.get_layout(key); }
  size_t num_keys() const override { return inner_.num_keys(); }
  Result<const char*> key_at(size_t index) const override { return inner_.key_at(index); }

  size_t loaded_bytes() const { return loaded_bytes_; }
  size_t released_bytes() const { return released_bytes_; }
  // The allocator's bytes in use at each release, in order.
  const std::vector<size_t>& used_at_release() const { return used_at_release_; }

 private:
  static void note(void* context, const void*, size_t size) {
    ReleaseTimingMap* m = static_cast<ReleaseTimingMap*>(context);
    m->released_bytes_ += size;
    m->used_at_release_.push_back(m->alloc_->used());
  }
  const NamedDataMap& inner_;
  const MemoryAllocator* alloc_;
  mutable std::vector<std::unique_ptr<std::vector<uint8_t>>> copies_;
  mutable size_t loaded_bytes_ = 0;
  size_t released_bytes_ = 0;
  std::vector<size_t> used_at_release_;
};

// resnet18_small.pte: 20 fp32 convolutions and a linear layer, all native
// nodes, their weights in named data.
TEST(XnnpackInitMemoryTest, EachLayersSourceIsReleasedOnceItIsPacked) {
  static const LoadedFile& file = load_fixture_once("xnnpack/resnet18_small.pte");
  ASSERT_NE(file.program, nullptr);
  std::vector<uint8_t> payload = first_xnnpack_payload(file.bytes);
  ASSERT_FALSE(payload.empty());
  std::vector<uint8_t> pool(size_t{64} << 20);
  MemoryAllocator alloc(pool.data(), pool.size());
  ReleaseTimingMap named(file.program->named_data(), &alloc);
  FreeableBuffer processed(payload.data(), payload.size());
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  BackendInitContext ctx{&alloc, &named, "forward", 0, nullptr, {}};
  Result<DelegateHandle*> h = xnnpack_backend().init(ctx, &processed, {});
  ASSERT_TRUE(h.ok()) << capture.message();
  const size_t final_used = alloc.used();
  // Every weight and bias is copied, so all named data goes back...
  EXPECT_GT(named.loaded_bytes(), size_t{100000});
  EXPECT_EQ(named.released_bytes(), named.loaded_bytes());
  // ...and layer by layer: most releases come while later layers are still
  // to be packed, the first well before half of the packed weights exist.
  const std::vector<size_t>& at = named.used_at_release();
  ASSERT_GE(at.size(), size_t{20});
  size_t early = 0;
  for (size_t used : at) early += used < final_used ? 1 : 0;
  EXPECT_GE(early, at.size() / 2) << "releases before the end of init: " << early << " of "
                                  << at.size();
  EXPECT_LT(at.front(), final_used / 2);
  xnnpack_backend().destroy(*h);
}

}  // namespace
}  // namespace testing
}  // namespace etr
