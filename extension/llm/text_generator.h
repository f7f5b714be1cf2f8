// TextGenerator: the generation loop of a text LLM exported by ExecuTorch's
// LLM exporter, over token ids (no tokenizer yet).
//
//   etr::llm::TextGenerator gen("llama.pte");
//   etr::llm::GenerationConfig config;
//   config.max_new_tokens = 32;
//   config.temperature = 0;  // greedy
//   Error e = gen.generate({1, 5, 9}, config, [](int64_t id) { std::printf("%lld ", (long long)id);
//   });
//
// The program's `forward(tokens Long[1, S], input_pos Long[1]) -> logits`
// keeps its KV cache in the method's memory between calls. A program exported
// without a KV cache (`forward(tokens Long[1, S])`, use_kv_cache false) gets
// the whole sequence so far on every call instead, as the official runner
// does; its context is then at most the token input's length. load() reads the
// metadata methods the exporter writes (get_bos_id, get_eos_ids,
// get_max_seq_len, get_max_context_len, get_vocab_size, use_kv_cache,
// enable_dynamic_shape); a missing one gets a default (see LlmMetadata).
//
// generate() prefills the prompt in one forward call when the token input's
// sequence dimension is dynamic (in chunks of at most max_seq_len tokens),
// one token per call otherwise, then samples and feeds back one token per
// call until an EOS id, max_new_tokens, stop(), or a full context. Every
// generated token goes to the callback as it is sampled. The position is
// kept between calls, so a second generate() continues the same sequence
// (the last sampled token is fed in front of the next prompt); reset()
// starts again at position 0.
//
// Desktop extension: heap and standard library, no exceptions; not thread-safe
// except stop(), which may be called from the callback or another thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "extension/module/module.h"
#include "runtime/core/error.h"
#include "runtime/core/result.h"

namespace etr {
namespace llm {

struct GenerationConfig {
  // Tokens to generate; negative: until an EOS id or the context is full.
  int32_t max_new_tokens = -1;
  // 0: greedy (argmax). Otherwise softmax(logits / temperature) with top-p.
  float temperature = 0.8f;
  float top_p = 0.9f;
  uint64_t seed = 42;
  // Pass the prompt tokens to the callback before the generated ones.
  bool echo = false;
  // The official runner's fields (TextLLMRunner reads them; TextGenerator
  // does not). seq_len: the most tokens in the context after generation
  // (prompt included); -1: max_context_len.
  int32_t seq_len = -1;
  // A warmup run: nothing is printed or reported.
  bool warming = false;
  // BOS / EOS copies the tokenizer puts around the prompt text.
  int32_t num_bos = 0;
  int32_t num_eos = 0;

  // Tokens to generate after a prompt of `num_prompt_tokens` when
  // `max_context_len` positions are free, as the official runner resolves
  // it: the smallest of max_new_tokens, seq_len (capped at max_context_len)
  // minus the prompt, and the free context minus the prompt (-1 fields do
  // not count); never negative.
  int32_t resolve_max_new_tokens(int64_t max_context_len, int64_t num_prompt_tokens) const;
};

// What the program says about itself; defaults where a method is missing.
struct LlmMetadata {
  int64_t bos_id = -1;                  // get_bos_id; -1 when absent
  std::vector<int64_t> eos_ids;         // get_eos_ids (every output); empty when absent
  int64_t max_seq_len = 0;              // get_max_seq_len; else forward's token input size
  int64_t max_context_len = 0;          // get_max_context_len; else max_seq_len
  int64_t vocab_size = 0;               // get_vocab_size; else the logits' last dimension
  bool use_kv_cache = true;             // use_kv_cache
  bool use_sdpa_with_kv_cache = false;  // use_sdpa_with_kv_cache
  bool has_max_seq_len = false;         // whether the program has get_max_seq_len
  bool enable_dynamic_shape = false;    // enable_dynamic_shape; else the token input's is_dynamic
  int64_t max_prefill_chunk = 1;        // tokens per prefill call (1 with static shapes)
};

// The last generate() call (times from the steady clock).
struct Stats {
  int64_t prompt_tokens = 0;     // the prompt given (plus a token carried from the last call)
  int64_t generated_tokens = 0;  // tokens passed to the callback after the prompt
  double model_load_ms = 0;      // load(): the program, the method and the metadata
  double prefill_ms = 0;         // prompt forward calls and the first token's sampling
  double decode_ms = 0;          // every later forward call and sampling
  double sampling_ms = 0;        // in the sampler (part of prefill_ms + decode_ms)
  double execution_ms = 0;       // in forward calls (part of prefill_ms + decode_ms)
  // Tokens per second after the first one (0 when fewer than two were generated).
  double decode_tokens_per_s() const;
  std::string to_string() const;
};

class TextGenerator final {
 public:
  // `data_paths`: .ptd files with the program's external weights.
  explicit TextGenerator(std::string model_path, ModuleOptions options = {},
                         std::vector<std::string> data_paths = {});

