// FlatTensorDataMap over .ptd bytes written here with our own flatbuffers
// writer: lookups on a valid file, then one malformed file per loader rule;
// every malformed file must be refused with a message naming the problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/data_loader/file_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "kernels/portable/portable_kernels.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"
#include "schema/flat_tensor_generated.h"
#include "schema/program_generated.h"

namespace etr {
namespace {

namespace ft = etr_ft;

constexpr size_t kBlock = 48;             // FH01 header (40) padded to 16
constexpr size_t kSegmentAlignment = 64;  // where segment data starts

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// File bytes in 8-byte-aligned storage (the loader requires it).
class Bytes {
 public:
  explicit Bytes(size_t n = 0) : words_((n + 7) / 8 + 1, 0), size_(n) {}
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words_.data()); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }
  size_t size() const { return size_; }
  Bytes prefix(size_t n) const {
    Bytes out(n);
    if (n != 0) std::memcpy(out.data(), data(), n);
    return out;
  }

 private:
  std::vector<uint64_t> words_;
  size_t size_;
};

struct Entry {
  std::string key;
  uint32_t segment = 0;
  bool has_layout = false;
  int8_t dtype = static_cast<int8_t>(ft::ScalarType::FLOAT);
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
};

struct Segment {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct PtdSpec {
  std::vector<Entry> entries;
  std::vector<Segment> segments;
  std::vector<uint8_t> segment_data;
  bool omit_named_data = false;
  bool omit_segments = false;
};

// Writes a .ptd the way the exporter does: a FlatTensor flatbuffer with the
// FH01 block spliced in after byte 8, then the segment data.
Bytes write_ptd(const PtdSpec& spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<ft::NamedData>> named;
  for (const Entry& e : spec.entries) {
    flatbuffers::Offset<ft::TensorLayout> layout = 0;
    if (e.has_layout) {
      layout = ft::CreateTensorLayoutDirect(b, static_cast<ft::ScalarType>(e.dtype), &e.sizes,
                                            &e.dim_order);
    }
    named.push_back(ft::CreateNamedDataDirect(b, e.key.c_str(), e.segment, layout));
  }
  std::vector<flatbuffers::Offset<ft::DataSegment>> segments;
  for (const Segment& s : spec.segments) {
    segments.push_back(ft::CreateDataSegment(b, s.offset, s.size));
  }
  ft::FinishFlatTensorBuffer(
      b, ft::CreateFlatTensorDirect(b, 0, spec.omit_segments ? nullptr : &segments,
                                    spec.omit_named_data ? nullptr : &named));
  const uint8_t* fb = b.GetBufferPointer();
  const size_t fb_size = b.GetSize();
  const size_t base =
      (kBlock + fb_size + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
  Bytes out(base + spec.segment_data.size());
  uint8_t* p = out.data();
  std::memcpy(p, fb, 8);
  put_u32(p, static_cast<uint32_t>(fb[0] | fb[1] << 8 | fb[2] << 16 | fb[3] << 24) + kBlock);
  std::memcpy(p + 8, "FH01", 4);
  put_u32(p + 12, 40);
  put_u64(p + 16, kBlock);
  put_u64(p + 24, fb_size);
  put_u64(p + 32, base);
  put_u64(p + 40, spec.segment_data.size());
  std::memcpy(p + 8 + kBlock, fb + 8, fb_size - 8);
  if (!spec.segment_data.empty()) {
    std::memcpy(p + base, spec.segment_data.data(), spec.segment_data.size());
  }
  return out;
}

// Two keys: a 2x3 float tensor with a layout (segment 0), an opaque 5-byte blob
// (segment 1).
PtdSpec valid_spec() {
  PtdSpec spec;
  Entry weight;
  weight.key = "linear.weight";
  weight.segment = 0;
  weight.has_layout = true;
  weight.sizes = {2, 3};
  weight.dim_order = {0, 1};
  Entry blob;
  blob.key = "blob";
  blob.segment = 1;
  spec.entries = {weight, blob};
  spec.segment_data.resize(64 + 5);
  for (size_t i = 0; i < 6; ++i) {
    const float v = static_cast<float>(i) + 0.5f;
    std::memcpy(spec.segment_data.data() + 4 * i, &v, 4);
  }
  const uint8_t blob_bytes[5] = {9, 8, 7, 6, 5};
  std::memcpy(spec.segment_data.data() + 64, blob_bytes, 5);
  spec.segments = {{0, 24}, {64, 5}};
  return spec;
}

// Loads `bytes` and expects a refusal with `error` whose message contains `needle`.
void expect_refused(const Bytes& bytes, Error error, const std::string& needle) {
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  ASSERT_FALSE(map.ok()) << "expected a refusal mentioning '" << needle << "'";
  EXPECT_EQ(map.error(), error) << capture.message();
  EXPECT_NE(std::string(capture.message()).find(needle), std::string::npos)
      << "message: " << capture.message();
}

TEST(FlatTensorTest, ValidFileServesKeysDataAndLayouts) {
  const Bytes bytes = write_ptd(valid_spec());
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  ASSERT_TRUE(map.ok()) << to_string(map.error());
  EXPECT_EQ(map->header().length, 40u);
  EXPECT_EQ(map->header().flatbuffer_offset, kBlock);

  ASSERT_EQ(map->num_keys(), 2u);
  Result<const char*> k0 = map->key_at(0);
  Result<const char*> k1 = map->key_at(1);
  ASSERT_TRUE(k0.ok() && k1.ok());
  EXPECT_STREQ(*k0, "linear.weight");
  EXPECT_STREQ(*k1, "blob");
  {
    char buf[256];
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_EQ(map->key_at(2).error(), Error::InvalidArgument);
    EXPECT_NE(std::string(capture.message()).find("out of range"), std::string::npos);
  }

  Result<FreeableBuffer> w = map->get_data("linear.weight");
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->size(), 24u);
  const float* f = static_cast<const float*>(w->data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(f[i], static_cast<float>(i) + 0.5f);
  Result<FreeableBuffer> blob = map->get_data("blob");
  ASSERT_TRUE(blob.ok());
  ASSERT_EQ(blob->size(), 5u);
  EXPECT_EQ(std::memcmp(blob->data(), "\x09\x08\x07\x06\x05", 5), 0);

  Result<TensorLayout> layout = map->get_layout("linear.weight");
  ASSERT_TRUE(layout.ok()) << to_string(layout.error());
  EXPECT_EQ(layout->dtype, ScalarType::Float);
  ASSERT_EQ(layout->sizes.size(), 2u);
  EXPECT_EQ(layout->sizes[0], 2);
  EXPECT_EQ(layout->sizes[1], 3);
  ASSERT_EQ(layout->dim_order.size(), 2u);
  EXPECT_EQ(layout->dim_order[0], 0);
  EXPECT_EQ(layout->dim_order[1], 1);

  // Opaque blobs have no layout; unknown keys are NotFound without a message.
  char buf[256];
  ErrorCapture capture(buf, sizeof(buf));
  EXPECT_EQ(map->get_layout("blob").error(), Error::NotFound);
  EXPECT_EQ(map->get_data("missing").error(), Error::NotFound);
  EXPECT_EQ(map->get_layout("missing").error(), Error::NotFound);
  EXPECT_EQ(map->get_data("linear").error(), Error::NotFound);  // no prefix match
  EXPECT_TRUE(capture.empty()) << capture.message();
}

TEST(FlatTensorTest, ReadsThroughFileDataLoaderAndWritesFuzzSeed) {
  const Bytes bytes = write_ptd(valid_spec());
  // ETR_PTD_SEED_DIR (set by scripts/fuzz.sh) receives the file as a fuzz seed.
  const char* seed_dir = std::getenv("ETR_PTD_SEED_DIR");
  const std::string dir = seed_dir != nullptr ? seed_dir : ::testing::TempDir();
  const std::string path = dir + "/valid.ptd";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << "cannot write " << path;
  }
  Result<FileDataLoader> loader = FileDataLoader::from(path.c_str());
  ASSERT_TRUE(loader.ok());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&*loader);
  ASSERT_TRUE(map.ok()) << to_string(map.error());
  Result<FreeableBuffer> blob = map->get_data("blob");
  ASSERT_TRUE(blob.ok());
  EXPECT_EQ(std::memcmp(blob->data(), "\x09\x08\x07\x06\x05", 5), 0);
  // The map serves the runtime's interface (what MethodLoadOptions holds).
  const NamedDataMap& as_map = *map;
  EXPECT_EQ(as_map.num_keys(), 2u);
  EXPECT_TRUE(as_map.get_layout("linear.weight").ok());
}

