// The official Method (extension/compat) on the programs upstream's
// runtime/executor/test/method_test.cpp reads (test/models/official_module/,
// made by test/models/export_official_module.py): attributes, ids, a Method
// that was moved from, the error for an input that is not set, constants in
// the legacy constant_buffer, in a segment and in a .ptd, an advanced index
// and a dynamic cat into caller memory. Expected values follow from what
// each module computes (see the export script).
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/official_module/";

// A program file with the memory its methods need (planned buffers sized
// from each method's meta).
class Loaded {
 public:
  explicit Loaded(const std::string& name) {
    auto loader = FileDataLoader::from((kDir + name).c_str());
    EXPECT_EQ(loader.error(), Error::Ok) << name;
    if (!loader.ok()) return;
    loader_ = std::make_unique<FileDataLoader>(std::move(*loader));
    auto program = Program::load(loader_.get(), Program::Verification::InternalConsistency);
    EXPECT_EQ(program.error(), Error::Ok) << name;
    if (program.ok()) program_ = std::make_unique<Program>(std::move(*program));
  }

  // Loads `forward` with fresh memory (kept until this object goes away).
  Result<Method> method(const NamedDataMap* data = nullptr) {
    if (program_ == nullptr) return Error::InvalidState;
    auto meta = program_->method_meta("forward");
    if (!meta.ok()) return meta.error();
    auto mem = std::make_unique<Memory>();
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      mem->buffers.emplace_back(*meta->memory_planned_buffer_size(i));
      mem->spans.emplace_back(mem->buffers.back().data(), mem->buffers.back().size());
    }
    mem->planned = std::make_unique<HierarchicalAllocator>(
        Span<Span<uint8_t>>(mem->spans.data(), mem->spans.size()));
    mem->arena.resize(64 * 1024);
    mem->allocator = std::make_unique<MemoryAllocator>(mem->arena.size(), mem->arena.data());
    mem->manager = std::make_unique<MemoryManager>(mem->allocator.get(), mem->planned.get());
    MemoryManager* manager = mem->manager.get();
    memory_.push_back(std::move(mem));
    return program_->load_method("forward", manager, nullptr, data);
  }

 private:
  struct Memory {
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<Span<uint8_t>> spans;
    std::unique_ptr<HierarchicalAllocator> planned;
    std::vector<uint8_t> arena;
    std::unique_ptr<MemoryAllocator> allocator;
    std::unique_ptr<MemoryManager> manager;
  };
  std::unique_ptr<FileDataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::vector<std::unique_ptr<Memory>> memory_;
};

// A contiguous float tensor over caller memory.
struct FloatTensor {
  FloatTensor(std::vector<int32_t> s, std::vector<float> v)
      : sizes(std::move(s)), data(std::move(v)), dim_order(sizes.size()), strides(sizes.size()) {
    int32_t stride = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      dim_order[i] = static_cast<uint8_t>(i);
      strides[i] = stride;
      stride *= sizes[i];
    }
    impl =
        std::make_unique<TensorImpl>(ScalarType::Float, static_cast<ssize_t>(sizes.size()),
                                     sizes.data(), data.data(), dim_order.data(), strides.data());
  }
  EValue value() { return EValue(Tensor(impl.get())); }
  std::vector<int32_t> sizes;
  std::vector<float> data;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::unique_ptr<TensorImpl> impl;
};

// ModuleAddMul's forward, 3 * x + 2, on x = {2, 3, 4, -1}.
void expect_add_mul(Method& method) {
  FloatTensor x({2, 2}, {2.f, 3.f, 4.f, -1.f});
  ASSERT_EQ(method.set_input(x.value(), 0), Error::Ok);
  ASSERT_EQ(method.execute(), Error::Ok);
  const Tensor y = method.get_output(0).toTensor();
  const float want[4] = {8.f, 11.f, 14.f, -1.f};
  ASSERT_EQ(y.numel(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.const_data_ptr<float>()[i], want[i]) << i;
}

class CompatMethodTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
};

TEST_F(CompatMethodTest, AttributeBindsTheUnplannedStateAndExecuteUpdatesIt) {
  Loaded stateful("ModuleStateful.pte");
  auto method = stateful.method();
  ASSERT_EQ(method.error(), Error::Ok);
  EXPECT_EQ(method->get_attribute("no_such_buffer").error(), Error::NotFound);
  EXPECT_EQ(method->get_attribute("").error(), Error::NotFound);
  auto state = method->get_attribute("state");
  ASSERT_EQ(state.error(), Error::Ok);
  EXPECT_EQ(state->scalar_type(), ScalarType::Int);
  EXPECT_EQ(state->numel(), 1);
  EXPECT_EQ(state->const_data_ptr(), nullptr);  // not memory-planned

  // Bound through set_data, the buffer is the method's state: each execute
  // adds 1 to it, and forward returns x + state.
  int32_t data = 5;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  state->set_data(&data);  // deprecated in the official API, still there
#pragma GCC diagnostic pop
  EXPECT_EQ(state->const_data_ptr(), &data);
  EXPECT_EQ(method->get_attribute("state")->const_data_ptr(), &data);
  FloatTensor x({1}, {0.5f});
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(data, 6);
  EXPECT_FLOAT_EQ(method->get_output(0).toTensor().const_data_ptr<float>()[0], 6.5f);
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(data, 7);
  EXPECT_FLOAT_EQ(method->get_output(0).toTensor().const_data_ptr<float>()[0], 7.5f);
}

TEST_F(CompatMethodTest, StateWithoutMemoryDoesNotRun) {
  Loaded stateful("ModuleStateful.pte");
  auto method = stateful.method();
  ASSERT_EQ(method.error(), Error::Ok);
  FloatTensor x({1}, {0.5f});
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  EXPECT_NE(method->execute(), Error::Ok);  // "state" was never bound
}

