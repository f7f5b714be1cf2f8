// Malformed-input sweep over the quantized KV cache programs
// (make_llm_quant_programs.py): seeded bit flips and overwritten 32-bit words
// in their flatbuffer part (tensor sizes, dtypes, dim orders, operator
// arguments of update_cache, update_cache_with_indices,
// custom_quantized_sdpa and the per-token quantization), each mutant loaded
// and executed with every kernel library registered. A mutant must end in an
// Error or a clean run; a crash, hang or sanitizer report fails the suite.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "runtime/platform/platform.h"
#include "test/support/exercise.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

class QuietLogs {
 public:
  QuietLogs() : previous_(platform_hooks().log) {
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

// The program's flatbuffer (and headers) lie in its first bytes; the rest
// is weight data, where a flip changes values only.
constexpr size_t kStructureBytes = 48 * 1024;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The runtime requires 16-byte-aligned program bytes.
testing::ExerciseStats exercise(const std::vector<uint8_t>& bytes) {
  void* copy = std::aligned_alloc(16, (bytes.size() + 16) & ~size_t{15});
  std::memcpy(copy, bytes.data(), bytes.size());
  testing::ExerciseStats stats;
  testing::exercise_program(static_cast<const uint8_t*>(copy), bytes.size(), &stats);
  std::free(copy);
  return stats;
}

class LlmQuantizedMalformedTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    testing::register_all_kernels();
    original_ = read_file(std::string(ETR_SOURCE_DIR) + "/kernels/llm/test/" + GetParam());
    ASSERT_GT(original_.size(), kStructureBytes) << GetParam();
  }
  std::vector<uint8_t> original_;
};

TEST_P(LlmQuantizedMalformedTest, TheUnmutatedProgramExecutes) {
  const testing::ExerciseStats stats = exercise(original_);
  EXPECT_EQ(stats.programs_loaded, 1u);
  EXPECT_GE(stats.executions_ok, 1u);
}

TEST_P(LlmQuantizedMalformedTest, BitFlipsAndOverwrittenWords) {
  QuietLogs quiet;
  std::mt19937 rng(20261127);
  const uint32_t kWords[] = {0u, 0xffffffffu, 0x7fffffffu, 0x80000000u, 1u, 2u, 16u, 0xfffffff0u};
  size_t errors = 0;
  for (int i = 0; i < 160; ++i) {
    std::vector<uint8_t> b = original_;
    if (i % 2 == 0) {
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        b[rng() % kStructureBytes] ^= static_cast<uint8_t>(1u << (rng() % 8));
      }
    } else {
      const size_t at = (rng() % (kStructureBytes / 4)) * 4;
      const uint32_t w = (i % 6 == 1) ? static_cast<uint32_t>(rng()) : kWords[rng() % 8];
      std::memcpy(b.data() + at, &w, 4);
    }
    errors += exercise(b).errors;
  }
  // Some mutants must have been refused: the sweep reached checks.
  EXPECT_GT(errors, 0u);
}

INSTANTIATE_TEST_SUITE_P(Programs, LlmQuantizedMalformedTest,
                         ::testing::Values("llm_quant_kv_llama.pte",
                                           "llm_quant_kv_no_sdpa_llama.pte",
                                           "llm_quant_kv_ring_llama.pte"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string n = p.param;
                           return n.substr(0, n.size() - 4);
                         });

}  // namespace
}  // namespace etr
