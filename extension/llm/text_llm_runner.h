// TextLLMRunner: text in, text out, for an LLM exported by ExecuTorch's LLM
// exporter, with the shape of the official runner
// (executorch/extension/llm/runner/text_llm_runner.h).
//
//   etr::llm::TextLLMRunner runner("llama.pte", "tokenizer.json");
//   etr::llm::GenerationConfig config;
//   config.max_new_tokens = 32;
//   config.temperature = 0;  // greedy
//   Error e = runner.generate("Once upon a time", config,
//                             [](const std::string& piece) { std::fputs(piece.c_str(), stdout); },
//                             [](const etr::llm::RunnerStats& s) { ... });
//
// load() opens the tokenizer (load_tokenizer(): the format is detected from
// the file) and the program, and reads the program's metadata methods
// through TextGenerator (get_max_seq_len is required, as in the official
// runner). The ids that end generation are the program's get_eos_ids, or the
// tokenizer's EOS id when the program has no such method.
//
// generate() encodes the prompt with config.num_bos / num_eos BOS / EOS
// copies (0 by default, as in the official runner), checks that it leaves
// room in the context (an error otherwise: it must be shorter than the free
// context), resolves the number of tokens to generate with
// GenerationConfig::resolve_max_new_tokens (max_new_tokens past the context
// is lowered to what fits, as the official runner does, and logged), then
// generates. Each generated token's text goes to token_callback as soon as
// it completes a UTF-8 character; with config.echo the prompt text goes
// first. The stats (RunnerStats) go to stats_callback at the end (counted
// as the official runner counts them: generated tokens after the first).
//
// Chat: the position carries over between generate() calls, and unlike the
// official runner the last generated token is fed in front of the next
// prompt, so generate(a) then generate(b) equals one generation over
// a + its output + b. An empty prompt continues the generation. prefill()
// feeds text without generating; reset() starts again at position 0.
//
// Every failure returns an Error and logs what failed, naming the file or
// the argument (an ErrorCapture collects the messages).
//
// Desktop extension: heap and standard library, no exceptions; not
// thread-safe except stop(), which may be called from a callback or another
// thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "extension/llm/stats.h"
#include "extension/llm/text_generator.h"
#include "extension/tokenizers/tokenizer.h"
#include "runtime/core/error.h"

namespace etr {
namespace llm {

class TextLLMRunner final {
 public:
  // `data_path`: a .ptd with the program's external weights ("" for none).
  TextLLMRunner(std::string model_path, std::string tokenizer_path, std::string data_path = "",
                ModuleOptions options = {});

  // Loads the tokenizer, the program and its metadata (once). Fails with
  // AccessFailed for a missing file, InvalidArgument for a file that is not a
  // tokenizer, NotSupported for a program without get_max_seq_len, and the
  // errors of TextGenerator::load().
  [[nodiscard]] Error load();
  bool is_loaded() const { return loaded_; }

  [[nodiscard]] Error generate(const std::string& prompt, const GenerationConfig& config,
                               const std::function<void(const std::string&)>& token_callback = {},
                               const std::function<void(const RunnerStats&)>& stats_callback = {});
  // Feeds the encoded `prompt` (config.num_bos / num_eos apply) to the cache
  // without generating; the next generate() continues after it.
  [[nodiscard]] Error prefill(const std::string& prompt, const GenerationConfig& config = {});
  // Generates `max_new_tokens` after `prompt` without passing anything on,
  // then reset() (the official runner's warmup).
  [[nodiscard]] Error warmup(const std::string& prompt, int32_t max_new_tokens);

  // Ends generate() after the token being passed on.
  void stop() { generator_.stop(); }
  // Position 0 and zeroed stats (the load times stay).
  void reset();

  // The model's get_vocab_size (the tokenizer's where the model has none);
  // -1 before load().
  int64_t vocab_size() const;
  const LlmMetadata& metadata() const { return generator_.metadata(); }
  // The ids that end generation.
  const std::vector<int64_t>& eos_ids() const { return generator_.metadata().eos_ids; }
  const Tokenizer* tokenizer() const { return tokenizer_.get(); }
  const RunnerStats& stats() const { return stats_; }
  // Tokens in the cache.
  int64_t position() const { return generator_.position(); }
  // The ids the last generate() produced, in order.
  const std::vector<int64_t>& generated_ids() const { return generated_; }
  // The ids the last generate() or prefill() encoded from its prompt text.
  const std::vector<int64_t>& prompt_ids() const { return prompt_ids_; }
  TextGenerator& generator() { return generator_; }

 private:
  Error encode(const std::string& prompt, const GenerationConfig& config);

  std::string model_path_;
  std::string tokenizer_path_;
  std::string data_path_;
  TextGenerator generator_;
  std::unique_ptr<Tokenizer> tokenizer_;
  bool loaded_ = false;
  RunnerStats stats_;
  std::vector<int64_t> generated_;
  std::vector<int64_t> prompt_ids_;
};

}  // namespace llm
}  // namespace etr