TEST(FlatTensorTest, EveryTruncationIsRefused) {
  const Bytes bytes = write_ptd(valid_spec());
  for (size_t n = 0; n < bytes.size(); ++n) {
    char buf[512];
    ErrorCapture capture(buf, sizeof(buf));
    const Bytes cut = bytes.prefix(n);
    BufferDataLoader loader(cut.data(), cut.size());
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
    ASSERT_FALSE(map.ok()) << "truncated to " << n << " of " << bytes.size() << " bytes";
    EXPECT_EQ(map.error(), Error::InvalidExternalData) << n;
    EXPECT_FALSE(capture.empty()) << n;
  }
}

TEST(FlatTensorTest, NullLoaderAndMisalignedBytesAreRefused) {
  EXPECT_EQ(FlatTensorDataMap::load(nullptr).error(), Error::InvalidArgument);
  const Bytes bytes = write_ptd(valid_spec());
  Bytes shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  char buf[256];
  ErrorCapture capture(buf, sizeof(buf));
  BufferDataLoader loader(shifted.data() + 1, bytes.size());
  EXPECT_EQ(FlatTensorDataMap::load(&loader).error(), Error::InvalidArgument);
  EXPECT_NE(std::string(capture.message()).find("aligned"), std::string::npos);
}

TEST(FlatTensorTest, HeaderProblemsAreRefused) {
  const Bytes good = write_ptd(valid_spec());
  {
    Bytes b = good.prefix(good.size());
    put_u32(b.data() + 12, 32);
    expect_refused(b, Error::InvalidExternalData, "header length 32");
  }
  {
    Bytes b = good.prefix(good.size());
    std::memcpy(b.data() + 8, "FH02", 4);
    expect_refused(b, Error::InvalidExternalData, "'FH01'");
  }
  {
    Bytes b = good.prefix(good.size());
    std::memcpy(b.data() + 4, "ET12", 4);
    expect_refused(b, Error::InvalidExternalData, "'FT01'");
  }
  {
    // Segment data past the end of the file.
    Bytes b = good.prefix(good.size());
    put_u64(b.data() + 40, 1000);
    expect_refused(b, Error::InvalidExternalData, "segment data");
  }
  {
    // segment_base_offset + segment_data_size overflows.
    Bytes b = good.prefix(good.size());
    put_u64(b.data() + 32, UINT64_MAX - 8);
    put_u64(b.data() + 40, 64);
    expect_refused(b, Error::InvalidExternalData, "segment data");
  }
  {
    // flatbuffer_offset + flatbuffer_size overflows.
    Bytes b = good.prefix(good.size());
    put_u64(b.data() + 24, UINT64_MAX - 16);
    expect_refused(b, Error::InvalidExternalData, "flatbuffer region");
  }
  {
    // A block shorter than the header it holds.
    Bytes b = good.prefix(good.size());
    put_u64(b.data() + 16, 16);
    expect_refused(b, Error::InvalidExternalData, "flatbuffer region");
  }
  {
    // A root offset past the flatbuffer region.
    Bytes b = good.prefix(good.size());
    put_u32(b.data(), 0x7fffff00u);
    expect_refused(b, Error::InvalidExternalData, "root table offset");
  }
}