TEST_F(CompatMethodTest, IdsDifferAndAMovedFromMethodRefusesCalls) {
  Loaded add_mul("ModuleAddMulOneFile.pte");
  auto a = add_mul.method();
  auto b = add_mul.method();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->id(), 0u);
  EXPECT_NE(a->id(), b->id());

  const uint32_t id = a->id();
  Method moved(std::move(*a));
  EXPECT_EQ(moved.id(), id);
  EXPECT_EQ(a->id(), 0u);
  EXPECT_EQ(a->inputs_size(), 0u);
  EXPECT_EQ(a->outputs_size(), 0u);
  EXPECT_EQ(a->execute(), Error::NotSupported);
  FloatTensor x({2, 2}, {2.f, 3.f, 4.f, -1.f});
  EXPECT_EQ(a->set_input(x.value(), 0), Error::InvalidState);
  EXPECT_EQ(a->set_output_data_ptr(x.data.data(), 16, 0), Error::InvalidState);
  EXPECT_EQ(a->get_attribute("state").error(), Error::InvalidState);
  EValue out;
  EXPECT_EQ(a->get_outputs(&out, 1), Error::InvalidState);
  EXPECT_EQ(a->get_event_tracer(), nullptr);
  expect_add_mul(moved);
}

TEST_F(CompatMethodTest, ExecuteWithAnInputNotSetIsInvalidArgument) {
  // The official runtime's error (etr's own Method says InvalidState).
  Loaded add_mul("ModuleAddMulOneFile.pte");
  auto method = add_mul.method();
  ASSERT_EQ(method.error(), Error::Ok);
  EXPECT_EQ(method->execute(), Error::InvalidArgument);
  expect_add_mul(*method);
}

TEST_F(CompatMethodTest, ConstantsInTheLegacyConstantBuffer) {
  Loaded legacy("ModuleAddMulConstantBuffer.pte");
  auto method = legacy.method();
  ASSERT_EQ(method.error(), Error::Ok);
  expect_add_mul(*method);
}

TEST_F(CompatMethodTest, ConstantsInASegmentOrInAPtd) {
  Loaded one_file("ModuleAddMulOneFile.pte");
  auto method = one_file.method();
  ASSERT_EQ(method.error(), Error::Ok);
  expect_add_mul(*method);

  auto ptd = FileDataLoader::from((kDir + "ModuleAddMul.ptd").c_str());
  ASSERT_EQ(ptd.error(), Error::Ok);
  auto map = FlatTensorDataMap::load(&*ptd);
  ASSERT_EQ(map.error(), Error::Ok);
  Loaded program("ModuleAddMul.pte");
  EXPECT_NE(program.method().error(), Error::Ok);  // its constants are in the .ptd
  auto separate = program.method(&*map);
  ASSERT_EQ(separate.error(), Error::Ok);
  expect_add_mul(*separate);
}

TEST_F(CompatMethodTest, IndexWithANoneInItsIndexList) {
  // forward(x) = x[1::2, [1, 2]] on x[i][j][k] = 100 i + 10 j + k.
  Loaded index("ModuleIndex.pte");
  auto method = index.method();
  ASSERT_EQ(method.error(), Error::Ok);
  std::vector<float> values(1000);
  for (int i = 0; i < 1000; ++i) values[i] = static_cast<float>(i);
  FloatTensor x({10, 10, 10}, values);
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  const Tensor y = method->get_output(0).toTensor();
  ASSERT_EQ(y.dim(), 3);
  EXPECT_EQ(y.size(0), 5);
  EXPECT_EQ(y.size(1), 2);
  EXPECT_EQ(y.size(2), 10);
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int k = 0; k < 10; ++k) {
        EXPECT_FLOAT_EQ(y.const_data_ptr<float>()[(a * 2 + b) * 10 + k],
                        static_cast<float>(100 * (1 + 2 * a) + 10 * (1 + b) + k))
            << a << "," << b << "," << k;
      }
    }
  }
}

TEST_F(CompatMethodTest, DynamicCatIntoCallerMemory) {
  // forward(k) = cat(k, ones(1, 4)); neither k nor the result is planned.
  Loaded cat("ModuleDynamicCatUnallocatedIO.pte");
  auto method = cat.method();
  ASSERT_EQ(method.error(), Error::Ok);
  FloatTensor k({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_EQ(method->set_input(k.value(), 0), Error::Ok);
  EXPECT_NE(method->execute(), Error::Ok);  // the output has no memory yet
  // Room for the declared bound of four rows, then sentinels.
  std::vector<float> out(20, -1.f);
  EXPECT_NE(method->set_output_data_ptr(out.data(), 4, 0), Error::Ok);  // too small
  ASSERT_EQ(method->set_output_data_ptr(out.data(), 16 * sizeof(float), 0), Error::Ok);
  ASSERT_EQ(method->set_input(k.value(), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  const Tensor y = method->get_output(0).toTensor();
  ASSERT_EQ(y.const_data_ptr(), out.data());
  EXPECT_EQ(y.size(0), 3);
  EXPECT_EQ(y.size(1), 4);
  const float want[12] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 1, 1};
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(out[i], want[i]) << i;
  EXPECT_FLOAT_EQ(out[12], -1.f);  // past the result: untouched

  // Four rows in give five out, more than the caller's buffer holds: the
  // method fails instead of writing past it.
  FloatTensor big({4, 4}, std::vector<float>(16, 0.f));
  if (method->set_input(big.value(), 0) == Error::Ok) {
    EXPECT_NE(method->execute(), Error::Ok);
  }
  for (int i = 16; i < 20; ++i) EXPECT_FLOAT_EQ(out[i], -1.f) << i;
}

}  // namespace
