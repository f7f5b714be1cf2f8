#include "runtime/executor/program.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/data_loader/file_data_loader.h"
#include "test/runtime/runtime_test_util.h"

namespace etr {
namespace {

using testing::AlignedBytes;
using testing::model_path;
using testing::read_aligned_file;

void put_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
void put_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

Error load_bytes(const AlignedBytes& bytes) {
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> p = Program::load(&loader);
  return p.ok() ? Error::Ok : p.error();
}

TEST(ProgramTest, LoadsEveryFixtureFromFileAndBuffer) {
  for (const char* name : testing::kFixtureFiles) {
    SCOPED_TRACE(name);
    Result<FileDataLoader> file = FileDataLoader::from(model_path(name).c_str());
    ASSERT_TRUE(file.ok());
    Result<Program> program = Program::load(&*file);
    ASSERT_TRUE(program.ok()) << to_string(program.error());
    EXPECT_GE(program->num_methods(), 1u);
    AlignedBytes bytes = read_aligned_file(model_path(name));
    EXPECT_EQ(load_bytes(bytes), Error::Ok);
  }
}

TEST(ProgramTest, ExtendedHeaderPresenceMatchesTheFiles) {
  AlignedBytes with = read_aligned_file(model_path("linear.pte"));
  BufferDataLoader l1(with.data(), with.size());
  Result<Program> p1 = Program::load(&l1);
  ASSERT_TRUE(p1.ok());
  EXPECT_TRUE(p1->has_extended_header());
  EXPECT_EQ(p1->extended_header().length, 32u);
  EXPECT_GT(p1->extended_header().segment_base_offset, 0u);

  AlignedBytes without = read_aligned_file(model_path("no_constants.pte"));
  BufferDataLoader l2(without.data(), without.size());
  Result<Program> p2 = Program::load(&l2);
  ASSERT_TRUE(p2.ok());
  EXPECT_FALSE(p2->has_extended_header());
}

TEST(ProgramTest, Accepts24ByteExtendedHeader) {
  AlignedBytes bytes = read_aligned_file(model_path("linear.pte"));
  put_u32(bytes.data() + 12, 24);  // old writers: no segment_data_size field
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> p = Program::load(&loader);
  ASSERT_TRUE(p.ok()) << to_string(p.error());
  EXPECT_EQ(p->extended_header().length, 24u);
  EXPECT_EQ(p->extended_header().segment_data_size, 0u);
}

TEST(ProgramTest, MethodNamesAndMeta) {
  AlignedBytes bytes = read_aligned_file(model_path("two_methods.pte"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> p = Program::load(&loader);
  ASSERT_TRUE(p.ok());
  bool saw_forward = false, saw_decode = false;
  for (size_t i = 0; i < p->num_methods(); ++i) {
    Result<const char*> n = p->get_method_name(i);
    ASSERT_TRUE(n.ok());
    saw_forward |= std::string(*n) == "forward";
    saw_decode |= std::string(*n) == "decode";
  }
  EXPECT_TRUE(saw_forward && saw_decode);
  EXPECT_EQ(p->get_method_name(99).error(), Error::InvalidArgument);
  EXPECT_EQ(p->method_meta("nope").error(), Error::NotFound);

  Result<MethodMeta> meta = p->method_meta("decode");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), 2u);
  EXPECT_EQ(meta->num_outputs(), 2u);
  Result<TensorInfo> in0 = meta->input_tensor_meta(0);
  ASSERT_TRUE(in0.ok());
  EXPECT_EQ(in0->dtype, ScalarType::Float);
  EXPECT_TRUE(in0->is_memory_planned);
  EXPECT_EQ(meta->input_tensor_meta(5).error(), Error::InvalidArgument);

  Result<MethodMeta> getter = p->method_meta("get_name");
  ASSERT_TRUE(getter.ok());
  EXPECT_EQ(getter->num_inputs(), 0u);
  EXPECT_EQ(*getter->output_tag(0), Tag::String);
  EXPECT_EQ(getter->output_tensor_meta(0).error(), Error::InvalidArgument);
}

TEST(ProgramTest, DelegatedMethodNamesItsBackend) {
  AlignedBytes bytes = read_aligned_file(model_path("add_xnnpack.pte"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> p = Program::load(&loader);
  ASSERT_TRUE(p.ok());
  Result<MethodMeta> meta = p->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  ASSERT_GE(meta->num_backends(), 1u);
  EXPECT_STREQ(*meta->get_backend_name(0), "XnnpackBackend");
  EXPECT_TRUE(meta->uses_backend("XnnpackBackend"));
  EXPECT_FALSE(meta->uses_backend("VulkanBackend"));
}

// ModuleStateful.pte keeps its mutable buffer's name "state" (an int32 [1]
// left out of memory planning; test/models/export_official_module.py): it is
// the method's one attribute tensor. Inputs and outputs carry no name.
TEST(ProgramTest, AttributeTensorsAreTheNamedTensors) {
  AlignedBytes bytes = read_aligned_file(model_path("official_module/ModuleStateful.pte"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> p = Program::load(&loader);
  ASSERT_TRUE(p.ok());
  Result<MethodMeta> meta = p->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->num_attributes(), 1u);
  Result<TensorInfo> state = meta->attribute_tensor_meta(0);
  ASSERT_TRUE(state.ok());
  ASSERT_NE(state->name, nullptr);
  EXPECT_EQ(std::string(state->name, state->name_size), "state");
  EXPECT_EQ(state->dtype, ScalarType::Int);
  ASSERT_EQ(state->sizes.size(), 1u);
  EXPECT_EQ(state->sizes[0], 1);
  EXPECT_EQ(state->nbytes, 4u);
  EXPECT_FALSE(state->is_memory_planned);
  EXPECT_EQ(meta->attribute_tensor_meta(1).error(), Error::InvalidArgument);
  Result<TensorInfo> input = meta->input_tensor_meta(0);
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(input->name, nullptr);

  // A program without named tensors has no attributes.
  AlignedBytes linear = read_aligned_file(model_path("linear.pte"));
  BufferDataLoader linear_loader(linear.data(), linear.size());
  Result<Program> lp = Program::load(&linear_loader);
  ASSERT_TRUE(lp.ok());
  EXPECT_EQ(lp->method_meta("forward")->num_attributes(), 0u);
  EXPECT_EQ(lp->method_meta("forward")->attribute_tensor_meta(0).error(), Error::InvalidArgument);
}

TEST(ProgramTest, RejectsTruncatedFiles) {
  const AlignedBytes full = read_aligned_file(model_path("linear.pte"));
  const size_t cuts[] = {0, 3, 7, 8, 12, 40, 100, full.size() / 2, full.size() - 1};
  for (size_t cut : cuts) {
    SCOPED_TRACE(cut);
    AlignedBytes bytes = read_aligned_file(model_path("linear.pte"));
    bytes.truncate(cut);
    EXPECT_NE(load_bytes(bytes), Error::Ok);
  }
}

TEST(ProgramTest, RejectsBadIdentifierAndVersion) {
  AlignedBytes bytes = read_aligned_file(model_path("linear.pte"));
  std::memcpy(bytes.data() + 4, "XX12", 4);
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);
  std::memcpy(bytes.data() + 4, "ET99", 4);
  EXPECT_EQ(load_bytes(bytes), Error::NotSupported);
}

TEST(ProgramTest, RejectsMalformedExtendedHeader) {
  AlignedBytes bytes = read_aligned_file(model_path("linear.pte"));
  put_u32(bytes.data() + 12, 16);  // below the minimum length
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);

  bytes = read_aligned_file(model_path("linear.pte"));
  put_u64(bytes.data() + 16, bytes.size() + 1);  // program larger than the file
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);

  bytes = read_aligned_file(model_path("linear.pte"));
  put_u64(bytes.data() + 24, bytes.size() - 1);  // segments start too late to fit
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);

