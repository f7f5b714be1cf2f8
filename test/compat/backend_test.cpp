// An official BackendInterface registered with register_backend, on the
// programs whose forward is one call of a backend named "StubBackend"
// (test/models/official_module/ModuleAddMulDelegated*.pte, made by
// test/models/export_official_delegated.py; payload b"StubBackend:data"):
// the processed buffer the backend keeps stays valid until its delegate is
// destroyed and is then given back to the data loader, a buffer the backend
// frees goes back at once, and the loader is told which segment and backend
// a load is for. Also: a tensor without data for a memory-planned input
// (upstream accepts it and keeps the planned bytes).
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FileDataLoader;
using executorch::runtime::ArrayRef;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DataLoader;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/official_module/";
const char kPayload[] = "StubBackend:data";  // what the exporter's backend emits

// What the backend saw; reset by each test.
struct Seen {
  bool free_in_init = false;
  std::string payload_at_execute;
  const void* payload_data = nullptr;
  DelegateHandle* handle = nullptr;  // what init returned
  DelegateHandle* destroyed = nullptr;
  std::vector<std::string> spec_keys;
};
Seen seen;

// Keeps the processed buffer as its handle unless told to free it in init.
class RecordingBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> specs) const override {
    for (const CompileSpec& s : specs) seen.spec_keys.push_back(s.key);
    seen.payload_data = processed->data();
    if (seen.free_in_init) {
      processed->Free();
      return nullptr;
    }
    seen.handle = processed;
    return processed;
  }
  Error execute(BackendExecutionContext&, DelegateHandle* handle, Span<EValue*>) const override {
    auto* processed = static_cast<FreeableBuffer*>(handle);
    seen.payload_at_execute.assign(static_cast<const char*>(processed->data()), processed->size());
    return Error::Ok;
  }
  void destroy(DelegateHandle* handle) const override { seen.destroyed = handle; }
};

RecordingBackend backend;

// A loader over a FileDataLoader that records its loads and the frees of
// the buffers it gave out.
class SpyLoader final : public DataLoader {
 public:
  struct Load {
    SegmentInfo info;
    std::string descriptor;
    const void* data;
  };
  explicit SpyLoader(DataLoader* inner) : inner_(inner) {}
  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override {
    Result<FreeableBuffer> buffer = inner_->load(offset, size, info);
    if (!buffer.ok()) return buffer.error();
    auto* box = new Box{this, std::move(*buffer)};
    loads_.push_back({info, info.descriptor == nullptr ? "" : info.descriptor, box->buffer.data()});
    return FreeableBuffer(box->buffer.data(), box->buffer.size(), &SpyLoader::free_box, box);
  }
  Result<size_t> size() const override { return inner_->size(); }
  const std::vector<Load>& loads() const { return loads_; }
  bool freed(const void* data) const {
    for (const void* p : freed_)
      if (p == data) return true;
    return false;
  }

 private:
  struct Box {
    const SpyLoader* owner;
    FreeableBuffer buffer;
  };
  static void free_box(void* context, void* data, size_t) {
    auto* box = static_cast<Box*>(context);
    box->owner->freed_.push_back(data);
    delete box;
  }
  DataLoader* inner_;
  mutable std::vector<Load> loads_;
  mutable std::vector<const void*> freed_;
};

// The memory a method of `program` needs.
struct Memory {
  explicit Memory(Program& program) {
    auto meta = program.method_meta("forward");
    EXPECT_TRUE(meta.ok());
    for (size_t i = 0; meta.ok() && i < meta->num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(*meta->memory_planned_buffer_size(i));
      spans.emplace_back(buffers.back().data(), buffers.back().size());
    }
    planned =
        std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans.data(), spans.size()));
    arena.resize(64 * 1024);
    allocator = std::make_unique<MemoryAllocator>(arena.size(), arena.data());
    manager = std::make_unique<MemoryManager>(allocator.get(), planned.get());
  }
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned;
  std::vector<uint8_t> arena;
  std::unique_ptr<MemoryAllocator> allocator;
  std::unique_ptr<MemoryManager> manager;
};

// Sets forward's three Float [2, 2] inputs and runs it.
Error run(Method& method) {
  static float values[4] = {1.f, 2.f, 3.f, 4.f};
  static int32_t sizes[2] = {2, 2};
  static uint8_t dim_order[2] = {0, 1};
  static int32_t strides[2] = {2, 1};
  TensorImpl impl(ScalarType::Float, 2, sizes, values, dim_order, strides);
  for (size_t i = 0; i < 3; ++i) {
    const Error err = method.set_input(EValue(Tensor(&impl)), i);
    if (err != Error::Ok) return err;
  }
  return method.execute();
}

class CompatBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    executorch::runtime::runtime_init();
    ASSERT_EQ(executorch::runtime::register_backend({"StubBackend", &backend}), Error::Ok);
  }
  void SetUp() override { seen = Seen(); }
};

