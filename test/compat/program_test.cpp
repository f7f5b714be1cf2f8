// The official Program below its public calls (extension/compat), as code
// written against the official SDK reaches it: the private members that
// upstream's tests open with a ProgramTestFriend (segments, mutable data,
// inline delegate data, the flatbuffer root, a Program built from parts),
// programs built with the installed generated schema header
// (executorch/schema/program_generated.h), the program's own named data and
// the output-flattening encoding; and .ptd files read through
// flat_tensor_generated.h. Values are those the fixtures were made with
// (test/models/export_official_module.py).
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/flat_tensor/serialize/flat_tensor_generated.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/schema/program_generated.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using executorch::extension::BufferDataLoader;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::extension::make_tensor_ptr;
using executorch::extension::Module;
using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Program;
using executorch::runtime::Result;

namespace executorch {
namespace runtime {
namespace testing {

// The official extension point for tests: a friend of Program.
class ProgramTestFriend final {
 public:
  static Result<FreeableBuffer> load_segment(const Program& p, DataLoader::SegmentInfo info) {
    return p.LoadSegment(info);
  }
  static Error load_mutable(const Program& p, size_t group, size_t offset_index, size_t size,
                            void* out) {
    return p.load_mutable_subsegment_into(group, offset_index, size, out);
  }
  static const executorch_flatbuffer::Program* root(const Program& p) {
    return p.internal_program_;
  }
  static Error delegate_data(const Program& p, size_t index, const void** data, size_t* size) {
    return p.get_backend_delegate_data(index, data, size);
  }
  static Program from_parts(DataLoader* loader, size_t segment_base_offset,
                            const executorch_flatbuffer::Program* root) {
    return Program(loader, segment_base_offset, FreeableBuffer{}, root, FreeableBuffer{},
                   std::nullopt);
  }
};

}  // namespace testing
}  // namespace runtime
}  // namespace executorch

// get_output_flattening_encoding is deprecated in the official API; it is
// tested here all the same.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using executorch::runtime::testing::ProgramTestFriend;
namespace fb = executorch_flatbuffer;

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/";
const std::string kOfficial = kDir + "official_module/";

// The fixtures' nn.Linear(3, 3): weight[i][j] = (3i + j) / 8, bias (0.5, -0.25, 1).
std::vector<float> known_weight() {
  std::vector<float> w;
  for (int k = 0; k < 9; ++k) w.push_back(static_cast<float>(k) / 8.f);
  return w;
}
const std::vector<float> kKnownBias = {0.5f, -0.25f, 1.f};

std::vector<float> floats_of(const void* data, size_t count) {
  std::vector<float> out(count);
  std::memcpy(out.data(), data, count * sizeof(float));
  return out;
}

// A finished flatbuffer copied to a 16-byte-aligned buffer (Program::load's
// requirement), with a loader over it.
struct BuiltProgram {
  alignas(16) uint8_t bytes[2048];
  size_t size = 0;
  explicit BuiltProgram(const flatbuffers::FlatBufferBuilder& builder) {
    size = builder.GetSize();
    EXPECT_LE(size, sizeof(bytes));
    std::memcpy(bytes, builder.GetBufferPointer(), size);
  }
};

// A plan with empty tables and one non-constant buffer size; `name` and
// `meta` may be 0.
flatbuffers::Offset<fb::ExecutionPlan> empty_plan(flatbuffers::FlatBufferBuilder& b,
                                                  flatbuffers::Offset<flatbuffers::String> name,
                                                  flatbuffers::Offset<fb::ContainerMetadata> meta) {
  return fb::CreateExecutionPlan(
      b, name, meta, b.CreateVector(std::vector<flatbuffers::Offset<fb::EValue>>{}),
      b.CreateVector(std::vector<int32_t>{}), b.CreateVector(std::vector<int32_t>{}),
      b.CreateVector(std::vector<flatbuffers::Offset<fb::Chain>>{}),
      b.CreateVector(std::vector<flatbuffers::Offset<fb::Operator>>{}),
      b.CreateVector(std::vector<flatbuffers::Offset<fb::BackendDelegate>>{}),
      b.CreateVector(std::vector<int64_t>{0}));
}

class CompatProgramTest : public ::testing::Test {
 protected:
  void SetUp() override { executorch::runtime::runtime_init(); }
};

