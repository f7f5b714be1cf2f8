// Half and BFloat16 conversions against PyTorch. Expected bits: torch 2.15.0,
//   f = torch.tensor([v], dtype=torch.float32)
//   f.to(torch.float16).view(torch.int16), f.to(torch.bfloat16).view(torch.int16)
#include "runtime/core/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace etr {
namespace {

struct Case {
  uint32_t f32;
  uint16_t f16;
  uint16_t bf16;
};

constexpr Case kCases[] = {
    {0x00000000u, 0x0000u, 0x0000u},  // 0.0
    {0x80000000u, 0x8000u, 0x8000u},  // -0.0
    {0x3f800000u, 0x3c00u, 0x3f80u},  // 1.0
    {0xc0200000u, 0xc100u, 0xc020u},  // -2.5
    {0x477fe000u, 0x7bffu, 0x4780u},  // 65504.0 (largest half)
    {0x477feffdu, 0x7bffu, 0x4780u},  // 65519.99
    {0x477ff000u, 0x7c00u, 0x4780u},  // 65520.0 rounds to inf
    {0x49742400u, 0x7c00u, 0x4974u},  // 1e6
    {0x7f800000u, 0x7c00u, 0x7f80u},  // inf
    {0xff800000u, 0xfc00u, 0xff80u},  // -inf
    {0x38800000u, 0x0400u, 0x3880u},  // 2^-14, smallest normal half
    {0x33800000u, 0x0001u, 0x3380u},  // 2^-24, smallest subnormal half
    {0x33000000u, 0x0000u, 0x3300u},  // 2^-25: a tie, rounds to even (0)
    {0x33000001u, 0x0001u, 0x3300u},  // just above 2^-25
    {0x33c00000u, 0x0002u, 0x33c0u},  // 1.5 * 2^-24: a tie, rounds to even (2)
    {0x3f802000u, 0x3c01u, 0x3f80u},  // 1 + 2^-10
    {0x3f801000u, 0x3c00u, 0x3f80u},  // 1 + 2^-11: a tie, rounds to even
    {0x3f803000u, 0x3c02u, 0x3f80u},  // 1 + 3 * 2^-11: a tie, rounds up to even
    {0x3dcccccdu, 0x2e66u, 0x3dcdu},  // 0.1
    {0x40490fdbu, 0x4248u, 0x4049u},  // 3.14159265
    {0xaedbe6ffu, 0x8000u, 0xaedcu},  // -1e-10
    {0x3a83126fu, 0x1419u, 0x3a83u},  // 0.001
    {0x42f6e979u, 0x57b7u, 0x42f7u},  // 123.456
    {0x7f61b1e6u, 0x7c00u, 0x7f62u},  // 3e38
    {0x3f808000u, 0x3c04u, 0x3f80u},  // bfloat16 tie, rounds to even
    {0x3f818000u, 0x3c0cu, 0x3f82u},  // bfloat16 tie, rounds up to even
    {0x3f80ffffu, 0x3c08u, 0x3f81u},
    {0x7f7fffffu, 0x7c00u, 0x7f80u},  // FLT_MAX: bfloat16 rounds to inf
};

TEST(HalfTest, FloatToHalfAndBFloat16MatchPyTorch) {
  for (const Case& c : kCases) {
    const float f = internal::bits_float(c.f32);
    EXPECT_EQ(Half(f).bits, c.f16) << std::hex << "float bits 0x" << c.f32;
    EXPECT_EQ(BFloat16(f).bits, c.bf16) << std::hex << "float bits 0x" << c.f32;
  }
}

TEST(HalfTest, HalfToFloatIsExact) {
  // torch.tensor([bits], dtype=torch.int16).view(torch.float16).float()
  const struct {
    uint16_t h;
    uint32_t f;
  } cases[] = {{0x0001u, 0x33800000u}, {0x03ffu, 0x387fc000u}, {0x0400u, 0x38800000u},
               {0x7bffu, 0x477fe000u}, {0x8001u, 0xb3800000u}, {0x7c00u, 0x7f800000u},
               {0xfc00u, 0xff800000u}, {0x3555u, 0x3eaaa000u}, {0x8000u, 0x80000000u}};
  for (const auto& c : cases) {
    EXPECT_EQ(internal::float_bits(static_cast<float>(Half::from_bits(c.h))), c.f)
        << std::hex << "half 0x" << c.h;
  }
  // Every finite half survives float and back unchanged.
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) continue;  // NaN
    ASSERT_EQ(Half(static_cast<float>(Half::from_bits(h))).bits, h) << std::hex << b;
    ASSERT_EQ(BFloat16(static_cast<float>(BFloat16::from_bits(h))).bits, h) << std::hex << b;
  }
}

TEST(HalfTest, NaNStaysNaN) {
  const float nan = std::nanf("");
  EXPECT_EQ(Half(nan).bits, 0x7e00u);   // torch: float16 NaN is 0x7e00
  EXPECT_EQ(Half(-nan).bits, 0xfe00u);  // with its sign
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(nan))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half::from_bits(0x7c01u))));
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16::from_bits(0x7fc1u))));
}

}  // namespace
}  // namespace etr
