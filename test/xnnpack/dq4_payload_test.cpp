// The XNNPACK delegate on the 4-bit payloads the official exporter writes
// (test/models/xnnpack/dq4_mlp.pte: qbint4 weights, PerChannelGroupQuant
// with bf16 block scales in named data): the payload initializes, and
// hostile edits of its block-wise fields (group_size, num_scales, dims) or
// of any byte are refused with a message naming the delegate and the value
// or node, never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "runtime/platform/error_capture.h"
#include "schema/xnnpack_graph_generated.h"
#include "test/support/in_process.h"
#include "test/xnnpack/payload_util.h"

namespace etr {
namespace testing {
namespace {

namespace fb = etr_xnn;

const LoadedFile& dq4_file() {
  static const LoadedFile& file = load_fixture_once("xnnpack/dq4_mlp.pte");
  return file;
}

std::vector<uint8_t> dq4_payload() { return first_xnnpack_payload(dq4_file().bytes); }

Error init_with(const std::vector<uint8_t>& bytes, std::string* message) {
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  std::vector<uint8_t> copy = bytes;
  FreeableBuffer processed(copy.data(), copy.size());
  std::vector<uint8_t> pool(1 << 16);
  MemoryAllocator alloc(pool.data(), pool.size());
  if (dq4_file().program == nullptr) return Error::InvalidProgram;
  BackendInitContext ctx{&alloc, &dq4_file().program->named_data(), "forward", 0, nullptr, {}};
  Result<DelegateHandle*> h = xnnpack_backend().init(ctx, &processed, {});
  *message = capture.message();
  if (h.ok()) {
    xnnpack_backend().destroy(*h);
    return Error::Ok;
  }
  return h.error();
}

// Where a scalar field of a table lies inside `payload` (the flatbuffer
// starts at the header's recorded offset); SIZE_MAX when the field is
// absent (written as its default).
size_t field_offset(const std::vector<uint8_t>& payload, const void* table, uint16_t vt) {
  const uint8_t* p = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vt);
  return p == nullptr ? SIZE_MAX : static_cast<size_t>(p - payload.data());
}

struct GroupFields {
  uint32_t value;        // index in xvalues
  size_t group_size_at;  // byte offsets in the payload
  size_t num_scales_at;
  size_t dims_at;  // first entry of dims
  int32_t group_size;
  uint32_t num_scales;
};

// Every qbint4 value's block-wise fields, located in `payload`.
std::vector<GroupFields> group_fields(const std::vector<uint8_t>& payload) {
  std::vector<GroupFields> out;
  uint32_t fb_off = 0;
  std::memcpy(&fb_off, &payload[10], 4);
  const fb::XNNGraph* g = fb::GetXNNGraph(payload.data() + fb_off);
  for (uint32_t i = 0; i < g->xvalues()->size(); ++i) {
    const fb::XValue* xv = g->xvalues()->Get(i);
    const fb::XNNQuantizedTensorValue* qv = xv->xvalue_union_as_XNNQuantizedTensorValue();
    if (qv == nullptr) continue;
    const fb::PerChannelGroupQuant* q = qv->quant_params_as_PerChannelGroupQuant();
    if (q == nullptr) continue;
    GroupFields f;
    f.value = i;
    f.group_size_at = field_offset(payload, q, fb::PerChannelGroupQuant::VT_GROUP_SIZE);
    f.num_scales_at = field_offset(payload, q, fb::PerChannelGroupQuant::VT_NUM_SCALES);
    f.dims_at = static_cast<size_t>(
        reinterpret_cast<const uint8_t*>(qv->tensor_value()->dims()->data()) - payload.data());
    f.group_size = q->group_size();
    f.num_scales = q->num_scales();
    out.push_back(f);
  }
  return out;
}

void put_u32(std::vector<uint8_t>* p, size_t at, uint32_t v) { std::memcpy(&(*p)[at], &v, 4); }

TEST(Dq4PayloadTest, ExportedBlockwisePayloadInitializes) {
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  const std::vector<GroupFields> fields = group_fields(p);
  ASSERT_EQ(fields.size(), 3u);  // fc1, fc2 (group 32), fc3 (PerAxis: group = 64 inputs)
  EXPECT_EQ(fields[0].group_size, 32);
  EXPECT_EQ(fields[2].group_size, 64);
  std::string msg;
  EXPECT_EQ(init_with(p, &msg), Error::Ok) << msg;
}

// Hands out copies of another map's named data and adds up the bytes its
// callers release.
class ReleaseCountingMap final : public NamedDataMap {
 public:
  explicit ReleaseCountingMap(const NamedDataMap& inner) : inner_(inner) {}
  Result<FreeableBuffer> get_data(StringView key) const override {
    Result<FreeableBuffer> b = inner_.get_data(key);
    if (!b.ok()) return b.error();
    copies_.emplace_back(new std::vector<uint8_t>(b->size()));
    std::memcpy(copies_.back()->data(), b->data(), b->size());
    return FreeableBuffer(copies_.back()->data(), b->size(), count, &released_);
  }
  Result<TensorLayout> get_layout(StringView key) const override { return inner_.get_layout(key); }
  size_t num_keys() const override { return inner_.num_keys(); }
  Result<const char*> key_at(size_t index) const override { return inner_.key_at(index); }
  size_t released() const { return released_; }

