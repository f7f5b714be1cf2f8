// llama2.c `tokenizer.bin` files as the official runner reads them (pytorch
// tokenizers' Llama2cTokenizer; written by its llama2c/convert.py from a
// SentencePiece model). Little-endian layout:
//   int32 vocab_size, int32 bos_id, int32 eos_id, int32 max_token_length,
//   then per token: float32 score, int32 length, `length` bytes of text.
// The header's vocab_size is the vocabulary's size; a file that ends at a
// token boundary before that many tokens is padded with "<pad>" tokens
// (score 0), as the official reader does. Every count and length is checked
// against the file: a bad one is an error naming the file and the offset.
//
// Encode is llama2.c's: BOS ids, a dummy-prefix " " token, one token per
// UTF-8 character (up to 4 bytes) found in the vocabulary, else one byte
// token per byte with id byte + 3 (<0x00> is id 3 in SentencePiece models),
// then repeatedly merge the adjacent pair whose joined text is a token with
// the highest score (the leftmost on a tie; scores at or below -1e10 never
// merge). The BOS tokens take part in the merges as the official reader's
// do. Text stops at its first NUL byte (the official reader uses C strings),
// and empty text is an error, as there.
// Decode drops one leading space of a piece after BOS, and a "<0xNN>" piece
// is the byte NN.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/tokenizers/tokenizer.h"

namespace etr {

class Llama2cTokenizer final : public Tokenizer {
 public:
  Llama2cTokenizer();
  ~Llama2cTokenizer() override;
  Llama2cTokenizer(Llama2cTokenizer&&) noexcept;
  Llama2cTokenizer& operator=(Llama2cTokenizer&&) noexcept;

  static TokenizerResult<Llama2cTokenizer> load(const std::string& path);
  // Parses file bytes held in memory; `name` stands for the file in messages.
  static TokenizerResult<Llama2cTokenizer> load_from_string(const std::string& bytes,
                                                            const std::string& name = "<memory>");

  const char* kind() const override { return "llama2c"; }
  TokenizerResult<std::vector<int32_t>> encode(const std::string& text, int bos,
                                               int eos) const override;
  TokenizerResult<std::string> decode(int32_t prev_id, int32_t id) const override;

  int32_t vocab_size() const override;
  int32_t bos_id() const override;
  int32_t eos_id() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etr