TEST(FlatTensorTest, SegmentIndexOutOfRangeIsRefused) {
  PtdSpec spec = valid_spec();
  spec.entries[1].segment = 5;
  expect_refused(write_ptd(spec), Error::InvalidExternalData,
                 "named_data[1] key 'blob': segment_index 5 is out of range (2 segments)");
}

TEST(FlatTensorTest, SegmentPastTheDataIsRefused) {
  PtdSpec spec = valid_spec();
  spec.segments[1] = {64, 6};  // one byte more than the data holds
  expect_refused(write_ptd(spec), Error::InvalidExternalData,
                 "key 'blob': segments[1] [offset 64, +6) lies outside the 69 bytes");
}

TEST(FlatTensorTest, SegmentOffsetPlusSizeOverflowIsRefused) {
  PtdSpec spec = valid_spec();
  spec.segments[0] = {UINT64_MAX - 3, 24};
  expect_refused(write_ptd(spec), Error::InvalidExternalData, "key 'linear.weight': segments[0]");
  spec.segments[0] = {8, UINT64_MAX};
  expect_refused(write_ptd(spec), Error::InvalidExternalData, "lies outside");
}

TEST(FlatTensorTest, MissingTablesAreRefused) {
  PtdSpec spec = valid_spec();
  spec.omit_named_data = true;
  expect_refused(write_ptd(spec), Error::InvalidExternalData, "no named_data");
  spec = valid_spec();
  spec.omit_segments = true;
  expect_refused(write_ptd(spec), Error::InvalidExternalData, "no segments");
}

