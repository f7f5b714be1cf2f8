// The official Module's memory (extension/compat): the caller's method and
// temp allocators serve every method it loads, a caller's planned memory is
// used as given, share_memory_arenas puts every method's planned buffers in
// one pair of arenas, and load()'s backend options are kept as a copy.
// Outputs are checked against PyTorch's (fixture .npy).
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"

// Module::method() is deprecated upstream; the tests read data pointers through it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using executorch::aten::ScalarType;
using executorch::extension::FileDataLoader;
using executorch::extension::from_blob;
using executorch::extension::MallocMemoryAllocator;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::BackendOption;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::LoadBackendOptionsMap;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/";

// What a CountingAllocator saw (outlives the Module that owns the allocator).
struct Counts {
  size_t allocations = 0;
  size_t bytes = 0;
  size_t resets = 0;
};

// A malloc allocator that counts what it is asked for.
class CountingAllocator final : public MallocMemoryAllocator {
 public:
  explicit CountingAllocator(std::shared_ptr<Counts> counts) : counts_(std::move(counts)) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    ++counts_->allocations;
    counts_->bytes += size;
    return MallocMemoryAllocator::allocate(size, alignment);
  }
  void reset() override {
    ++counts_->resets;
    MallocMemoryAllocator::reset();
  }

 private:
  std::shared_ptr<Counts> counts_;
};

// A fixture array, kept with a TensorPtr over its data.
struct Fixture {
  std::unique_ptr<etr::HostTensor> host;
  TensorPtr tensor;
};

Fixture load_npy(const std::string& name) {
  Fixture f;
  auto t = etr::read_npy(kDir + name);
  EXPECT_TRUE(t.ok()) << name;
  if (!t.ok()) return f;
  f.host = std::make_unique<etr::HostTensor>(std::move(*t));
  const etr::Tensor& v = f.host->tensor();
  f.tensor = from_blob(v.mutable_data(), std::vector<int32_t>(v.sizes().begin(), v.sizes().end()),
                       v.dtype());
  return f;
}

float element(const executorch::aten::Tensor& t, ptrdiff_t i) {
  if (t.scalar_type() == ScalarType::Half) {
    return static_cast<float>(t.const_data_ptr<executorch::aten::Half>()[i]);
  }
  return t.const_data_ptr<float>()[i];
}

void expect_matches(const EValue& got, const std::string& reference, float tolerance = 1e-5f) {
  ASSERT_TRUE(got.isTensor());
  Fixture want = load_npy(reference);
  ASSERT_NE(want.tensor, nullptr);
  const auto& t = got.toTensor();
  ASSERT_EQ(t.numel(), want.tensor->numel()) << reference;
  for (ptrdiff_t i = 0; i < t.numel(); ++i) {
    EXPECT_NEAR(element(t, i), element(*want.tensor, i), tolerance)
        << reference << " element " << i;
  }
}

// The bytes Program::load_method takes from a counting method allocator for
// `method` of `pte`, with planned buffers of the method's sizes.
size_t method_bytes_through_program(const std::string& pte, const char* method) {
  auto loader = FileDataLoader::from(pte.c_str());
  EXPECT_TRUE(loader.ok());
  auto program = Program::load(&*loader);
  EXPECT_TRUE(program.ok());
  auto meta = program->method_meta(method);
  EXPECT_TRUE(meta.ok());
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    spans.emplace_back(buffers.back().data(), buffers.back().size());
  }
  HierarchicalAllocator planned(Span<Span<uint8_t>>(spans.data(), spans.size()));
  auto counts = std::make_shared<Counts>();
  CountingAllocator method_allocator(counts);
  MallocMemoryAllocator temp;
  MemoryManager memory(&method_allocator, &planned, &temp);
  auto m = program->load_method(method, &memory);
  EXPECT_EQ(m.error(), Error::Ok);
  return counts->bytes;
}

class CompatModuleMemoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
};