TEST_F(CompatBackendTest, KeptPayloadLivesUntilDestroyThenGoesBackToTheLoader) {
  auto file = FileDataLoader::from((kDir + "ModuleAddMulDelegated.pte").c_str());
  ASSERT_EQ(file.error(), Error::Ok);
  SpyLoader spy(&*file);
  auto program = Program::load(&spy);
  ASSERT_EQ(program.error(), Error::Ok);
  {
    Memory memory(*program);
    Result<Method> method = program->load_method("forward", memory.manager.get());
    ASSERT_EQ(method.error(), Error::Ok);
    ASSERT_NE(seen.payload_data, nullptr);
    EXPECT_EQ(seen.spec_keys, std::vector<std::string>{"external_constants"});
    EXPECT_FALSE(spy.freed(seen.payload_data));
    // The backend's segment load named the backend and the segment (index 1
    // in this file's segments table; 0 is the empty constant segment).
    bool backend_load = false;
    for (const SpyLoader::Load& l : spy.loads()) {
      if (l.info.segment_type != DataLoader::SegmentInfo::Type::Backend) continue;
      backend_load = true;
      EXPECT_EQ(l.descriptor, "StubBackend");
      EXPECT_EQ(l.info.segment_index, 1u);
      EXPECT_EQ(l.data, seen.payload_data);
    }
    EXPECT_TRUE(backend_load);
    EXPECT_EQ(run(*method), Error::Ok);
    EXPECT_EQ(seen.payload_at_execute, kPayload);
    EXPECT_FALSE(spy.freed(seen.payload_data));
    EXPECT_EQ(seen.destroyed, nullptr);
  }
  ASSERT_NE(seen.handle, nullptr);
  EXPECT_EQ(seen.destroyed, seen.handle);
  EXPECT_TRUE(spy.freed(seen.payload_data));
}

TEST_F(CompatBackendTest, PayloadFreedInInitGoesBackAtOnce) {
  seen.free_in_init = true;
  auto file = FileDataLoader::from((kDir + "ModuleAddMulDelegated.pte").c_str());
  ASSERT_EQ(file.error(), Error::Ok);
  SpyLoader spy(&*file);
  auto program = Program::load(&spy);
  ASSERT_EQ(program.error(), Error::Ok);
  Memory memory(*program);
  Result<Method> method = program->load_method("forward", memory.manager.get());
  ASSERT_EQ(method.error(), Error::Ok);
  ASSERT_NE(seen.payload_data, nullptr);
  EXPECT_TRUE(spy.freed(seen.payload_data));
}

TEST_F(CompatBackendTest, InlinePayloadIsTheProgramsBytes) {
  for (const char* name :
       {"ModuleAddMulDelegated-nosegments.pte", "ModuleAddMulDelegated-nosegments-da1024.pte"}) {
    const size_t alignment = std::strstr(name, "da1024") != nullptr ? 1024 : 16;
    auto file = FileDataLoader::from((kDir + name).c_str(), alignment);
    ASSERT_EQ(file.error(), Error::Ok) << name;
    auto program = Program::load(&*file);
    ASSERT_EQ(program.error(), Error::Ok) << name;
    {
      Memory memory(*program);
      Result<Method> method = program->load_method("forward", memory.manager.get());
      ASSERT_EQ(method.error(), Error::Ok) << name;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(seen.payload_data) % alignment, 0u) << name;
      EXPECT_EQ(run(*method), Error::Ok) << name;
      EXPECT_EQ(seen.payload_at_execute, kPayload) << name;
    }
    seen = Seen();
  }
}

// A tensor of the input's shape without data.
struct NoDataTensor {
  int32_t sizes[2] = {2, 2};
  uint8_t dim_order[2] = {0, 1};
  int32_t strides[2] = {2, 1};
  TensorImpl impl{ScalarType::Float, 2, sizes, nullptr, dim_order, strides};
  EValue value() { return EValue(Tensor(&impl)); }
};

TEST_F(CompatBackendTest, NoDataTensorForAPlannedInputKeepsItsBytes) {
  // ModuleAddMulOneFile: 3 * x + 2, its input memory-planned.
  auto file = FileDataLoader::from((kDir + "ModuleAddMulOneFile.pte").c_str());
  ASSERT_EQ(file.error(), Error::Ok);
  auto program = Program::load(&*file);
  ASSERT_EQ(program.error(), Error::Ok);
  Memory memory(*program);
  Result<Method> method = program->load_method("forward", memory.manager.get());
  ASSERT_EQ(method.error(), Error::Ok);
  float x[4] = {2.f, 3.f, 4.f, -1.f};
  int32_t sizes[2] = {2, 2};
  uint8_t dim_order[2] = {0, 1};
  int32_t strides[2] = {2, 1};
  TensorImpl with_data(ScalarType::Float, 2, sizes, x, dim_order, strides);
  ASSERT_EQ(method->set_input(EValue(Tensor(&with_data)), 0), Error::Ok);
  NoDataTensor empty;
  ASSERT_EQ(method->set_input(empty.value(), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  const Tensor y = method->get_output(0).toTensor();
  const float want[4] = {8.f, 11.f, 14.f, -1.f};
  ASSERT_EQ(y.numel(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.const_data_ptr<float>()[i], want[i]) << i;
}

TEST_F(CompatBackendTest, NoDataTensorForAnUnplannedInputIsRefused) {
  // ModuleDynamicCatUnallocatedIO: the input is bound to caller memory, so a
  // tensor without data cannot be shared (upstream: InvalidArgument).
  auto file = FileDataLoader::from((kDir + "ModuleDynamicCatUnallocatedIO.pte").c_str());
  ASSERT_EQ(file.error(), Error::Ok);
  auto program = Program::load(&*file);
  ASSERT_EQ(program.error(), Error::Ok);
  Memory memory(*program);
  Result<Method> method = program->load_method("forward", memory.manager.get());
  ASSERT_EQ(method.error(), Error::Ok);
  int32_t sizes[2] = {3, 4};
  uint8_t dim_order[2] = {0, 1};
  int32_t strides[2] = {4, 1};
  TensorImpl impl(ScalarType::Float, 2, sizes, nullptr, dim_order, strides);
  EXPECT_EQ(method->set_input(EValue(Tensor(&impl)), 0), Error::InvalidArgument);
}

}  // namespace
