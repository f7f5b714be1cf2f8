// Helpers the tiktoken, SentencePiece and llama2.c readers share (internal to
// extension/tokenizers): whole-file reads, UTF-8 checks and a PCRE2 regex
// that cuts text into the pieces it matches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace etr {
namespace tokenizer_util {

// Reads all of `path` into `out`; false (with `error` naming the file) when it
// cannot be opened or read, or is larger than `max_bytes`.
bool read_file(const std::string& path, size_t max_bytes, std::string* out, std::string* error);

// PCRE2 backtracking budget per match: this base plus kRegexStepsPerByte for
// each byte of the text, so a long whitespace run (\s*[\r\n]+ backtracks over
// the whole run) still matches while a hostile pattern fails instead of hanging.
constexpr uint64_t kRegexMatchLimit = 1000000;
constexpr uint64_t kRegexStepsPerByte = 64;

// Length of the valid UTF-8 character at s[i] (its code point in *cp), 0 when
// there is none there (truncated, overlong, surrogate, beyond U+10FFFF).
size_t utf8_char_len(const std::string& s, size_t i, uint32_t* cp);

// Appends code point `cp` (at most U+10FFFF) to `out` in UTF-8.
void append_utf8(std::string* out, uint32_t cp);

// Byte offset of the first invalid UTF-8 sequence in `s` (truncated,
// overlong, surrogate, beyond U+10FFFF), or npos.
size_t find_invalid_utf8(const std::string& s);

// A compiled PCRE2 pattern (UTF-8, Unicode properties) whose matches are the
// pre-tokenizer's pieces.
class RegexSplitter {
 public:
  RegexSplitter();
  ~RegexSplitter();
  RegexSplitter(RegexSplitter&&) noexcept;
  RegexSplitter& operator=(RegexSplitter&&) noexcept;

  // Compiles `pattern`; the message names the offset where it fails.
  bool compile(const std::string& pattern, std::string* error);
  // Appends the [begin, end) byte ranges of the non-empty matches in `text`
  // (valid UTF-8), as tiktoken's finditer does: text between matches is left
  // out (the Llama 3 pattern matches every character). The backtracking budget
  // grows with the text's length, so a long whitespace run still matches while
  // a runaway match is an error, never a hang.
  bool split(const std::string& text, std::vector<std::pair<size_t, size_t>>* pieces,
             std::string* error) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokenizer_util
}  // namespace etr
