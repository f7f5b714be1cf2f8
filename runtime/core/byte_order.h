// Little-endian integer reads from unaligned bytes: the fixed headers of
// .pte (eh00), .ptd (FH01) and XNNPACK payloads (XH00) store fields this way.
#pragma once

#include <cstdint>

namespace etr {

inline uint16_t read_le_u16(const uint8_t* p) {
  return static_cast<uint16_t>(uint16_t{p[0]} | (uint16_t{p[1]} << 8));
}
inline uint32_t read_le_u32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline uint64_t read_le_u64(const uint8_t* p) {
  return uint64_t{read_le_u32(p)} | (uint64_t{read_le_u32(p + 4)} << 32);
}

}  // namespace etr
