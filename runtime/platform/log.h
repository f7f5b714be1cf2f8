// Logging front end. Messages are formatted into a stack buffer and handed to
// the platform log hook. ETR_STRIP_LOGS=1 compiles every message away
// (format strings included), for microcontroller builds.
#pragma once

#include "runtime/platform/platform.h"

#ifndef ETR_STRIP_LOGS
#define ETR_STRIP_LOGS 0
#endif

namespace etr {
namespace internal {
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void log_message(LogLevel level, const char* file, int line, const char* format, ...);
}  // namespace internal
}  // namespace etr

// Only the file's base name is kept, so messages stay short and builds reproducible.
#if defined(__FILE_NAME__)
#define ETR_FILE_NAME __FILE_NAME__
#else
#define ETR_FILE_NAME __FILE__
#endif

namespace etr {
namespace internal {
// Swallows the arguments of a stripped log call so they still count as used;
// the call sits under `if (false)`, so neither it nor the strings survive.
template <typename... Args>
inline void discard_log(const Args&...) {}
}  // namespace internal
}  // namespace etr

#if ETR_STRIP_LOGS
#define ETR_LOG(level, ...)                      \
  do {                                           \
    if (false) {                                 \
      ::etr::internal::discard_log(__VA_ARGS__); \
    }                                            \
  } while (0)
#else
#define ETR_LOG(level, ...) \
  ::etr::internal::log_message(::etr::LogLevel::level, ETR_FILE_NAME, __LINE__, __VA_ARGS__)
#endif