// ModuleSimpleTrain keeps its linear's weight and bias in a mutable data
// segment (segment 1, offsets {0, 0, 36}).
TEST_F(CompatProgramTest, MutableDataSegmentHoldsTheInitialWeights) {
  auto loader = FileDataLoader::from((kOfficial + "ModuleSimpleTrain.pte").c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  Result<Program> program = Program::load(&*loader);
  ASSERT_EQ(program.error(), Error::Ok);

  const fb::Program* root = ProgramTestFriend::root(*program);
  ASSERT_NE(root, nullptr);
  ASSERT_NE(root->mutable_data_segments(), nullptr);
  ASSERT_EQ(root->mutable_data_segments()->size(), 1u);
  const fb::SubsegmentOffsets* group = root->mutable_data_segments()->Get(0);
  EXPECT_EQ(group->segment_index(), 1u);
  ASSERT_EQ(group->offsets()->size(), 3u);
  EXPECT_EQ(group->offsets()->Get(2), 36u);

  float weight[9] = {};
  ASSERT_EQ(ProgramTestFriend::load_mutable(*program, 0, 1, sizeof(weight), weight), Error::Ok);
  EXPECT_EQ(std::vector<float>(weight, weight + 9), known_weight());
  float bias[3] = {};
  ASSERT_EQ(ProgramTestFriend::load_mutable(*program, 0, 2, sizeof(bias), bias), Error::Ok);
  EXPECT_EQ(std::vector<float>(bias, bias + 3), kKnownBias);

  // Past the 48-byte segment, past the offsets, past the groups.
  EXPECT_EQ(ProgramTestFriend::load_mutable(*program, 0, 2, sizeof(bias) + 1, bias),
            Error::InvalidArgument);
  EXPECT_EQ(ProgramTestFriend::load_mutable(*program, 0, 3, 4, bias), Error::NotFound);
  EXPECT_EQ(ProgramTestFriend::load_mutable(*program, 1, 1, 4, bias), Error::NotFound);

  // The whole segment through LoadSegment: the same bytes.
  Result<FreeableBuffer> segment = ProgramTestFriend::load_segment(
      *program, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Mutable, 1));
  ASSERT_EQ(segment.error(), Error::Ok);
  ASSERT_EQ(segment->size(), 48u);
  EXPECT_EQ(floats_of(segment->data(), 9), known_weight());
  EXPECT_EQ(floats_of(static_cast<const uint8_t*>(segment->data()) + 36, 3), kKnownBias);
  EXPECT_EQ(ProgramTestFriend::load_segment(
                *program, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Mutable, 2))
                .error(),
            Error::NotFound);
}

// A program without an extended header has no segment data to load.
TEST_F(CompatProgramTest, ProgramWithoutSegmentDataHasNoSegments) {
  auto loader = FileDataLoader::from((kOfficial + "ModuleAdd.pte").c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  Result<Program> program = Program::load(&*loader);
  ASSERT_EQ(program.error(), Error::Ok);
  EXPECT_EQ(ProgramTestFriend::load_segment(
                *program, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Constant, 0))
                .error(),
            Error::NotFound);
  uint8_t out[4];
  EXPECT_EQ(ProgramTestFriend::load_mutable(*program, 0, 0, 4, out), Error::NotFound);
  EXPECT_EQ(program->get_named_data_map().error(), Error::NotFound);
}

