// Every manifest line, in-process: load, set inputs, execute N times, and
// compare with PyTorch eager outputs.
#include "test/support/fixtures.h"

#include <gtest/gtest.h>

#include "test/support/generated_tests.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

class FixtureTest : public ::testing::TestWithParam<testing::FixtureCase> {};

TEST_P(FixtureTest, MatchesPyTorch) {
  const testing::FixtureCase& c = GetParam();
  testing::register_all_kernels();
  testing::LoadedMethod lm;
  const bool loaded = testing::load_fixture_method(c, &lm);
  if (c.expect_error == "missing_backend") {
    EXPECT_FALSE(loaded);
    EXPECT_EQ(lm.load_error, Error::BackendMissing);
    return;
  }
  ASSERT_TRUE(loaded) << lm.error;
  for (int i = 0; i < c.executions; ++i) {
    // Inputs are set before every execution, as PyTorch is called each time.
    ASSERT_TRUE(testing::set_fixture_inputs(c, &lm)) << lm.error;
    ASSERT_EQ(lm.method->execute(), Error::Ok) << "execution " << i;
  }
  EXPECT_EQ(testing::compare_outputs(c, *lm.method), "");
}

std::string case_name(const ::testing::TestParamInfo<testing::FixtureCase>& info) {
  std::string n = info.param.pte.substr(info.param.pte.rfind('/') + 1);
  n = n.substr(0, n.size() - 4) + "_" + info.param.method + "_" + std::to_string(info.index);
  for (char& ch : n) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Manifest, FixtureTest, ::testing::ValuesIn(testing::load_manifest()),
                         case_name);

// A missing or malformed manifest gives no cases above (load_manifest prints
// why): the suite must still fail.
TEST(FixtureManifestTest, EveryCheckIsACase) {
  EXPECT_GE(testing::generated_tests("Manifest/FixtureTest"), testing::kMinManifestCases);
}

}  // namespace
}  // namespace etr
