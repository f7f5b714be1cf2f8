// Compatibility layer (extension/compat): the official compiler macros
// (ET_NODISCARD, ET_UNLIKELY, ET_FUNCTION, ...), for GCC and Clang.
#pragma once

#include <cstddef>

#define ET_NODISCARD [[nodiscard]]
#define ET_DEPRECATED [[deprecated]]
#define ET_EXPERIMENTAL [[deprecated("This API is experimental and may change without notice.")]]
#define ET_FALLTHROUGH [[fallthrough]]
#define ET_UNUSED [[maybe_unused]]
#define ET_NORETURN [[noreturn]]
#define ET_NOINLINE __attribute__((noinline))
#define ET_INLINE __attribute__((always_inline)) inline
#define ET_INLINE_ATTRIBUTE __attribute__((always_inline))
#define ET_WEAK __attribute__((weak))
#define ET_UNREACHABLE() __builtin_unreachable()
#define ET_PRINTFLIKE(fmt_index, args_index) __attribute__((format(printf, fmt_index, args_index)))
// Used as `if ET_UNLIKELY (cond)`: the expansion carries its own parentheses.
#define ET_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define ET_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#define ET_FUNCTION __FUNCTION__
#define ET_LINE __LINE__
#if defined(__FILE_NAME__)
#define ET_SHORT_FILENAME __FILE_NAME__
#else
#define ET_SHORT_FILENAME __FILE__
#endif
#define ET_PRIsize_t "zu"
#define ET_HAVE_GNU_STATEMENT_EXPRESSIONS 1
#define ET_TRY_CLEAR_ERROR_CODE(x) (void)(x)
