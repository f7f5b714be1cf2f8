// ErrorCapture: lets a caller receive the messages of a failing call without
// replacing the process-wide log hook.
//
//   char buf[512];
//   etr::ErrorCapture capture(buf, sizeof(buf));
//   etr::Result<etr::Method> m = program.load_method("forward", &memory);
//   if (!m.ok()) show(capture.message());   // "what failed and where"
//
// While a capture is alive on a thread, every Error-level message logged on
// that thread is appended to its buffer (innermost first, joined by "; "),
// truncated to the buffer; messages still reach the log hook. Captures nest:
// the innermost one receives the messages and restores the outer one when it
// is destroyed. With ETR_STRIP_LOGS=1 no message exists and the buffer stays
// empty. Does not take ownership; `buffer` must outlive the capture.
#pragma once

#include <cstddef>

namespace etr {

class ErrorCapture final {
 public:
  ErrorCapture(char* buffer, size_t capacity);
  ~ErrorCapture();
  ErrorCapture(const ErrorCapture&) = delete;
  ErrorCapture& operator=(const ErrorCapture&) = delete;

  // The messages captured so far ("" when none).
  const char* message() const { return capacity_ == 0 ? "" : buffer_; }
  bool empty() const { return length_ == 0; }
  // Forgets the messages captured so far.
  void clear();

  // Internal: appends one message.
  void append(const char* message);

 private:
  char* buffer_;
  size_t capacity_;
  size_t length_ = 0;
  ErrorCapture* outer_;
};

}  // namespace etr
