// Malformed-input sweep: every fixture truncated at many offsets, with
// seeded bit flips, and with seeded overwritten 32-bit words. Each mutant must
// end in an Error or a clean run; a crash, hang or sanitizer report fails the
// suite (CI runs it under ASan+UBSan).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test/runtime/runtime_test_util.h"
#include "test/support/exercise.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

using testing::AlignedBytes;

class QuietLogs {
 public:
  QuietLogs() {
    previous_ = platform_hooks().log;
    PlatformHooks h{};
    h.log = [](LogLevel, const char*, int, const char*) {};
    set_platform_hooks(h);
  }
  ~QuietLogs() {
    PlatformHooks h{};
    h.log = previous_;
    set_platform_hooks(h);
  }

 private:
  void (*previous_)(LogLevel, const char*, int, const char*);
};

class MalformedTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    testing::register_all_kernels();
    original_ = testing::read_aligned_file(testing::model_path(GetParam()));
    ASSERT_GT(original_.size(), 0u) << "committed fixture missing or empty: " << GetParam();
  }
  void run(const std::vector<uint8_t>& bytes, size_t size) {
    AlignedBytes copy(size);
    if (size != 0) std::memcpy(copy.data(), bytes.data(), size);
    testing::exercise_program(copy.data(), size, &stats_);
    ++mutants_;
  }
  std::vector<uint8_t> bytes() const {
    return std::vector<uint8_t>(original_.data(), original_.data() + original_.size());
  }
  AlignedBytes original_;
  testing::ExerciseStats stats_;
  size_t mutants_ = 0;
};

TEST_P(MalformedTest, Truncations) {
  QuietLogs quiet;
  const std::vector<uint8_t> b = bytes();
  const size_t n = b.size();
  for (size_t k = 0; k < 64; ++k) run(b, n * k / 64);
  for (size_t cut = 0; cut < 80 && cut < n; ++cut) run(b, cut);  // every header byte
  EXPECT_GT(stats_.errors, 0u);
  RecordProperty("mutants", static_cast<int>(mutants_));
}

TEST_P(MalformedTest, BitFlips) {
  QuietLogs quiet;
  std::mt19937 rng(1234 + static_cast<unsigned>(std::string(GetParam()).size()));
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> b = bytes();
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const size_t at = rng() % b.size();
      b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    run(b, b.size());
  }
  RecordProperty("mutants", static_cast<int>(mutants_));
}

TEST_P(MalformedTest, OverwrittenWords) {
  QuietLogs quiet;
  std::mt19937 rng(99);
  const uint32_t kWords[] = {0u, 0xffffffffu, 0x7fffffffu, 0x80000000u, 1u, 0xfffffff0u, 16u};
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> b = bytes();
    const size_t at = (rng() % (b.size() / 4)) * 4;
    uint32_t w = (i % 3 == 0) ? static_cast<uint32_t>(rng()) : kWords[rng() % 7];
    std::memcpy(b.data() + at, &w, 4);
    run(b, b.size());
  }
  RecordProperty("mutants", static_cast<int>(mutants_));
}

std::string fixture_name(const ::testing::TestParamInfo<const char*>& param_info) {
  const std::string n = param_info.param;
  return n.substr(0, n.size() - 4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MalformedTest, ::testing::ValuesIn(testing::kFixtureFiles),
                         fixture_name);

// Programs from ExecuTorch's LLM exporter (test/models/llm): llama::
// custom_sdpa / update_cache on the KV-cache buffers, the mutable data of an
// attention-sink ring buffer (update_cache_with_indices), 4-bit embeddings
// with XNNPACK 8da4w linear layers.
constexpr const char* kLlmFixtures[] = {"llm/tiny_llama_portable.pte",
                                        "llm/tiny_llama_attention_sink.pte",
                                        "llm/tiny_llama_8da4w_g32_emb4.pte"};

std::string llm_fixture_name(const ::testing::TestParamInfo<const char*>& param_info) {
  const std::string n = param_info.param;
  return n.substr(4, n.size() - 8);  // without "llm/" and ".pte"
}

INSTANTIATE_TEST_SUITE_P(LlmFixtures, MalformedTest, ::testing::ValuesIn(kLlmFixtures),
                         llm_fixture_name);

}  // namespace
}  // namespace etr