// Constants in the deprecated Program.constant_buffer: read directly, checked
// against the request, and used by the method: forward((1, 2, 3)) =
// weight @ x + bias = (1.5, 3, 6.5).
TEST_F(CompatProgramTest, DeprecatedConstantBufferIsReadAndRun) {
  const std::string path = kOfficial + "ModuleLinearConstantBuffer.pte";
  auto loader = FileDataLoader::from(path.c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  Result<Program> program = Program::load(&*loader);
  ASSERT_EQ(program.error(), Error::Ok);
  const fb::Program* root = ProgramTestFriend::root(*program);
  EXPECT_EQ(root->segments()->size(), 0u);
  ASSERT_EQ(root->constant_buffer()->size(), 3u);

  Result<const void*> weight = program->get_constant_buffer_data(1, 36);
  ASSERT_EQ(weight.error(), Error::Ok);
  EXPECT_EQ(floats_of(*weight, 9), known_weight());
  Result<const void*> bias = program->get_constant_buffer_data(2, 12);
  ASSERT_EQ(bias.error(), Error::Ok);
  EXPECT_EQ(floats_of(*bias, 3), kKnownBias);
  EXPECT_EQ(program->get_constant_buffer_data(2, 13).error(), Error::InvalidArgument);
  EXPECT_EQ(program->get_constant_buffer_data(1, SIZE_MAX).error(), Error::InvalidArgument);
  EXPECT_EQ(program->get_constant_buffer_data(3, 4).error(), Error::InvalidArgument);

  Module module(path);
  auto out = module.forward(make_tensor_ptr({3}, std::vector<float>{1.f, 2.f, 3.f}));
  ASSERT_EQ(out.error(), Error::Ok);
  const auto& y = (*out)[0].toTensor();
  ASSERT_EQ(y.numel(), 3);
  const float want[3] = {1.5f, 3.f, 6.5f};
  for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(y.const_data_ptr<float>()[i], want[i]) << i;
}

// Constants in the constant segment (ModuleAddMulOneFile: a = 3, b = 2).
TEST_F(CompatProgramTest, ConstantSegmentIsLoadedBySegmentIndex) {
  auto loader = FileDataLoader::from((kOfficial + "ModuleAddMulOneFile.pte").c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  Result<Program> program = Program::load(&*loader);
  ASSERT_EQ(program.error(), Error::Ok);
  const fb::Program* root = ProgramTestFriend::root(*program);
  ASSERT_EQ(root->segments()->size(), 1u);
  ASSERT_EQ(root->constant_segment()->offsets()->size(), 3u);
  Result<FreeableBuffer> segment = ProgramTestFriend::load_segment(
      *program, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Constant, 0));
  ASSERT_EQ(segment.error(), Error::Ok);
  const uint64_t b_at = root->constant_segment()->offsets()->Get(2);
  ASSERT_LE(b_at + 16, segment->size());
  EXPECT_EQ(floats_of(segment->data(), 4), std::vector<float>(4, 3.f));
  EXPECT_EQ(floats_of(static_cast<const uint8_t*>(segment->data()) + b_at, 4),
            std::vector<float>(4, 2.f));
  Result<const void*> b = program->get_constant_buffer_data(2, 16);
  ASSERT_EQ(b.error(), Error::Ok);
  EXPECT_EQ(floats_of(*b, 4), std::vector<float>(4, 2.f));
}

// An XNNPACK program keeps its weights as named data in its own segments:
// the map serves each key's segment.
TEST_F(CompatProgramTest, NamedDataMapServesTheProgramsSegments) {
  auto loader = FileDataLoader::from((kDir + "add_xnnpack.pte").c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  Result<Program> program = Program::load(&*loader);
  ASSERT_EQ(program.error(), Error::Ok);
  Result<const NamedDataMap*> map = program->get_named_data_map();
  ASSERT_EQ(map.error(), Error::Ok);
  const fb::Program* root = ProgramTestFriend::root(*program);
  ASSERT_NE(root->named_data(), nullptr);
  ASSERT_EQ((*map)->get_num_keys().get(), root->named_data()->size());
  for (uint32_t i = 0; i < root->named_data()->size(); ++i) {
    const fb::NamedData* entry = root->named_data()->Get(i);
    Result<const char*> key = (*map)->get_key(i);
    ASSERT_EQ(key.error(), Error::Ok);
    EXPECT_STREQ(*key, entry->key()->c_str());
    Result<FreeableBuffer> data = (*map)->get_data(*key);
    ASSERT_EQ(data.error(), Error::Ok);
    Result<FreeableBuffer> segment = ProgramTestFriend::load_segment(
        *program,
        DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Constant, entry->segment_index()));
    ASSERT_EQ(segment.error(), Error::Ok);
    ASSERT_EQ(data->size(), segment->size()) << *key;
    EXPECT_EQ(std::memcmp(data->data(), segment->data(), data->size()), 0) << *key;
  }
  EXPECT_EQ((*map)->get_data("no such key").error(), Error::NotFound);
}

// Programs built with the generated schema header: the output encoding, inline
// delegate data, a program without methods and a plan without a name.
TEST_F(CompatProgramTest, BuiltProgramsAnswerWithTheOfficialCodes) {
  flatbuffers::FlatBufferBuilder b(1024);
  auto meta = fb::CreateContainerMetadata(b, b.CreateString("in_spec"), b.CreateString("out_spec"));
  auto plan = empty_plan(b, b.CreateString("forward"), meta);
  auto blob = fb::CreateBackendDelegateInlineData(b, b.CreateVector(std::vector<uint8_t>{1, 2, 3}));
  b.Finish(
      fb::CreateProgram(
          b, 0, b.CreateVector(std::vector<flatbuffers::Offset<fb::ExecutionPlan>>{plan}),
          b.CreateVector(std::vector<flatbuffers::Offset<fb::Buffer>>{}),
          b.CreateVector(std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>>{blob}),
          b.CreateVector(std::vector<flatbuffers::Offset<fb::DataSegment>>{}),
          fb::CreateSubsegmentOffsets(b, 0, b.CreateVector(std::vector<uint64_t>{0}))),
      fb::ProgramIdentifier());
  BuiltProgram built(b);
  BufferDataLoader loader(built.bytes, built.size);
  Result<Program> program = Program::load(&loader);
  ASSERT_EQ(program.error(), Error::Ok);
  ASSERT_EQ(program->num_methods(), 1u);
  EXPECT_STREQ(program->get_method_name(0).get(), "forward");
  Result<const char*> encoding = program->get_output_flattening_encoding("forward");
  ASSERT_EQ(encoding.error(), Error::Ok);
  EXPECT_STREQ(*encoding, "out_spec");
  EXPECT_EQ(program->get_output_flattening_encoding("other").error(), Error::InvalidArgument);
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(ProgramTestFriend::delegate_data(*program, 0, &data, &size), Error::Ok);
  ASSERT_EQ(size, 3u);
  EXPECT_EQ(static_cast<const uint8_t*>(data)[2], 3);
  EXPECT_EQ(ProgramTestFriend::delegate_data(*program, 1, &data, &size), Error::NotFound);

  // No execution_plan table: a program with no methods.
  flatbuffers::FlatBufferBuilder none(256);
  none.Finish(fb::CreateProgram(none), fb::ProgramIdentifier());
  BuiltProgram no_plans(none);
  BufferDataLoader no_plans_loader(no_plans.bytes, no_plans.size);
  Result<Program> empty = Program::load(&no_plans_loader);
  ASSERT_EQ(empty.error(), Error::Ok);
  EXPECT_EQ(empty->num_methods(), 0u);
  EXPECT_EQ(empty->get_method_name(0).error(), Error::InvalidArgument);
  EXPECT_EQ(empty->method_meta("forward").error(), Error::InvalidArgument);
  EXPECT_EQ(ProgramTestFriend::delegate_data(*empty, 0, &data, &size), Error::InvalidProgram);

  // A plan without a name is listed but cannot be found by name.
  flatbuffers::FlatBufferBuilder nameless(512);
  auto unnamed = empty_plan(nameless, 0, 0);
  nameless.Finish(
      fb::CreateProgram(
          nameless, 0,
          nameless.CreateVector(std::vector<flatbuffers::Offset<fb::ExecutionPlan>>{unnamed})),
      fb::ProgramIdentifier());
  BuiltProgram no_name(nameless);
  BufferDataLoader no_name_loader(no_name.bytes, no_name.size);
  Result<Program> anonymous = Program::load(&no_name_loader);
  ASSERT_EQ(anonymous.error(), Error::Ok);
  EXPECT_EQ(anonymous->num_methods(), 1u);
  EXPECT_EQ(anonymous->get_method_name(0).error(), Error::InvalidProgram);
  EXPECT_EQ(anonymous->method_meta("forward").error(), Error::InvalidArgument);
  EXPECT_EQ(anonymous->get_output_flattening_encoding("forward").error(), Error::InvalidArgument);
}

// A Program built from parts reads its segments from the loader it was given.
TEST_F(CompatProgramTest, ProgramFromPartsReadsSegmentsFromItsLoader) {
  flatbuffers::FlatBufferBuilder b(256);
  auto segments = b.CreateVector(std::vector<flatbuffers::Offset<fb::DataSegment>>{
      fb::CreateDataSegment(b, 0, 4), fb::CreateDataSegment(b, 4, 4)});
  b.Finish(fb::CreateProgram(b, 0, 0, 0, 0, segments), fb::ProgramIdentifier());
  const fb::Program* root = fb::GetProgram(b.GetBufferPointer());
  // 16 bytes before the segment data, then segments 0 and 1.
  uint8_t file[24] = {};
  for (int i = 0; i < 8; ++i) file[16 + i] = static_cast<uint8_t>(10 + i);
  BufferDataLoader loader(file, sizeof(file));

  Program program = ProgramTestFriend::from_parts(&loader, 16, root);
  EXPECT_EQ(ProgramTestFriend::root(program), root);
  EXPECT_EQ(program.num_methods(), 0u);
  Result<FreeableBuffer> second = ProgramTestFriend::load_segment(
      program, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, 1, "b"));
  ASSERT_EQ(second.error(), Error::Ok);
  ASSERT_EQ(second->size(), 4u);
  EXPECT_EQ(static_cast<const uint8_t*>(second->data())[0], 14);
  EXPECT_EQ(ProgramTestFriend::load_segment(
                program, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, 2, "b"))
                .error(),
            Error::NotFound);

  // Segment base 0: the loader is not kept, there is nothing to load.
  Program no_base = ProgramTestFriend::from_parts(&loader, 0, root);
  EXPECT_EQ(ProgramTestFriend::load_segment(
                no_base, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, 0, "b"))
                .error(),
            Error::NotFound);

  // A segment base without a segments table.
  flatbuffers::FlatBufferBuilder bare(64);
  bare.Finish(fb::CreateProgram(bare), fb::ProgramIdentifier());
  Program no_table =
      ProgramTestFriend::from_parts(&loader, 16, fb::GetProgram(bare.GetBufferPointer()));
  EXPECT_EQ(ProgramTestFriend::load_segment(
                no_table, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, 0, "b"))
                .error(),
            Error::InvalidProgram);

  // Without a flatbuffer, every call reports InvalidState.
  Program nothing = ProgramTestFriend::from_parts(&loader, 16, nullptr);
  EXPECT_EQ(nothing.num_methods(), 0u);
  EXPECT_EQ(nothing.method_meta("forward").error(), Error::InvalidState);
  EXPECT_EQ(ProgramTestFriend::load_segment(
                nothing, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, 0, "b"))
                .error(),
            Error::InvalidState);
}

