#include "runtime/platform/platform.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "runtime/platform/default_hooks.h"
#include "runtime/platform/error_capture.h"
#include "runtime/platform/format.h"
#include "runtime/platform/log.h"

namespace etr {
namespace {

// Bare-metal builds without TLS define ETR_NO_THREAD_LOCAL (one thread).
#if defined(ETR_NO_THREAD_LOCAL)
ErrorCapture* t_capture = nullptr;
#else
thread_local ErrorCapture* t_capture = nullptr;
#endif

// Constant-initialized from the build's default hooks (default_posix.cpp or
// default_bare_metal.cpp, chosen by ETR_PLATFORM).
PlatformHooks g_hooks = {internal::default_log, internal::default_now_ns, internal::default_abort,
                         internal::default_allocate, internal::default_deallocate};

}  // namespace

void set_platform_hooks(const PlatformHooks& hooks) {
  if (hooks.log != nullptr) g_hooks.log = hooks.log;
  if (hooks.now_ns != nullptr) g_hooks.now_ns = hooks.now_ns;
  if (hooks.abort != nullptr) g_hooks.abort = hooks.abort;
  if (hooks.allocate != nullptr) g_hooks.allocate = hooks.allocate;
  if (hooks.deallocate != nullptr) g_hooks.deallocate = hooks.deallocate;
}

const PlatformHooks& platform_hooks() { return g_hooks; }
uint64_t platform_now_ns() { return g_hooks.now_ns(); }
void* platform_allocate(size_t size, size_t alignment) { return g_hooks.allocate(size, alignment); }
void platform_deallocate(void* ptr) { g_hooks.deallocate(ptr); }
void platform_abort(const char* reason) {
  g_hooks.abort(reason);
  std::abort();  // a hook that returns still must not return here
}

namespace internal {
void log_message(LogLevel level, const char* file, int line, const char* format, ...) {
  char buffer[320];
  va_list args;
  va_start(args, format);
#if defined(ETR_OWN_FORMAT)
  format_message(buffer, sizeof(buffer), format, args);
#else
  std::vsnprintf(buffer, sizeof(buffer), format, args);
#endif
  va_end(args);
  if (level == LogLevel::Error && t_capture != nullptr) t_capture->append(buffer);
  g_hooks.log(level, file, line, buffer);
}
}  // namespace internal

ErrorCapture::ErrorCapture(char* buffer, size_t capacity)
    : buffer_(buffer), capacity_(buffer == nullptr ? 0 : capacity), outer_(t_capture) {
  if (capacity_ != 0) buffer_[0] = '\0';
  t_capture = this;
}

ErrorCapture::~ErrorCapture() { t_capture = outer_; }

void ErrorCapture::clear() {
  length_ = 0;
  if (capacity_ != 0) buffer_[0] = '\0';
}

void ErrorCapture::append(const char* message) {
  if (capacity_ == 0) return;
  const char* sep = length_ == 0 ? "" : "; ";
  length_ += internal::format_message(buffer_ + length_, capacity_ - length_, "%s%s", sep, message);
  if (length_ >= capacity_) length_ = capacity_ - 1;
}

}  // namespace etr
