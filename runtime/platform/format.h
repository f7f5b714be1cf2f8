// A small vsnprintf for log messages, used on bare-metal targets, whose C
// libraries (newlib-nano) lack C99 length modifiers such as %zu and pull in
// a large formatter. Supports flags - 0 + space, width and precision (also
// *), lengths hh h l ll z j t, and d i u x X o c s p %; every float
// conversion (f e g) prints in %g style (digits may differ from printf's in
// the last place). Always NUL-terminates when cap > 0; returns the length
// the whole message needed, like snprintf.
#pragma once

#include <cstdarg>
#include <cstddef>

namespace etr {
namespace internal {

size_t format_message(char* buf, size_t cap, const char* fmt, va_list args);
size_t format_message(char* buf, size_t cap, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

}  // namespace internal
}  // namespace etr