// ModuleAddMul.ptd read through flat_tensor_generated.h (the root table sits
// at the start of the file, the FH01 header inside its first bytes) and
// through FlatTensorDataMap: a = 3 and b = 2, Float [2, 2].
TEST_F(CompatProgramTest, PtdReadsThroughTheGeneratedFlatTensorHeader) {
  const std::string path = kOfficial + "ModuleAddMul.ptd";
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 64u);
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  ASSERT_TRUE(flat_tensor_flatbuffer::FlatTensorBufferHasIdentifier(aligned.data()));
  const flat_tensor_flatbuffer::FlatTensor* root =
      flat_tensor_flatbuffer::GetFlatTensor(aligned.data());
  ASSERT_NE(root->named_data(), nullptr);
  ASSERT_EQ(root->named_data()->size(), 2u);

  auto file = FileDataLoader::from(path.c_str());
  ASSERT_EQ(file.error(), Error::Ok);
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&*file);
  ASSERT_EQ(map.error(), Error::Ok);
  const float want[2] = {3.f, 2.f};
  for (uint32_t i = 0; i < 2; ++i) {
    const flat_tensor_flatbuffer::NamedData* entry = root->named_data()->Get(i);
    EXPECT_STREQ(entry->key()->c_str(), i == 0 ? "a" : "b");
    ASSERT_NE(entry->tensor_layout(), nullptr);
    EXPECT_EQ(entry->tensor_layout()->scalar_type(), executorch_flatbuffer::ScalarType::FLOAT);
    ASSERT_EQ(entry->tensor_layout()->sizes()->size(), 2u);
    EXPECT_EQ(entry->tensor_layout()->sizes()->Get(0), 2);
    EXPECT_STREQ(map->get_key(i).get(), entry->key()->c_str());
    float values[4] = {};
    ASSERT_EQ(map->load_data_into(entry->key()->c_str(), values, sizeof(values)), Error::Ok);
    for (float v : values) EXPECT_EQ(v, want[i]) << entry->key()->c_str();
  }
}

}  // namespace
