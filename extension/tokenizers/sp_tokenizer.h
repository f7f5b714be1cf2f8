// SentencePiece `tokenizer.model` files (Llama 2, Mistral, Gemma 1 style BPE
// or unigram models), read by Debian's libsentencepiece: encode is the
// library's own, so normalization, the dummy prefix and byte fallback are
// exactly the `sentencepiece` package's. Built only when the library is
// found (extension/tokenizers/CMakeLists.txt); load_tokenizer() then tries it
// after tiktoken, as the official runner does.
//
// decode(prev, id) follows the official runner's streaming rule: a piece's
// "\xE2\x96\x81" (U+2581) becomes a space, and one leading space is dropped
// when the previous token is BOS (the dummy prefix). Unlike the official
// runner, which prints byte tokens other than <0x0A> as their "<0xNN>" text and
// control tokens as a space, byte tokens give their byte and control tokens
// (<s>, </s>) nothing, as the `sentencepiece` package's decode does; the
// unknown token gives its " \xE2\x81\x87 " surface, as the package does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/tokenizers/tokenizer.h"

namespace etr {

class SpTokenizer final : public Tokenizer {
 public:
  SpTokenizer();
  ~SpTokenizer() override;
  SpTokenizer(SpTokenizer&&) noexcept;
  SpTokenizer& operator=(SpTokenizer&&) noexcept;

  // Reads a SentencePiece model file.
  static TokenizerResult<SpTokenizer> load(const std::string& path);
  // Parses a serialized model held in memory; `name` stands for the file in messages.
  static TokenizerResult<SpTokenizer> load_from_string(const std::string& model,
                                                       const std::string& name = "<memory>");

  const char* kind() const override { return "sentencepiece"; }
  TokenizerResult<std::vector<int32_t>> encode(const std::string& text, int bos,
                                               int eos) const override;
  TokenizerResult<std::string> decode(int32_t prev_id, int32_t id) const override;

  int32_t vocab_size() const override;
  // The model's BOS/EOS pieces, -1 when the model has none.
  int32_t bos_id() const override;
  int32_t eos_id() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etr
