// Malformed-input sweeps over the official .bpte fixtures: every truncation
// and every single-byte corruption is accepted or refused with a message,
// never a crash; accepted files run every test case to the end.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test/bundled/bundled_test_util.h"

namespace etr {
namespace {

using bundled_test::AlignedBytes;

// Runs `bytes` through load, program load, method load, inputs, execute and
// compare; a refusal must come with a logged message.
void expect_handled(const AlignedBytes& bytes, const std::string& what, bool execute = true) {
  char why[1024];
  ErrorCapture capture(why, sizeof(why));
  const Error err = bundled_test::run_everything(bytes, nullptr, nullptr, execute);
  if (err != Error::Ok) {
    EXPECT_FALSE(capture.empty()) << what << ": " << to_string(err) << " without a message";
  }
}

class BundledSweepTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { testing::register_all_kernels(); }
};

TEST_P(BundledSweepTest, EveryTruncationIsHandled) {
  const AlignedBytes full = bundled_test::read_fixture(GetParam());
  ASSERT_GT(full.size(), 64u) << "committed fixture missing or short: " << GetParam();
  size_t refused = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    const AlignedBytes cut(full.data(), n);
    char why[512];
    ErrorCapture capture(why, sizeof(why));
    Result<BundledProgram> bp = BundledProgram::load(cut.data(), cut.size());
    if (!bp.ok()) {
      ++refused;
      EXPECT_FALSE(capture.empty()) << "truncated to " << n;
      continue;
    }
    expect_handled(cut, "truncated to " + std::to_string(n));
  }
  // Only cuts inside the writer's trailing padding can still verify.
  EXPECT_GE(refused + 32, full.size());
}

TEST_P(BundledSweepTest, EverySingleByteCorruptionIsHandled) {
  const AlignedBytes full = bundled_test::read_fixture(GetParam());
  ASSERT_GT(full.size(), 64u) << "committed fixture missing or short: " << GetParam();
  Result<BundledProgram> bp = BundledProgram::load(full.data(), full.size());
  ASSERT_TRUE(bp.ok());
  const size_t pte_begin = static_cast<size_t>(bp->program_data().data() - full.data());
  const size_t pte_end = pte_begin + bp->program_data().size();
  std::vector<uint8_t> bad = full.vec();
  for (size_t i = 0; i < bad.size(); ++i) {
    // A corrupted embedded program is loaded but not executed: a hostile
    // memory plan can alias a Bool tensor with other data, and the portable
    // kernels read Bool bytes as C++ bool (UBSan: "load of value 255"). That
    // belongs to the program fuzzer; here the container is under test.
    const bool execute = i < pte_begin || i >= pte_end;
    for (uint8_t x : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      if (std::getenv("ETR_DEBUG_BYTE") != nullptr) std::fprintf(stderr, "byte %zu ^ %d\n", i, x);
      bad[i] ^= x;
      expect_handled(AlignedBytes(bad), "byte " + std::to_string(i) + " ^ " + std::to_string(x),
                     execute);
      bad[i] ^= x;
    }
  }
}

// The official .bpte fixtures swept (test/models/bundled); each must be there
// (the tests assert its size).
constexpr const char* kSweptFixtures[] = {"mlp.bpte", "int_bool.bpte", "two_methods.bpte"};
static_assert(sizeof(kSweptFixtures) / sizeof(kSweptFixtures[0]) >= 3, "sweep lost fixtures");

INSTANTIATE_TEST_SUITE_P(Fixtures, BundledSweepTest, ::testing::ValuesIn(kSweptFixtures),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace etr
