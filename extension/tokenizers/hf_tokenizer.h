// Hugging Face `tokenizer.json` byte-level BPE tokenizers (GPT-2, Llama 3,
// Qwen style), the text side of an LLM runner.
//
// Supported file contents:
//   model: type "BPE" (vocab + merges, merges as "a b" strings or [a, b]
//     pairs), ignore_merges; no dropout, unk-free byte-level vocabularies.
//   pre_tokenizer: ByteLevel (GPT-2 regex unless use_regex is false,
//     add_prefix_space), Split with a Regex or String pattern and the
//     Isolated or Removed behaviour, and a Sequence of those with ByteLevel
//     last (as Llama 3 and Qwen files have). ByteLevel must appear: the
//     vocabulary is in the GPT-2 byte-to-unicode alphabet.
//   added_tokens: matched in the text before pre-tokenization (longest
//     match first), lstrip/rstrip taking the whitespace around them;
//     single_word is not applied.
//   normalizer: none, or NFC (Qwen): NFC is checked, not applied: encode()
//     refuses text that the Unicode NFC quick check cannot confirm to be in
//     NFC already (most text is); other normalizers are rejected at load.
//   decoder: none or ByteLevel.
//   post_processor: only read to find the BOS/EOS tokens of a
//     TemplateProcessing "single" template.
// Anything else, or a malformed file, is an error whose message names the
// file and what is wrong; nothing here crashes on bad input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "extension/tokenizers/tokenizer.h"

namespace etr {

class HfTokenizer final : public Tokenizer {
 public:
  HfTokenizer();
  ~HfTokenizer() override;
  HfTokenizer(HfTokenizer&&) noexcept;
  HfTokenizer& operator=(HfTokenizer&&) noexcept;

  // Reads and checks a tokenizer.json file.
  static TokenizerResult<HfTokenizer> load(const std::string& path);
  // Parses tokenizer.json text held in memory; `name` stands for the file in messages.
  static TokenizerResult<HfTokenizer> load_from_string(const std::string& json_text,
                                                       const std::string& name = "<memory>");

  // Token ids for UTF-8 `text`, with the BOS id first and/or the EOS id last
  // when asked (an error if the file names no such token). Fails on text that
  // is not valid UTF-8.
  TokenizerResult<std::vector<int32_t>> encode(const std::string& text, int bos = 0,
                                               int eos = 0) const override;
  const char* kind() const override { return "hf"; }
  // decode(id): byte-level BPE pieces do not depend on the previous token.
  TokenizerResult<std::string> decode(int32_t prev_id, int32_t id) const override;
  // The bytes of one token. A multi-byte UTF-8 character may be split over
  // several tokens: a streaming caller concatenates the pieces.
  TokenizerResult<std::string> decode(int32_t id) const;
  // The text of a token sequence (special tokens included as their content).
  TokenizerResult<std::string> decode(const std::vector<int32_t>& ids) const;

  // One past the largest id of the vocabulary and the added tokens.
  int32_t vocab_size() const override;
  // The BOS/EOS ids, -1 when the file names none: taken from the
  // post-processor's template, else from well-known special token names
  // (<|begin_of_text|>, <s>, <|end_of_text|>, </s>, <|endoftext|>, ...).
  int32_t bos_id() const override;
  int32_t eos_id() const override;
  // The id of a vocabulary or added token, -1 when absent.
  int32_t token_to_id(const std::string& token) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etr
