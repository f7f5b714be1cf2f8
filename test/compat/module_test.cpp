// The official Module's input staging, outputs and unloading
// (extension/compat) on test/models/add_mul.pte, against PyTorch's outputs.
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "extension/tensor/npy.h"

using executorch::aten::ScalarType;
using executorch::extension::FileDataLoader;
using executorch::extension::make_tensor_ptr;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Program;

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/";

// A fixture array as an owned TensorPtr.
TensorPtr load_npy(const std::string& name) {
  auto t = etr::read_npy(kDir + "add_mul/" + name);
  EXPECT_TRUE(t.ok()) << name;
  if (!t.ok()) return nullptr;
  const etr::Tensor& v = t->tensor();
  const float* data = v.const_data_ptr<float>();
  return make_tensor_ptr(std::vector<int32_t>(v.sizes().begin(), v.sizes().end()),
                         std::vector<float>(data, data + v.numel()));
}

void expect_matches(const EValue& got, const std::string& reference) {
  ASSERT_TRUE(got.isTensor());
  TensorPtr want = load_npy(reference);
  ASSERT_NE(want, nullptr);
  const auto& t = got.toTensor();
  ASSERT_EQ(t.numel(), want->numel()) << reference;
  for (ptrdiff_t i = 0; i < t.numel(); ++i) {
    EXPECT_NEAR(t.const_data_ptr<float>()[i], want->const_data_ptr<float>()[i], 1e-5)
        << reference << " element " << i;
  }
}

class CompatModuleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
  void SetUp() override {
    for (int i = 0; i < 4; ++i) inputs_.push_back(load_npy("a_in" + std::to_string(i) + ".npy"));
  }
  std::vector<TensorPtr> inputs_;
};

TEST_F(CompatModuleTest, StagedInputsCombineWithGivenOnesAndPersist) {
  Module module(kDir + "add_mul.pte");
  EXPECT_EQ(module.get_outputs().error(), Error::InvalidState);  // nothing ran yet
  ASSERT_EQ(module.set_input(inputs_[1], 1), Error::Ok);
  ASSERT_EQ(module.set_input(inputs_[2], 2), Error::Ok);
  ASSERT_EQ(module.set_input(inputs_[3], 3), Error::Ok);
  EXPECT_EQ(module.set_input(inputs_[3], 4), Error::InvalidArgument);
  auto out = module.forward(inputs_[0]);
  ASSERT_EQ(out.error(), Error::Ok);
  ASSERT_EQ(out->size(), 3u);
  for (int i = 0; i < 3; ++i) expect_matches((*out)[i], "a_out" + std::to_string(i) + ".npy");

  // The inputs stay set: a call without inputs runs on the same ones.
  auto again = module.forward();
  ASSERT_EQ(again.error(), Error::Ok);
  expect_matches((*again)[2], "a_out2.npy");
  auto outputs = module.get_outputs();
  ASSERT_EQ(outputs.error(), Error::Ok);
  ASSERT_EQ(outputs->size(), 3u);
  expect_matches((*outputs)[1], "a_out1.npy");
  auto second = module.get_output(1);
  ASSERT_EQ(second.error(), Error::Ok);
  expect_matches(*second, "a_out1.npy");
  EXPECT_EQ(module.get_output(3).error(), Error::InvalidArgument);
}

TEST_F(CompatModuleTest, SetInputsNeedsEveryInputAndUnsetInputsFail) {
  Module module(kDir + "add_mul.pte", Module::LoadMode::MmapUseMadvise);
  EXPECT_EQ(module.set_inputs({inputs_[0], inputs_[1]}), Error::InvalidArgument);
  ASSERT_EQ(module.set_input(inputs_[0], 0), Error::Ok);
  EXPECT_EQ(module.forward().error(), Error::InvalidArgument);  // inputs 1..3 unset
  ASSERT_EQ(module.set_inputs({inputs_[0], inputs_[1], inputs_[2], inputs_[3]}), Error::Ok);
  auto out = module.forward();
  ASSERT_EQ(out.error(), Error::Ok);
  expect_matches((*out)[0], "a_out0.npy");
  EXPECT_EQ(module.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3], inputs_[0]}).error(),
            Error::InvalidArgument);
}

TEST_F(CompatModuleTest, UnloadMethodDropsItsInputs) {
  Module module(kDir + "add_mul.pte");
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  ASSERT_EQ(module.set_inputs({inputs_[0], inputs_[1], inputs_[2], inputs_[3]}), Error::Ok);
  EXPECT_TRUE(module.unload_method("forward"));
  EXPECT_FALSE(module.is_method_loaded("forward"));
  EXPECT_FALSE(module.unload_method("forward"));
  EXPECT_EQ(module.forward().error(), Error::InvalidArgument);
  auto out = module.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]});
  ASSERT_EQ(out.error(), Error::Ok);  // loads again
  EXPECT_TRUE(module.is_method_loaded("forward"));
  expect_matches((*out)[2], "a_out2.npy");
}

