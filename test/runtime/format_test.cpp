// format_message (runtime/platform/format.h), the bare-metal log formatter,
// against the host C library's snprintf on the conversions the runtime uses.
#include "runtime/platform/format.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace etr {
namespace {

#define EXPECT_SAME_AS_PRINTF(...)                                              \
  do {                                                                          \
    char ours[128];                                                             \
    char libc[128];                                                             \
    const size_t n = internal::format_message(ours, sizeof(ours), __VA_ARGS__); \
    const int m = std::snprintf(libc, sizeof(libc), __VA_ARGS__);               \
    EXPECT_STREQ(ours, libc);                                                   \
    EXPECT_EQ(n, static_cast<size_t>(m)) << libc;                               \
  } while (0)

TEST(FormatMessageTest, IntegersMatchPrintf) {
  EXPECT_SAME_AS_PRINTF("%d %i %u", 0, -17, 42u);
  EXPECT_SAME_AS_PRINTF("%zu/%zu", size_t{0}, std::numeric_limits<size_t>::max());
  EXPECT_SAME_AS_PRINTF("%" PRId64 " %" PRIu64, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<uint64_t>::max());
  EXPECT_SAME_AS_PRINTF("%" PRId32 " %" PRIu32 " %" PRIx32, int32_t{-5}, uint32_t{7},
                        uint32_t{0xBEEF});
  EXPECT_SAME_AS_PRINTF("%lld %llu %ld %lu", -1LL, 18ULL, -3L, 9UL);
  EXPECT_SAME_AS_PRINTF("[%5d] [%-5d] [%05d] [%+d] [% d] [%.3d]", 42, 42, -42, 7, 7, 5);
  EXPECT_SAME_AS_PRINTF("%x %X %02x %08X %o", 255u, 255u, 10u, 0xABCu, 8u);
  // %hhu / %hd take an int and convert it: 300 prints as 44. clang's -Wformat
  // wants the argument's type to match the length modifier; C does not.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
  EXPECT_SAME_AS_PRINTF("%td %jd %hhu %hd", ptrdiff_t{-9}, intmax_t{12}, 300, 5);
#pragma GCC diagnostic pop
}

TEST(FormatMessageTest, StringsAndCharsMatchPrintf) {
  EXPECT_SAME_AS_PRINTF("%s|%.4s|%8s|%-8s|%c|%%", "abc", "abcdefgh", "ab", "ab", 'z');
  EXPECT_SAME_AS_PRINTF("%*d|%-*s|%.*s", 6, 3, 4, "x", 2, "hello");
}

TEST(FormatMessageTest, PointerIsHex) {
  char ours[64];
  int x = 0;
  internal::format_message(ours, sizeof(ours), "%p", static_cast<void*>(&x));
  EXPECT_EQ(std::strtoull(ours, nullptr, 16), reinterpret_cast<uintptr_t>(&x)) << ours;
}

TEST(FormatMessageTest, FloatsInGeneralNotation) {
  EXPECT_SAME_AS_PRINTF("%g %g %g %g %g", 0.0, 1.0, 0.5, -2.5, 100.0);
  EXPECT_SAME_AS_PRINTF("%g %g %g", 123456.0, 1234567.0, 1e-7);
  EXPECT_SAME_AS_PRINTF("%g %g %g", 3.0e38, 1e300, 0.0001);
  EXPECT_SAME_AS_PRINTF("%.9g %.3g", 0.25, 2.0 / 3.0);
  EXPECT_SAME_AS_PRINTF("%g %g", std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity());
  char ours[64];
  internal::format_message(ours, sizeof(ours), "%g", std::nan(""));
  EXPECT_STREQ(ours, "nan");
  // Digits come from scaling, so only closeness is promised in general.
  for (double v : {3.14159265, 1.0 / 3.0, 6.02214076e23, 1.602e-19, 65504.0}) {
    internal::format_message(ours, sizeof(ours), "%g", v);
    EXPECT_NEAR(std::strtod(ours, nullptr), v, std::abs(v) * 1e-5) << ours;
  }
}

TEST(FormatMessageTest, TruncatesAndReportsTheFullLength) {
  char small[6];
  EXPECT_EQ(internal::format_message(small, sizeof(small), "%s-%zu", "abcdef", size_t{12}), 9u);
  EXPECT_STREQ(small, "abcde");
  char none[1] = {'x'};
  EXPECT_EQ(internal::format_message(none, sizeof(none), "%d", 1234), 4u);
  EXPECT_EQ(none[0], '\0');
  EXPECT_EQ(internal::format_message(nullptr, 0, "%d", 1234), 4u);
}

}  // namespace
}  // namespace etr
