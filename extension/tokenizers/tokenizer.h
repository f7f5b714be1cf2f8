// The tokenizer interface an LLM runner uses, and load_tokenizer(), which
// picks the format from the file's contents the way the official runner
// does: a Hugging Face tokenizer.json first, then tiktoken (Llama 3
// tokenizer.model), SentencePiece (when built with libsentencepiece) and the
// llama2.c tokenizer.bin. Every implementation reports bad files and bad ids
// through TokenizerResult's message (it names the file and what is wrong),
// never by crashing.
//
//   auto tok = etr::load_tokenizer("tokenizer.json");
//   if (!tok.ok()) { std::fprintf(stderr, "%s\n", tok.error().c_str()); return 1; }
//   auto ids = tok.value()->encode("Hello", /*bos=*/1, /*eos=*/0);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace etr {

// A value or an error message.
template <typename T>
class TokenizerResult {
 public:
  TokenizerResult(T value) : ok_(true), value_(std::move(value)) {}  // NOLINT: implicit on purpose
  static TokenizerResult failure(std::string message) {
    TokenizerResult r;
    r.error_ = std::move(message);
    return r;
  }
  bool ok() const { return ok_; }
  const T& value() const { return value_; }
  T& value() { return value_; }
  const std::string& error() const { return error_; }

 private:
  TokenizerResult() = default;
  bool ok_ = false;
  T value_{};
  std::string error_;
};

class Tokenizer {
 public:
  virtual ~Tokenizer();

  // The format's short name: "hf" (tokenizer.json), "tiktoken",
  // "sentencepiece" or "llama2c".
  virtual const char* kind() const = 0;

  // Token ids for UTF-8 `text`: `bos` copies of the BOS id first, `eos`
  // copies of the EOS id last (an error when asked for one the file lacks).
  virtual TokenizerResult<std::vector<int32_t>> encode(const std::string& text, int bos,
                                                       int eos) const = 0;
  // The bytes `id` adds to the text when it follows `prev_id` (some formats
  // drop a leading space after BOS). A multi-byte UTF-8 character may be split
  // over several tokens: a streaming caller concatenates the pieces and
  // prints only whole characters.
  virtual TokenizerResult<std::string> decode(int32_t prev_id, int32_t id) const = 0;

  // One past the largest id.
  virtual int32_t vocab_size() const = 0;
  // BOS/EOS ids, -1 when the file names none.
  virtual int32_t bos_id() const = 0;
  virtual int32_t eos_id() const = 0;
};

// Reads `path` and returns the tokenizer its contents describe. The message
// of a failure names the file and, for a file that looks like one format but
// is broken, that format's complaint; a file no reader accepts gets one
// message with each format's complaint.
TokenizerResult<std::unique_ptr<Tokenizer>> load_tokenizer(const std::string& path);

}  // namespace etr