TEST_F(CompatModuleTest, DataLoaderModuleSharesItsProgram) {
  auto loader = FileDataLoader::from((kDir + "add_mul.pte").c_str());
  ASSERT_EQ(loader.error(), Error::Ok);
  auto module1 = std::make_unique<Module>(std::make_unique<FileDataLoader>(std::move(*loader)));
  EXPECT_FALSE(module1->is_loaded());
  EXPECT_EQ(module1->program(), nullptr);
  ASSERT_EQ(module1->load(), Error::Ok);
  std::shared_ptr<Program> program = module1->program();
  ASSERT_NE(program, nullptr);
  EXPECT_EQ(module1->program(), program);
  EXPECT_EQ(program->num_methods(), 1u);
  auto out1 = module1->forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]});
  ASSERT_EQ(out1.error(), Error::Ok);
  expect_matches((*out1)[0], "a_out0.npy");

  // A second Module over the program: loaded at once, its own methods; it
  // keeps the program (and the loader) alive after the first one is gone.
  Module module2(program);
  EXPECT_TRUE(module2.is_loaded());
  EXPECT_FALSE(module2.is_method_loaded("forward"));
  EXPECT_EQ(module2.program(), program);
  module1.reset();
  program.reset();
  auto out2 = module2.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]});
  ASSERT_EQ(out2.error(), Error::Ok);
  for (int i = 0; i < 3; ++i) expect_matches((*out2)[i], "a_out" + std::to_string(i) + ".npy");
}

TEST_F(CompatModuleTest, ModulesOnThreadsShareOneProgram) {
  Module first(kDir + "add_mul.pte");
  ASSERT_EQ(first.load(), Error::Ok);
  std::shared_ptr<Program> program = first.program();
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Module module(program);
      for (int round = 0; round < 3; ++round) {
        auto out = module.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]});
        if (!out.ok()) return;
        TensorPtr want = load_npy("a_out2.npy");
        const auto& got = (*out)[2].toTensor();
        for (ptrdiff_t i = 0; i < got.numel(); ++i) {
          if (std::abs(got.const_data_ptr<float>()[i] - want->const_data_ptr<float>()[i]) > 1e-5) {
            return;
          }
        }
      }
      ok[t] = 1;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ok[t], 1) << "thread " << t;
}

// A .ptd given as a DataLoader: ModuleAddMul computes 3 * x + 2 with both
// constants in the .ptd (test/models/export_official_module.py).
TEST_F(CompatModuleTest, DataMapLoaderSuppliesExternalConstants) {
  const std::string dir = kDir + "official_module/";
  auto pte = FileDataLoader::from((dir + "ModuleAddMul.pte").c_str());
  auto ptd = FileDataLoader::from((dir + "ModuleAddMul.ptd").c_str());
  ASSERT_TRUE(pte.ok() && ptd.ok());
  Module module(std::make_unique<FileDataLoader>(std::move(*pte)), nullptr, nullptr, nullptr,
                std::make_unique<FileDataLoader>(std::move(*ptd)));
  auto out = module.forward(make_tensor_ptr({2, 2}, std::vector<float>{2.f, 3.f, 4.f, -1.f}));
  ASSERT_EQ(out.error(), Error::Ok);
  const auto& y = (*out)[0].toTensor();
  const float want[4] = {8.f, 11.f, 14.f, -1.f};
  ASSERT_EQ(y.numel(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.const_data_ptr<float>()[i], want[i]) << i;

  // Without the .ptd the method cannot load.
  auto alone = FileDataLoader::from((dir + "ModuleAddMul.pte").c_str());
  ASSERT_TRUE(alone.ok());
  Module missing(std::make_unique<FileDataLoader>(std::move(*alone)));
  EXPECT_NE(missing.load_method("forward"), Error::Ok);
}

// A null loader or program fails the load (as upstream), with no abort.
TEST_F(CompatModuleTest, NullLoaderOrProgramFailsTheLoad) {
  Module no_loader(std::unique_ptr<executorch::runtime::DataLoader>{});
  EXPECT_FALSE(no_loader.is_loaded());
  EXPECT_NE(no_loader.load(), Error::Ok);
  EXPECT_NE(no_loader.forward().error(), Error::Ok);
  Module no_program(std::shared_ptr<Program>{});
  EXPECT_FALSE(no_program.is_loaded());
  EXPECT_NE(no_program.load_method("forward"), Error::Ok);
}

TEST_F(CompatModuleTest, SetOutputWritesTheCallersBuffer) {
  Module module(kDir + "add_mul.pte");
  auto buffer = executorch::extension::empty({2, 3, 4});
  std::fill(buffer->mutable_data_ptr<float>(), buffer->mutable_data_ptr<float>() + 24,
            std::nanf(""));
  EXPECT_EQ(module.set_output(buffer, 3), Error::InvalidArgument);
  EXPECT_EQ(module.set_output(EValue(int64_t{1}), 0), Error::InvalidArgument);
  EXPECT_EQ(module.set_output(executorch::extension::empty({2, 3, 4}, ScalarType::Int), 0),
            Error::InvalidArgument);
  EXPECT_EQ(module.set_output(executorch::extension::empty({2, 3}), 0), Error::InvalidArgument);
  EXPECT_EQ(module.set_outputs({buffer}), Error::InvalidArgument);  // 3 outputs
  ASSERT_EQ(module.set_output(buffer, 2), Error::Ok);
  auto out = module.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]});
  ASSERT_EQ(out.error(), Error::Ok);
  expect_matches(EValue(buffer), "a_out2.npy");
  expect_matches((*out)[2], "a_out2.npy");
  expect_matches((*out)[0], "a_out0.npy");

  // All three outputs into caller buffers (the TensorPtrs are kept alive by
  // the Module while the method uses them).
  std::vector<EValue> buffers;
  for (int i = 0; i < 3; ++i) buffers.emplace_back(executorch::extension::empty({2, 3, 4}));
  ASSERT_EQ(module.set_outputs(buffers), Error::Ok);
  ASSERT_EQ(module.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]}).error(), Error::Ok);
  for (int i = 0; i < 3; ++i) expect_matches(buffers[i], "a_out" + std::to_string(i) + ".npy");
}

}  // namespace

