// Overflow-checked size arithmetic. Every size computed from untrusted input
// goes through these.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {

// *out = a * b; returns false on overflow.
inline bool checked_mul(size_t a, size_t b, size_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_add(size_t a, size_t b, size_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool checked_mul_i64(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// True when [offset, offset + size) lies inside [0, limit).
inline bool range_within(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// Rounds `value` up to a multiple of `alignment` (a power of two); false on overflow.
inline bool align_up(size_t value, size_t alignment, size_t* out) {
  size_t bumped;
  if (!checked_add(value, alignment - 1, &bumped)) return false;
  *out = bumped & ~(alignment - 1);
  return true;
}

}  // namespace etr
