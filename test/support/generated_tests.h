// The number of tests GoogleTest generated for one instantiation of a
// parameterized suite, so a suite whose cases come from files can assert it
// got all of them (an empty generator would otherwise pass with zero tests).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace etr {
namespace testing {

// Tests registered under `suite` ("Prefix/SuiteName", as INSTANTIATE_TEST_SUITE_P
// names it), whatever --gtest_filter selects; 0 when there is no such suite.
inline size_t generated_tests(const std::string& suite) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& s = *unit.GetTestSuite(i);
    if (suite == s.name()) return static_cast<size_t>(s.total_test_count());
  }
  return 0;
}

}  // namespace testing
}  // namespace etr