namespace {

// A channels-last input made with the official API (storage in dim order
// 0, 2, 3, 1) reaches the program in that layout: PyTorch's outputs.
TEST(CompatModuleLayoutTest, ChannelsLastTensorPtrInput) {
  executorch::runtime::runtime_init();
  auto in = etr::read_npy(kDir + "channels_last_cnn/a_in0.npy");  // logical NCHW
  auto ref = etr::read_npy(kDir + "channels_last_cnn/a_out0.npy");
  ASSERT_TRUE(in.ok() && ref.ok());
  const int N = 2, C = 3, H = 12, W = 12;
  const float* nchw = in->tensor().const_data_ptr<float>();
  std::vector<float> nhwc(static_cast<size_t>(N * C * H * W));
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w)
          nhwc[((n * H + h) * W + w) * C + c] = nchw[((n * C + c) * H + h) * W + w];
  auto x = make_tensor_ptr({N, C, H, W}, std::move(nhwc), {0, 2, 3, 1});
  ASSERT_EQ(x->strides()[1], 1);
  Module module(kDir + "channels_last_cnn.pte");
  auto out = module.forward(x);
  ASSERT_EQ(out.error(), Error::Ok);
  const auto& y = (*out)[0].toTensor();
  ASSERT_EQ(y.numel(), ref->tensor().numel());
  for (ptrdiff_t i = 0; i < y.numel(); ++i) {
    EXPECT_NEAR(y.const_data_ptr<float>()[i], ref->tensor().const_data_ptr<float>()[i], 1e-4) << i;
  }
}

// A subclass written against upstream's header: it reaches the loaded
// methods through the protected `methods_` (MethodHolder's planned_memory,
// memory_manager, method and kernel_registry) and runs one itself.
class MethodsModule : public Module {
 public:
  using Module::Module;
  size_t num_loaded() const { return methods_.size(); }
  bool holds(const std::string& name) const { return methods_.count(name) != 0; }
  executorch::runtime::Method* loaded(const std::string& name) {
    auto found = methods_.find(name);
    return found == methods_.end() ? nullptr : found->second.method.get();
  }
  bool owns_planned_memory(const std::string& name) const {
    return methods_.at(name).planned_memory != nullptr;
  }
  executorch::runtime::MemoryManager* memory_manager(const std::string& name) const {
    return methods_.at(name).memory_manager.get();
  }
  size_t num_local_kernels(const std::string& name) const {
    return methods_.at(name).kernel_registry.size();
  }
};

TEST_F(CompatModuleTest, SubclassRunsAMethodThroughMethods) {
  MethodsModule module(kDir + "add_mul.pte");
  EXPECT_EQ(module.num_loaded(), 0u);
  EXPECT_EQ(module.loaded("forward"), nullptr);
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  ASSERT_EQ(module.num_loaded(), 1u);
  executorch::runtime::Method* method = module.loaded("forward");
  ASSERT_NE(method, nullptr);
  EXPECT_TRUE(module.owns_planned_memory("forward"));
  ASSERT_NE(module.memory_manager("forward"), nullptr);
  EXPECT_NE(module.memory_manager("forward")->planned_memory(), nullptr);
  EXPECT_EQ(module.num_local_kernels("forward"), 0u);

  // The subclass drives the Method itself.
  ASSERT_EQ(method->inputs_size(), 4u);
  for (size_t i = 0; i < 4; ++i) ASSERT_EQ(method->set_input(EValue(inputs_[i]), i), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  ASSERT_EQ(method->outputs_size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    expect_matches(method->get_output(i), "a_out" + std::to_string(i) + ".npy");
  }
  // The Module's own calls use the same method.
  auto out = module.forward({inputs_[0], inputs_[1], inputs_[2], inputs_[3]});
  ASSERT_EQ(out.error(), Error::Ok);
  expect_matches((*out)[2], "a_out2.npy");
  EXPECT_EQ(module.loaded("forward"), method);
  EXPECT_TRUE(module.unload_method("forward"));
  EXPECT_FALSE(module.holds("forward"));
}

}  // namespace