 private:
  static void count(void* context, const void*, size_t size) {
    *static_cast<size_t*>(context) += size;
  }
  const NamedDataMap& inner_;
  mutable std::vector<std::unique_ptr<std::vector<uint8_t>>> copies_;
  mutable size_t released_ = 0;
};

// The 4-bit linear layers keep their own (repacked or unpacked) weights and
// biases, so init gives the named data holding the originals back: the
// mapped file's pages are not held next to the copies.
TEST(Dq4PayloadTest, NamedDataOfCopiedWeightsIsReleasedAtInit) {
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  ASSERT_NE(dq4_file().program, nullptr);
  size_t weight_bytes = 0;  // the 4-bit weights: two per byte
  for (const GroupFields& f : group_fields(p)) {
    uint32_t dims[2];
    std::memcpy(dims, &p[f.dims_at], sizeof dims);
    weight_bytes += (size_t{dims[0]} * dims[1] + 1) / 2;
  }
  ASSERT_GT(weight_bytes, 0u);
  ReleaseCountingMap named(dq4_file().program->named_data());
  std::vector<uint8_t> copy = p;
  FreeableBuffer processed(copy.data(), copy.size());
  std::vector<uint8_t> pool(1 << 16);
  MemoryAllocator alloc(pool.data(), pool.size());
  BackendInitContext ctx{&alloc, &named, "forward", 0, nullptr, {}};
  Result<DelegateHandle*> h = xnnpack_backend().init(ctx, &processed, {});
  ASSERT_TRUE(h.ok());
  EXPECT_GE(named.released(), weight_bytes);
  xnnpack_backend().destroy(*h);
}

TEST(Dq4PayloadTest, GroupSizeNotDividingTheInputsIsRefused) {
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  for (const GroupFields& f : group_fields(p)) {
    ASSERT_NE(f.group_size_at, SIZE_MAX);
    for (uint32_t bad : {24u, 0u, 0x80000000u, 7u}) {
      std::vector<uint8_t> q = p;
      put_u32(&q, f.group_size_at, bad);
      std::string msg;
      EXPECT_NE(init_with(q, &msg), Error::Ok) << "value " << f.value << " group " << bad;
      EXPECT_NE(msg.find("delegate 0: value " + std::to_string(f.value)), std::string::npos) << msg;
      EXPECT_NE(msg.find("group_size"), std::string::npos) << msg;
    }
  }
}

TEST(Dq4PayloadTest, SmallerGroupsThanTheScalesHoldAreRefused) {
  // group 16 divides every layer's inputs; num_scales doubled to match, so
  // the value parses, but the scale buffer is then too short: refused.
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  const GroupFields f = group_fields(p)[0];
  std::vector<uint8_t> q = p;
  put_u32(&q, f.group_size_at, 16);
  put_u32(&q, f.num_scales_at, f.num_scales * 2);
  std::string msg;
  EXPECT_NE(init_with(q, &msg), Error::Ok);
  EXPECT_NE(msg.find("scale buffer"), std::string::npos) << msg;
}

TEST(Dq4PayloadTest, WrongScaleCountIsRefused) {
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  for (const GroupFields& f : group_fields(p)) {
    ASSERT_NE(f.num_scales_at, SIZE_MAX);
    for (uint32_t bad : {f.num_scales + 1, f.num_scales - 1, 0u, 0xFFFFFFFFu}) {
      std::vector<uint8_t> q = p;
      put_u32(&q, f.num_scales_at, bad);
      std::string msg;
      EXPECT_NE(init_with(q, &msg), Error::Ok) << "value " << f.value << " num_scales " << bad;
      EXPECT_NE(msg.find("value " + std::to_string(f.value) + ": qbint4 scale buffer"),
                std::string::npos)
          << msg;
    }
  }
}

TEST(Dq4PayloadTest, DimsBeyondTheDataAreRefused) {
  // More outputs (num_scales no longer matches) or more inputs than the
  // weights and scales hold: refused before anything reads them.
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  for (const GroupFields& f : group_fields(p)) {
    for (size_t d = 0; d < 2; ++d) {
      for (uint32_t bad : {64u * 1024u, 0x7FFFFFFFu}) {
        std::vector<uint8_t> q = p;
        put_u32(&q, f.dims_at + 4 * d, bad);
        std::string msg;
        EXPECT_NE(init_with(q, &msg), Error::Ok) << "value " << f.value << " dim " << d;
        EXPECT_NE(msg.find("delegate 0"), std::string::npos) << msg;
      }
    }
  }
}

TEST(Dq4PayloadTest, EveryTruncationAndSingleByteCorruptionIsHandled) {
  const std::vector<uint8_t> p = dq4_payload();
  ASSERT_FALSE(p.empty());
  for (size_t n = 0; n < p.size(); n += 7) {
    std::string msg;
    const std::vector<uint8_t> cut(p.begin(), p.begin() + n);
    EXPECT_NE(init_with(cut, &msg), Error::Ok) << "truncated to " << n;
    EXPECT_FALSE(msg.empty()) << n;
  }
  for (size_t i = 0; i < p.size(); ++i) {
    for (uint8_t x : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> bad = p;
      bad[i] ^= x;
      std::string msg;
      const Error e = init_with(bad, &msg);  // accepted or refused, never a crash
      if (e != Error::Ok) {
        EXPECT_FALSE(msg.empty()) << "byte " << i;
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