TEST_F(CompatModuleMemoryTest, CallerMethodAllocatorServesEveryMethod) {
  const std::string pte = kDir + "two_methods.pte";
  auto counts = std::make_shared<Counts>();
  Module module(pte, Module::LoadMode::File, nullptr, std::make_unique<CountingAllocator>(counts));
  EXPECT_EQ(module.event_tracer(), nullptr);
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  const size_t forward_bytes = counts->bytes;
  EXPECT_GT(forward_bytes, 0u);
  EXPECT_EQ(forward_bytes, method_bytes_through_program(pte, "forward"));
  ASSERT_EQ(module.load_method("decode"), Error::Ok);
  EXPECT_EQ(counts->bytes - forward_bytes, method_bytes_through_program(pte, "decode"));
  EXPECT_EQ(module.load_method("forward"), Error::Ok);  // loaded already: nothing new
  EXPECT_EQ(counts->bytes - forward_bytes, method_bytes_through_program(pte, "decode"));

  Fixture x = load_npy("two_methods/fwd_in0.npy");
  auto out = module.forward(x.tensor);
  ASSERT_EQ(out.error(), Error::Ok);
  expect_matches((*out)[0], "two_methods/fwd_out0.npy");
  Fixture a = load_npy("two_methods/dec_in0.npy"), b = load_npy("two_methods/dec_in1.npy");
  auto dec = module.execute("decode", {a.tensor, b.tensor});
  ASSERT_EQ(dec.error(), Error::Ok);
  expect_matches((*dec)[0], "two_methods/dec_out0.npy");
  expect_matches((*dec)[1], "two_methods/dec_out1.npy");

  // A method allocator too small for the method fails its load.
  alignas(16) static uint8_t tiny[64];
  Module starved(pte, Module::LoadMode::File, nullptr,
                 std::make_unique<MemoryAllocator>(sizeof(tiny), tiny));
  EXPECT_EQ(starved.load_method("forward"), Error::MemoryAllocationFailed);
}

