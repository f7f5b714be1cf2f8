// The Vulkan delegate's LLM fixtures (issue 21, test/models/vulkan, written
// by export_vulkan_llm.py with the official toolchain), on lavapipe with
// validation like vulkan_backend_test.cpp:
//  - manifest_llm.txt: torchao 4-bit group-wise quantized MLPs
//    (et_vk.linear_q4gsw; 8da4w: torchao.choose_qparams_affine +
//    et_vk.linear_dq8ca_q4gsw) against PyTorch eager of the quantized module;
//  - tiny_llama_vulkan.pte (the official LLM exporter with
//    backend.vulkan.enabled, static shapes): logits after each token of
//    tiny_llama_vulkan/tokens.npy, fed one per call on one Module (the KV
//    cache lives in the delegate between calls), against the official
//    runtime on the non-Vulkan export of the same checkpoint
//    (test/models/llm/tiny_llama_portable.pte) within 2e-3 of each step's
//    largest |logit|; and the greedy continuation of the runner's prompt
//    (a Module loop and TextGenerator, twice with reset() between) equal to
//    the official TextLLMRunner's on that file (test/models/llm/refs);
//  - payloads of those programs edited to be wrong fail init naming the
//    delegate, the operator and the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backends/vulkan/vulkan_backend.h"
#include "extension/llm/text_generator.h"
#include "extension/module/module.h"
#include "extension/tensor/npy.h"
#include "kernels/portable/portable_kernels.h"
#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"
#include "test/support/in_process.h"

namespace etr {
namespace testing {
namespace {

constexpr const char* kLavapipeIcd = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

// Lavapipe and validation unless told otherwise (as vulkan_backend_test.cpp).
const bool kEnvironment = [] {
  if (std::getenv("ETR_VULKAN_TEST_NATIVE") == nullptr) {
    setenv("VK_DRIVER_FILES", kLavapipeIcd, 1);
    setenv("VK_ICD_FILENAMES", kLavapipeIcd, 1);
  }
  setenv("ETR_VULKAN_VALIDATION", "1", 0);
  return true;
}();

class VulkanLlmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)kEnvironment;
    if (std::getenv("ETR_VULKAN_TEST_NATIVE") == nullptr) {
      ASSERT_TRUE(std::ifstream(kLavapipeIcd).good())
          << kLavapipeIcd << " is missing: install mesa-vulkan-drivers (scripts/install_deps.sh)";
    }
    validation_before_ = vulkan_validation_messages();
  }
  void TearDown() override {
    EXPECT_EQ(vulkan_validation_messages(), validation_before_)
        << "the Vulkan validation layer reported problems (see the log above)";
  }
  size_t validation_before_ = 0;
};

const BackendRegistry& vulkan_registry() {
  static const BackendRegistry registry = [] {
    BackendRegistry r;
    EXPECT_EQ(register_vulkan_backend(&r), Error::Ok);
    return r;
  }();
  return registry;
}

const std::string kVulkanDir = models_dir() + "vulkan/";
const std::string kLlmDir = models_dir() + "llm/";
const std::string kLlama = kVulkanDir + "tiny_llama_vulkan.pte";
constexpr size_t kVocab = 128;

TEST_F(VulkanLlmTest, QuantizedLinearFixturesMatchPyTorch) {
  const std::vector<FixtureCase> cases = load_manifest(kVulkanDir, "manifest_llm.txt");
  ASSERT_EQ(cases.size(), 2u);
  register_all_kernels();
  for (const FixtureCase& c : cases) {
    SCOPED_TRACE(c.line);
    MethodLoadOptions options;
    options.backends = &vulkan_registry();
    LoadedMethod lm;
    char message[2048];
    ErrorCapture capture(message, sizeof(message));
    ASSERT_TRUE(load_fixture_method(c, &lm, &options)) << lm.error << ": " << capture.message();
    for (int i = 0; i < c.executions; ++i) {
      ASSERT_TRUE(set_fixture_inputs(c, &lm)) << lm.error;
      ASSERT_EQ(lm.method->execute(), Error::Ok) << capture.message();
    }
    EXPECT_EQ(compare_outputs(c, *lm.method), "");
  }
}

template <typename T>
std::vector<T> load_npy(const std::string& path) {
  Result<HostTensor> t = read_npy(path);
  EXPECT_TRUE(t.ok()) << "reading " << path;
  return t.ok() ? t->values<T>() : std::vector<T>{};
}

ModuleOptions vulkan_options() {
  ModuleOptions o;
  o.backends = &vulkan_registry();
  o.num_threads = 1;
  return o;
}