  bytes = read_aligned_file(model_path("linear.pte"));
  put_u64(bytes.data() + 32, UINT64_MAX - 8);  // segment data size overflows
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);
}

TEST(ProgramTest, RejectsCorruptRootOffset) {
  AlignedBytes bytes = read_aligned_file(model_path("no_constants.pte"));
  put_u32(bytes.data(), static_cast<uint32_t>(bytes.size() + 100));
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);
  put_u32(bytes.data(), 2);
  EXPECT_EQ(load_bytes(bytes), Error::InvalidProgram);
}

TEST(ProgramTest, RejectsMisalignedBuffer) {
  AlignedBytes bytes = read_aligned_file(model_path("no_constants.pte"));
  AlignedBytes shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  BufferDataLoader loader(shifted.data() + 1, bytes.size());
  EXPECT_EQ(Program::load(&loader).error(), Error::InvalidArgument);
}

TEST(ProgramTest, MissingFileIsAccessFailed) {
  Result<FileDataLoader> file = FileDataLoader::from("/nonexistent/model.pte");
  EXPECT_EQ(file.error(), Error::AccessFailed);
  EXPECT_EQ(Program::load(nullptr).error(), Error::InvalidArgument);
}

}  // namespace
}  // namespace etr

namespace etr {
namespace {

TEST(ProgramTest, NamedDataInsideThePte) {
  testing::AlignedBytes bytes = testing::read_aligned_file(testing::model_path("add_xnnpack.pte"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> p = Program::load(&loader);
  ASSERT_TRUE(p.ok());
  const NamedDataMap& named = p->named_data();
  ASSERT_GT(named.num_keys(), 0u);  // XNNPACK weights, keyed by SHA-256 hex
  Result<const char*> key = named.key_at(0);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(std::strlen(*key), 64u);
  Result<FreeableBuffer> data = named.get_data(*key);
  ASSERT_TRUE(data.ok());
  EXPECT_GT(data->size(), 0u);
  EXPECT_EQ(named.get_data("no-such-key").error(), Error::NotFound);
  EXPECT_EQ(named.key_at(named.num_keys()).error(), Error::InvalidArgument);
  // The map must stay usable after the Program is moved.
  Program moved(std::move(*p));
  EXPECT_TRUE(moved.named_data().get_data(*key).ok());
}

}  // namespace
}  // namespace etr