  // Loads the program and `forward`, reads the metadata. Fails with the
  // Module's error, NotFound without `forward`, NotSupported for a program
  // without a KV cache whose token input has a static length, InvalidProgram
  // for metadata out of range or that disagrees with forward's inputs.
  [[nodiscard]] Error load();
  bool is_loaded() const { return loaded_; }
  const LlmMetadata& metadata() const { return meta_; }
  // Caps the tokens per prefill call (after load(); 1: token by token, as
  // with static shapes). Fails with InvalidArgument below 1 and InvalidState
  // before load(); a value above what the program takes is lowered to it.
  [[nodiscard]] Error set_max_prefill_chunk(int64_t tokens);

  // Replaces the ids that end generation (get_eos_ids' by default), e.g.
  // with a tokenizer's. InvalidState before load().
  [[nodiscard]] Error set_eos_ids(std::vector<int64_t> ids);

  // Generates after `prompt` (see the file comment); loads first if needed.
  // Fails with InvalidArgument (nothing is run) for an empty prompt at
  // position 0, a token outside the vocabulary, a prompt that does not fit
  // the context or a bad sampler setting; with the Module's error when a
  // forward call fails (the position is then unknown: reset() before reuse).
  [[nodiscard]] Error generate(const std::vector<int64_t>& prompt, const GenerationConfig& config,
                               const std::function<void(int64_t)>& token_callback = {});
  // Feeds `prompt` (after the token carried from the last call, if any) to
  // the cache without sampling; the next generate() samples its first token
  // from the logits this leaves when its own prompt is empty. Fails like
  // generate() (an empty prompt is allowed and does nothing).
  [[nodiscard]] Error prefill(const std::vector<int64_t>& prompt);

  // Ends generate() after the token being passed to the callback.
  void stop() { stop_requested_.store(true); }
  // Starts the next generate() at position 0 (the cache is overwritten as it goes).
  void reset();

  // Tokens in the cache (the next forward call's input_pos); without a KV
  // cache, the tokens the next call repeats.
  int64_t position() const { return pos_; }
  // Whether the last sampled token waits to be fed in front of the next prompt.
  bool has_pending_token() const { return pending_ >= 0; }
  // Whether prefill() left logits for the next generate() to sample.
  bool has_prefill_logits() const { return has_logits_; }
  const Stats& stats() const { return stats_; }
  Module& module() { return module_; }

 private:
  Result<std::vector<float>> forward(const int64_t* tokens, size_t count);

  Module module_;
  bool loaded_ = false;
  LlmMetadata meta_;
  int64_t prefill_limit_ = 1;  // the most tokens the program takes per call
  Stats stats_;
  int64_t pos_ = 0;
  // Checks `prompt` (ids in the vocabulary, room in the context) and
  // returns it with the carried token in front.
  Result<std::vector<int64_t>> take_input(const std::vector<int64_t>& prompt);
  // Runs `input` through forward in chunks; the last chunk's logits stay in logits_.
  Error feed(const std::vector<int64_t>& input);

  // Without a KV cache: every token fed so far (each call runs all of them).
  std::vector<int64_t> history_;
  // The last sampled token, not yet fed to the model (-1: none).
  int64_t pending_ = -1;
  // The logits of the last token fed by prefill(), not yet sampled.
  std::vector<float> logits_;
  bool has_logits_ = false;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace llm
}  // namespace etr