Value long_tensor(std::vector<int32_t> sizes, std::vector<int64_t> v) {
  Result<HostTensor> t = make_tensor<int64_t>(sizes, v);
  EXPECT_TRUE(t.ok());
  return t.ok() ? Value(std::move(*t)) : Value();
}

// forward(token at pos) on `m`: the 128 logits.
Result<std::vector<float>> step(Module& m, int64_t token, int64_t pos) {
  Result<std::vector<Value>> outs = m.forward({long_tensor({1, 1}, {token}), long_tensor({1}, {pos})});
  if (!outs.ok()) return outs.error();
  if (outs->size() != 1 || !(*outs)[0].is_tensor()) return Error::InvalidProgram;
  const Tensor& t = (*outs)[0].tensor();
  if (t.scalar_type() != ScalarType::Float || static_cast<size_t>(t.numel()) != kVocab) {
    return Error::InvalidProgram;
  }
  const float* p = static_cast<const float*>(t.const_data());
  return std::vector<float>(p, p + kVocab);
}

TEST_F(VulkanLlmTest, TinyLlamaLogitsMatchTheOfficialRuntimeStepByStep) {
  const std::vector<int64_t> tokens = load_npy<int64_t>(kVulkanDir + "tiny_llama_vulkan/tokens.npy");
  const std::vector<float> want_all = load_npy<float>(kVulkanDir + "tiny_llama_vulkan/logits.npy");
  ASSERT_GE(tokens.size(), 6u);
  ASSERT_EQ(want_all.size(), tokens.size() * kVocab);
  Module m(kLlama, {}, vulkan_options());
  char message[2048];
  ErrorCapture capture(message, sizeof(message));
  for (size_t t = 0; t < tokens.size(); ++t) {
    SCOPED_TRACE("position " + std::to_string(t));
    Result<std::vector<float>> got = step(m, tokens[t], static_cast<int64_t>(t));
    ASSERT_TRUE(got.ok()) << to_string(got.error()) << ": " << capture.message();
    const float* want = want_all.data() + t * kVocab;
    double scale = 0, max_diff = 0;
    for (size_t i = 0; i < kVocab; ++i) {
      scale = std::max(scale, std::abs(static_cast<double>(want[i])));
      max_diff = std::max(max_diff, std::abs(static_cast<double>((*got)[i]) - want[i]));
    }
    EXPECT_LE(max_diff, 2e-3 * scale) << "max |logit| " << scale;
    EXPECT_EQ(std::max_element(got->begin(), got->end()) - got->begin(),
              std::max_element(want, want + kVocab) - want);
    std::printf("[ info ] step %zu: max |vulkan - official| %.3g (%.2g of max |logit| %.3g)\n",
                t, max_diff, max_diff / scale, scale);
  }
}

llm::GenerationConfig greedy() {
  llm::GenerationConfig c;
  c.temperature = 0.0f;
  c.max_new_tokens = 16;
  return c;
}

TEST_F(VulkanLlmTest, TinyLlamaGreedyTokensEqualTheOfficialRunners) {
  const std::vector<int64_t> prompt = load_npy<int64_t>(kLlmDir + "refs/prompt_ids.npy");
  const std::vector<int64_t> want = load_npy<int64_t>(kLlmDir + "refs/portable_greedy.npy");
  ASSERT_FALSE(prompt.empty());
  ASSERT_FALSE(want.empty());
  {
    SCOPED_TRACE("Module loop, one token per call");
    Module m(kLlama, {}, vulkan_options());
    std::vector<int64_t> got;
    int64_t pos = 0;
    for (size_t i = 0; i + 1 < prompt.size(); ++i) ASSERT_TRUE(step(m, prompt[i], pos++).ok());
    int64_t feed = prompt.back();
    while (got.size() < 16) {
      Result<std::vector<float>> logits = step(m, feed, pos++);
      ASSERT_TRUE(logits.ok()) << to_string(logits.error());
      feed = std::max_element(logits->begin(), logits->end()) - logits->begin();
      got.push_back(feed);
      if (feed == 2) break;
    }
    EXPECT_EQ(got, want);
  }
  llm::TextGenerator gen(kLlama, vulkan_options());
  ASSERT_EQ(gen.load(), Error::Ok);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "TextGenerator, first generate" : "TextGenerator, after reset()");
    std::vector<int64_t> got;
    ASSERT_EQ(gen.generate(prompt, greedy(), [&](int64_t id) { got.push_back(id); }), Error::Ok);
    EXPECT_EQ(got, want);
    gen.reset();
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
