// tiktoken tokenizers in the Llama 3 `tokenizer.model` format: one line per
// base token, "<base64 of the token's bytes> <rank>", the rank being the
// token's id and its merge priority (byte-level BPE: the lowest-ranked pair of
// adjacent parts merges first). As in the official runner (pytorch
// tokenizers' Tiktoken), the 256 Llama 3 special tokens follow the base
// vocabulary: <|begin_of_text|> (BOS), <|end_of_text|> (EOS),
// <|reserved_special_token_0|>, <|reserved_special_token_1|>,
// <|finetune_right_pad_id|>, <|step_id|>, <|start_header_id|>,
// <|end_header_id|>, <|eom_id|>, <|eot_id|>, <|python_tag|>, then
// <|reserved_special_token_2|> ... up to 256 in all, with ids N, N+1, ...
// where N is the number of base tokens. Special-token text in the input
// encodes to the special id; the rest is cut by the pre-tokenizer regex
// (PCRE2) and merged piece by piece.
//
// The ranks must be 0..N-1, each once, and every token distinct; anything
// else, or a line that is not "<base64> <decimal>", is an error naming the
// file and the line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/tokenizers/tokenizer.h"

namespace etr {

class TiktokenTokenizer final : public Tokenizer {
 public:
  // The official runner's pattern: Meta's Llama 3 pattern without its
  // "\s+(?!\S)" alternative (RE2, which the official reader uses, has no
  // lookahead). A run of spaces before a word therefore stays one piece
  // ("a   b" -> "a", "   ", "b") where the `tiktoken` package, given Meta's
  // pattern, gives "a", "  ", " b".
  static const char* official_pattern();
  // Meta's Llama 3 pattern (tokenizer.py; the `tiktoken` package's output).
  static const char* llama3_pattern();

  TiktokenTokenizer();
  ~TiktokenTokenizer() override;
  TiktokenTokenizer(TiktokenTokenizer&&) noexcept;
  TiktokenTokenizer& operator=(TiktokenTokenizer&&) noexcept;

  // Reads a ranks file; `pattern` is the pre-tokenizer regex.
  static TokenizerResult<TiktokenTokenizer> load(const std::string& path,
                                                 const std::string& pattern = official_pattern());
  // Parses ranks-file text held in memory; `name` stands for the file in messages.
  static TokenizerResult<TiktokenTokenizer> load_from_string(
      const std::string& text, const std::string& name = "<memory>",
      const std::string& pattern = official_pattern());

  const char* kind() const override { return "tiktoken"; }
  // Fails on text that is not valid UTF-8 (naming the byte offset).
  TokenizerResult<std::vector<int32_t>> encode(const std::string& text, int bos,
                                               int eos) const override;
  // A token's bytes do not depend on the previous token.
  TokenizerResult<std::string> decode(int32_t prev_id, int32_t id) const override;
  TokenizerResult<std::string> decode(int32_t id) const;

  // Base tokens plus the 256 special tokens.
  int32_t vocab_size() const override;
  int32_t bos_id() const override;
  int32_t eos_id() const override;
  // The id of a base token's bytes or of a special token's name, -1 when absent.
  int32_t token_to_id(const std::string& token) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etr
