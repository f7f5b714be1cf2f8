// Half (IEEE binary16) and BFloat16 element types: 16-bit storage, and the
// conversions PyTorch uses on CPU.
//
//   float -> Half:      round to nearest even; overflow (|x| >= 65520) gives
//                       +-inf, NaN a quiet NaN with its sign (0x7e00).
//   float -> BFloat16:  round to nearest even on the top 16 bits; NaN gives
//                       0x7fc0.
//   Half/BFloat16 -> float: exact.
// Arithmetic is done in float: a Half operand converts implicitly to float,
// and a kernel that computes in float rounds once when it stores.
#pragma once

#include <cstdint>
#include <cstring>

namespace etr {

namespace internal {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (mag < 0x38800000u) {
    // Below the smallest normal half (2^-14): the result counts units of
    // 2^-24. Adding 0.5 (whose ulp is 2^-24) lets the FPU round to nearest
    // even; the low bits of the sum are then the half's mantissa (a carry
    // into bit 10 gives the smallest normal, which is the right encoding).
    const float shifted = bits_float(mag) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(shifted) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to
  // nearest even; a mantissa carry moves into the exponent correctly.
  const uint32_t odd = (mag >> 13) & 1u;
  const uint32_t rounded = mag - 0x38000000u + 0xfffu + odd;
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign != 0 ? -v : v;
  }
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

inline uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;  // NaN
  const uint32_t odd = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7fffu + odd) >> 16);
}

inline float bfloat16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

}  // namespace internal

struct Half {
  uint16_t bits;
  Half() = default;
  explicit Half(float f) : bits(internal::float_to_half_bits(f)) {}
  operator float() const { return internal::half_bits_to_float(bits); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(internal::float_to_bfloat16_bits(f)) {}
  operator float() const { return internal::bfloat16_bits_to_float(bits); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit storage types");

}  // namespace etr