// Loads `spec` (which must load) and expects get_layout(key) to fail with a
// message containing `needle`.
void expect_bad_layout(const PtdSpec& spec, const std::string& needle) {
  const Bytes bytes = write_ptd(spec);
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  ASSERT_TRUE(map.ok()) << to_string(map.error());
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  EXPECT_EQ(map->get_layout("linear.weight").error(), Error::InvalidExternalData);
  EXPECT_NE(std::string(capture.message()).find(needle), std::string::npos)
      << "message: " << capture.message();
  // The data itself stays reachable.
  EXPECT_TRUE(map->get_data("linear.weight").ok());
}

TEST(FlatTensorTest, MalformedLayoutsAreRefused) {
  PtdSpec spec = valid_spec();
  spec.entries[0].dtype = 99;
  expect_bad_layout(spec, "key 'linear.weight': tensor_layout has unknown scalar_type 99");
  spec = valid_spec();
  spec.entries[0].dtype = -1;
  expect_bad_layout(spec, "unknown scalar_type -1");
  spec = valid_spec();
  spec.entries[0].sizes = {2, -3};
  expect_bad_layout(spec, "sizes[1] is -3");
  spec = valid_spec();
  spec.entries[0].dim_order = {1, 1};
  expect_bad_layout(spec, "not a permutation");
  spec = valid_spec();
  spec.entries[0].dim_order = {0, 2};
  expect_bad_layout(spec, "not a permutation");
  spec = valid_spec();
  spec.entries[0].dim_order = {0};
  expect_bad_layout(spec, "1 dim_order entries for 2 sizes");
  spec = valid_spec();
  spec.entries[0].sizes = {2, 4};  // 32 bytes, the segment holds 24
  expect_bad_layout(spec, "needs 32 bytes but segment 0 holds 24");
  spec = valid_spec();
  spec.entries[0].sizes = {65536, 65536, 65536, 65536};
  spec.entries[0].dim_order = {0, 1, 2, 3};
  expect_bad_layout(spec, "overflows");
}

