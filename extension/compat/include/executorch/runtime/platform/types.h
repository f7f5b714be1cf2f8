// Compatibility layer (extension/compat): the platform timestamp type.
#pragma once

#include <stdint.h>

extern "C" {
// Ticks of the platform clock (nanoseconds on etr's POSIX platform).
typedef uint64_t et_timestamp_t;
}
