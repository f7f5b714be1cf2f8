// Compatibility layer (extension/compat): ET_LOG(level, format, ...), the
// official logging macro. Messages go through pal_emit_log_message() (by
// default etr's log hook, so etr and official-API messages share one sink).
// Levels below ET_MIN_LOG_LEVEL (default Info) are dropped; ET_LOG_ENABLED=0
// compiles every message away.
#pragma once

#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/types.h>

#include <cinttypes>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#ifndef ET_MIN_LOG_LEVEL
#define ET_MIN_LOG_LEVEL Info
#endif
#ifndef ET_LOG_ENABLED
#define ET_LOG_ENABLED 1
#endif

namespace executorch {
namespace runtime {

enum class LogLevel : uint8_t {
  Debug,
  Info,
  Error,
  Fatal,
  NumLevels,
};

namespace internal {

et_timestamp_t get_log_timestamp();

ET_PRINTFLIKE(6, 0)
void vlogf(LogLevel level, et_timestamp_t timestamp, const char* filename, const char* function,
           size_t line, const char* format, va_list args);

ET_PRINTFLIKE(6, 7)
inline void logf(LogLevel level, et_timestamp_t timestamp, const char* filename,
                 const char* function, size_t line, const char* format, ...) {
#if ET_LOG_ENABLED
  va_list args;
  va_start(args, format);
  vlogf(level, timestamp, filename, function, line, format, args);
  va_end(args);
#else
  (void)level, (void)timestamp, (void)filename, (void)function, (void)line, (void)format;
#endif
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::LogLevel;
}  // namespace executor
}  // namespace torch

#if ET_LOG_ENABLED
#define ET_LOG(_level, _format, ...)                                                              \
  do {                                                                                            \
    const auto et_log_level_ = ::executorch::runtime::LogLevel::_level;                           \
    if (static_cast<uint32_t>(et_log_level_) >=                                                   \
        static_cast<uint32_t>(::executorch::runtime::LogLevel::ET_MIN_LOG_LEVEL)) {               \
      ::executorch::runtime::internal::logf(                                                      \
          et_log_level_, ::executorch::runtime::internal::get_log_timestamp(), ET_SHORT_FILENAME, \
          ET_FUNCTION, ET_LINE, _format, ##__VA_ARGS__);                                          \
    }                                                                                             \
  } while (0)
#define ET_CHECK_OR_LOG_ERROR(_condition, _format, ...) \
  do {                                                  \
    if (!(_condition)) {                                \
      ET_LOG(Error, _format, ##__VA_ARGS__);            \
    }                                                   \
  } while (0)
#else
#define ET_LOG(_level, _format, ...) ((void)0)
#define ET_CHECK_OR_LOG_ERROR(_condition, _format, ...) ((void)0)
#endif