TEST(FlatTensorTest, ScalarLayoutAndEmptySegmentAreServed) {
  PtdSpec spec = valid_spec();
  spec.entries[0].sizes = {};
  spec.entries[0].dim_order = {};
  spec.segments[1] = {69, 0};
  const Bytes bytes = write_ptd(spec);
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  ASSERT_TRUE(map.ok()) << to_string(map.error());
  Result<TensorLayout> layout = map->get_layout("linear.weight");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->sizes.size(), 0u);
  Result<FreeableBuffer> empty = map->get_data("blob");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
}

// End to end: a program written here whose weight is EXTERNAL (no .pte with
// EXTERNAL constants exists in test/models yet) runs add.out(x, w) with w
// taken from a .ptd through MethodLoadOptions::external_data.
Bytes write_program_with_external_weight() {
  namespace fb = etr_fb;
  flatbuffers::FlatBufferBuilder b;
  const std::vector<int32_t> sizes = {3};
  const std::vector<uint8_t> order = {0};
  auto planned = [&](uint32_t offset) {
    auto alloc = fb::CreateAllocationDetails(b, 1, offset, 0);
    auto t = fb::CreateTensorDirect(b, fb::ScalarType::FLOAT, 0, &sizes, &order, false, 0, alloc);
    return fb::CreateEValue(b, fb::KernelTypes::Tensor, t.Union());
  };
  auto x = planned(0);
  auto info = fb::CreateExtraTensorInfoDirect(b, 0, "model.w", fb::TensorDataLocation::EXTERNAL);
  auto w_tensor = fb::CreateTensorDirect(b, fb::ScalarType::FLOAT, 0, &sizes, &order, false, 0, 0,
                                         0, fb::TensorShapeDynamism::STATIC, info);
  auto w = fb::CreateEValue(b, fb::KernelTypes::Tensor, w_tensor.Union());
  auto alpha = fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, 1).Union());
  auto out = planned(16);
  std::vector<flatbuffers::Offset<fb::EValue>> values = {x, w, alpha, out};
  std::vector<int32_t> inputs = {0};
  std::vector<int32_t> outputs = {3};
  std::vector<int32_t> args = {0, 1, 2, 3, 3};
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions = {fb::CreateInstruction(
      b, fb::InstructionArguments::KernelCall, fb::CreateKernelCallDirect(b, 0, &args).Union())};
  std::vector<flatbuffers::Offset<fb::Chain>> chains = {
      fb::CreateChainDirect(b, nullptr, nullptr, &instructions)};
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {
      fb::CreateOperatorDirect(b, "aten::add", "out")};
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  std::vector<int64_t> arenas = {0, 32};
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {fb::CreateExecutionPlanDirect(
      b, "forward", 0, &values, &inputs, &outputs, &chains, &ops, &delegates, &arenas)};
  std::vector<flatbuffers::Offset<fb::Buffer>> constants = {fb::CreateBufferDirect(b, nullptr)};
  fb::FinishProgramBuffer(b, fb::CreateProgramDirect(b, 0, &plans, &constants));
  Bytes bytes(b.GetSize());
  std::memcpy(bytes.data(), b.GetBufferPointer(), b.GetSize());
  return bytes;
}

PtdSpec weight_spec(const char* key) {
  PtdSpec spec;
  Entry e;
  e.key = key;
  e.has_layout = true;
  e.sizes = {3};
  e.dim_order = {0};
  spec.entries = {e};
  const float w[3] = {10.0f, 20.0f, 30.0f};
  spec.segment_data.resize(sizeof(w));
  std::memcpy(spec.segment_data.data(), w, sizeof(w));
  spec.segments = {{0, sizeof(w)}};
  return spec;
}

struct MethodRun {
  Error load = Error::Ok;
  Error execute = Error::Ok;
  std::vector<float> output;
  std::string message;
};