// half_mlp's Half kernels widen their arguments into temp memory.
TEST_F(CompatModuleMemoryTest, CallerTempAllocatorServesKernels) {
  auto counts = std::make_shared<Counts>();
  auto loader = FileDataLoader::from((kDir + "half_mlp.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Module module(std::make_unique<FileDataLoader>(std::move(*loader)), nullptr,
                std::make_unique<CountingAllocator>(counts));
  Fixture x = load_npy("half_mlp/a_in0.npy");
  auto out = module.forward(x.tensor);
  ASSERT_EQ(out.error(), Error::Ok);
  expect_matches((*out)[0], "half_mlp/a_out0.npy", 1e-2f);
  EXPECT_GT(counts->allocations, 0u);
  EXPECT_GT(counts->resets, 0u);

  // A temp allocator too small for the kernels fails the execute.
  alignas(16) static uint8_t tiny[16];
  Module starved(kDir + "half_mlp.pte", Module::LoadMode::File, nullptr, nullptr,
                 std::make_unique<MemoryAllocator>(sizeof(tiny), tiny));
  EXPECT_NE(starved.forward(x.tensor).error(), Error::Ok);
}

// A temp allocator that takes each allocation from malloc (capacity 0)
// serves the optimized convolution's im2col and GEMM scratch too.
TEST_F(CompatModuleMemoryTest, MallocTempAllocatorServesConvolutionScratch) {
  auto counts = std::make_shared<Counts>();
  Module module(kDir + "conv_bn_fusion.pte", Module::LoadMode::File, nullptr, nullptr,
                std::make_unique<CountingAllocator>(counts));
  Fixture x = load_npy("conv_bn_fusion/a_in0.npy");
  auto out = module.forward(x.tensor);
  ASSERT_EQ(out.error(), Error::Ok);
  ASSERT_EQ(out->size(), 2u);
  expect_matches((*out)[0], "conv_bn_fusion/a_out0.npy", 1e-4f);
  expect_matches((*out)[1], "conv_bn_fusion/a_out1.npy", 1e-4f);
  EXPECT_GT(counts->allocations, 0u);
}

TEST_F(CompatModuleMemoryTest, CallerPlannedMemoryHoldsTheMethodsTensors) {
  Module module(kDir + "two_methods.pte");
  auto meta = module.method_meta("forward");
  ASSERT_EQ(meta.error(), Error::Ok);
  ASSERT_EQ(meta->num_memory_planned_buffers(), 1u);
  const size_t size = static_cast<size_t>(meta->memory_planned_buffer_size(0).get());
  std::vector<uint8_t> buffer(size);
  Span<uint8_t> span(buffer.data(), buffer.size());
  HierarchicalAllocator planned(Span<Span<uint8_t>>(&span, 1));
  ASSERT_EQ(module.load_method("forward", &planned), Error::Ok);
  Fixture x = load_npy("two_methods/fwd_in0.npy");
  auto out = module.forward(x.tensor);
  ASSERT_EQ(out.error(), Error::Ok);
  expect_matches((*out)[0], "two_methods/fwd_out0.npy");
  auto method = module.method("forward");
  ASSERT_EQ(method.error(), Error::Ok);
  const auto* y = static_cast<const uint8_t*>((*method)->get_output(0).toTensor().const_data_ptr());
  EXPECT_GE(y, buffer.data());
  EXPECT_LT(y, buffer.data() + size);
}

// forward's planned output, after decode ran: with shared arenas decode's
// tensors overwrite it (as upstream documents), without it stays.
TEST_F(CompatModuleMemoryTest, SharedMemoryArenasHoldEveryMethod) {
  Fixture x = load_npy("two_methods/fwd_in0.npy");
  Fixture a = load_npy("two_methods/dec_in0.npy"), b = load_npy("two_methods/dec_in1.npy");
  for (const bool share : {false, true}) {
    SCOPED_TRACE(share ? "shared arenas" : "own arenas");
    auto loader = FileDataLoader::from((kDir + "two_methods.pte").c_str());
    ASSERT_TRUE(loader.ok());
    Module module(std::make_unique<FileDataLoader>(std::move(*loader)), nullptr, nullptr, nullptr,
                  nullptr, share);
    for (int round = 0; round < 2; ++round) {
      auto out = module.forward(x.tensor);
      ASSERT_EQ(out.error(), Error::Ok);
      expect_matches((*out)[0], "two_methods/fwd_out0.npy");
      auto dec = module.execute("decode", {a.tensor, b.tensor});
      ASSERT_EQ(dec.error(), Error::Ok);
      expect_matches((*dec)[0], "two_methods/dec_out0.npy");
      expect_matches((*dec)[1], "two_methods/dec_out1.npy");
    }
    auto forward = module.method("forward");
    auto decode = module.method("decode");
    ASSERT_TRUE(forward.ok() && decode.ok());
    const auto f =
        reinterpret_cast<uintptr_t>((*forward)->get_output(0).toTensor().const_data_ptr());
    const auto d =
        reinterpret_cast<uintptr_t>((*decode)->get_output(0).toTensor().const_data_ptr());
    const auto fsize = module.method_meta("forward")->memory_planned_buffer_size(0).get();
    const auto dsize = module.method_meta("decode")->memory_planned_buffer_size(0).get();
    const uintptr_t arena = static_cast<uintptr_t>(std::max(fsize, dsize));
    const uintptr_t distance = f > d ? f - d : d - f;
    auto stale = module.get_outputs("forward");
    ASSERT_EQ(stale.error(), Error::Ok);
    Fixture want = load_npy("two_methods/fwd_out0.npy");
    bool same = true;
    for (ptrdiff_t i = 0; i < want.tensor->numel(); ++i) {
      same &= std::abs(element((*stale)[0].toTensor(), i) - element(*want.tensor, i)) <= 1e-5f;
    }
    if (share) {
      EXPECT_LT(distance, arena);  // one arena holds both methods' outputs
      EXPECT_FALSE(same);
    } else {
      EXPECT_TRUE(same);
    }
  }
}

TEST_F(CompatModuleMemoryTest, LoadKeepsACopyOfTheBackendOptions) {
  Module module(kDir + "add_mul.pte");
  EXPECT_EQ(module.backend_options().size(), 0u);
  {
    std::vector<BackendOption> options(2);
    std::snprintf(options[0].key, sizeof(options[0].key), "%s", "num_threads");
    options[0].value = 3;
    std::snprintf(options[1].key, sizeof(options[1].key), "%s", "fast");
    options[1].value = true;
    LoadBackendOptionsMap map;
    ASSERT_EQ(map.set_options("SomeBackend", Span<BackendOption>(options.data(), 2)), Error::Ok);
    ASSERT_EQ(module.load(map), Error::Ok);
    options[0].value = 5;  // the Module's copy stays as it was
  }
  ASSERT_EQ(module.backend_options().size(), 1u);
  const auto entry = module.backend_options().entry_at(0);
  EXPECT_STREQ(entry.backend_id, "SomeBackend");
  ASSERT_EQ(entry.options.size(), 2u);
  EXPECT_STREQ(entry.options[0].key, "num_threads");
  EXPECT_EQ(std::get<int>(entry.options[0].value), 3);
  EXPECT_EQ(std::get<bool>(entry.options[1].value), true);
  EXPECT_EQ(module.debug_buffer().size(), 0u);
}

}  // namespace
