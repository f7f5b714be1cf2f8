#include "extension/llm/utf8_stream.h"

namespace etr {
namespace llm {
namespace {

// Length of the character a lead byte starts; 0 for a continuation byte or
// a byte no character starts with.
size_t sequence_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

std::string Utf8Stream::push(const std::string& piece) {
  held_ += piece;
  // Walk whole characters; stop at one that is cut off by the end.
  size_t i = 0;
  while (i < held_.size()) {
    const size_t n = sequence_length(static_cast<unsigned char>(held_[i]));
    if (n <= 1) {  // ASCII, or a byte no character starts with: pass it on
      ++i;
      continue;
    }
    size_t have = 1;
    while (have < n && i + have < held_.size() &&
           is_continuation(static_cast<unsigned char>(held_[i + have]))) {
      ++have;
    }
    if (have == n) {
      i += n;
    } else if (i + have == held_.size()) {
      break;  // cut off by the end: wait for the next piece
    } else {
      i += have;  // broken sequence: pass its bytes on as they are
    }
  }
  std::string out = held_.substr(0, i);
  held_.erase(0, i);
  return out;
}

std::string Utf8Stream::flush() {
  std::string out;
  out.swap(held_);
  return out;
}

}  // namespace llm
}  // namespace etr