MethodRun run_with(const Bytes& program_bytes, Span<const NamedDataMap* const> maps) {
  (void)register_kernels(portable_kernel_library());  // AlreadyRegistered after the first call
  MethodRun r;
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  BufferDataLoader loader(program_bytes.data(), program_bytes.size());
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) {
    r.load = program.error();
    r.message = capture.message();
    return r;
  }
  std::vector<uint64_t> arena(4, 0);
  std::vector<uint64_t> pool(1 << 13, 0);
  Span<uint8_t> spans[1] = {{reinterpret_cast<uint8_t*>(arena.data()), 32}};
  HierarchicalAllocator planned(Span<Span<uint8_t>>(spans, 1));
  MemoryAllocator method_alloc(pool.data(), pool.size() * sizeof(uint64_t));
  MemoryManager mm(&method_alloc, &planned);
  MethodLoadOptions options;
  options.external_data = maps;
  Result<Method> m = program->load_method("forward", &mm, options);
  if (!m.ok()) {
    r.load = m.error();
    r.message = capture.message();
    return r;
  }
  const float ones[3] = {1.0f, 2.0f, 3.0f};
  float* x = static_cast<float*>(m->get_input(0).to_tensor().mutable_data());
  std::memcpy(x, ones, sizeof(ones));
  const Error set = m->set_input(m->get_input(0).to_tensor(), 0);
  if (set != Error::Ok) {
    r.execute = set;
    r.message = capture.message();
    return r;
  }
  r.execute = m->execute();
  if (r.execute == Error::Ok) {
    const float* o = static_cast<const float*>(m->get_output(0).to_tensor().const_data());
    r.output.assign(o, o + 3);
  }
  r.message = capture.message();
  return r;
}

TEST(FlatTensorMethodTest, ExternalWeightComesFromThePtd) {
  const Bytes program = write_program_with_external_weight();
  const Bytes ptd = write_ptd(weight_spec("model.w"));
  BufferDataLoader ptd_loader(ptd.data(), ptd.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&ptd_loader);
  ASSERT_TRUE(map.ok());
  const NamedDataMap* maps[] = {&*map};
  const MethodRun r = run_with(program, maps);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  ASSERT_EQ(r.execute, Error::Ok) << r.message;
  EXPECT_EQ(r.output, (std::vector<float>{11.0f, 22.0f, 33.0f}));
}

TEST(FlatTensorMethodTest, MissingPtdOrKeyFailsTheLoadWithTheKeyName) {
  const Bytes program = write_program_with_external_weight();
  const MethodRun none = run_with(program, {});
  EXPECT_EQ(none.load, Error::NotFound);
  EXPECT_NE(none.message.find("'model.w'"), std::string::npos) << none.message;

  const Bytes ptd = write_ptd(weight_spec("other.w"));
  BufferDataLoader ptd_loader(ptd.data(), ptd.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&ptd_loader);
  ASSERT_TRUE(map.ok());
  const NamedDataMap* maps[] = {&*map};
  const MethodRun wrong = run_with(program, maps);
  EXPECT_NE(wrong.load, Error::Ok);
  EXPECT_NE(wrong.message.find("'model.w'"), std::string::npos) << wrong.message;
}

// Format notes 4.9: a recorded layout must match the program's tensor
// exactly. Same bytes (12), but stored as [1, 3]: refused naming the key.
TEST(FlatTensorMethodTest, LayoutDifferentFromTheProgramIsRefused) {
  const Bytes program = write_program_with_external_weight();
  PtdSpec spec = weight_spec("model.w");
  spec.entries[0].sizes = {1, 3};
  spec.entries[0].dim_order = {0, 1};
  const Bytes ptd = write_ptd(spec);
  BufferDataLoader ptd_loader(ptd.data(), ptd.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&ptd_loader);
  ASSERT_TRUE(map.ok());
  const NamedDataMap* maps[] = {&*map};
  const MethodRun r = run_with(program, maps);
  EXPECT_EQ(r.load, Error::InvalidExternalData);
  EXPECT_NE(r.message.find("'model.w' is stored as Float with 2 dims"), std::string::npos)
      << r.message;
}

}  // namespace
}  // namespace etr
