// RunnerStats: the timings of one text generation, with the official
// runner's field names (executorch/extension/llm/runner/stats.h), so tools
// that parse its `PyTorchObserver {...}` line parse ours.
//
//   etr::llm::RunnerStats s;
//   s.inference_start_ms = etr::llm::time_in_ms();
//   ...
//   std::printf("PyTorchObserver %s\n", s.to_json().c_str());
//
// Timestamps are milliseconds since the Unix epoch, as the official runner
// writes them; SCALING_FACTOR_UNITS_PER_SECOND converts them to seconds.
//
// Desktop extension: heap and standard library, no exceptions.
#pragma once

#include <cstdint>
#include <string>

namespace etr {
namespace llm {

// Milliseconds since the Unix epoch (the system clock, as the official runner).
int64_t time_in_ms();
// The process's peak resident set size in bytes (getrusage), 0 where unknown.
int64_t peak_rss_bytes();

struct RunnerStats {
  static constexpr int64_t SCALING_FACTOR_UNITS_PER_SECOND = 1000;
  int64_t model_load_start_ms = 0;
  int64_t model_load_end_ms = 0;
  // Start of generate(): before the prompt is encoded.
  int64_t inference_start_ms = 0;
  // The prompt is encoded.
  int64_t token_encode_end_ms = 0;
  // The first and the last forward call of this generation (start / end).
  int64_t model_execution_start_ms = 0;
  int64_t model_execution_end_ms = 0;
  // The prompt is in the cache and its next token is sampled.
  int64_t prompt_eval_end_ms = 0;
  // The first generated token reaches the callback.
  int64_t first_token_ms = 0;
  int64_t inference_end_ms = 0;
  int64_t aggregate_sampling_time_ms = 0;
  int64_t aggregate_model_execution_time_ms = 0;
  // Tokens fed as the prompt (with one carried from the last call), and
  // tokens generated after the first one (the decode steps: the first token
  // comes out of the prefill), as the official runner counts them.
  int64_t num_prompt_tokens = 0;
  int64_t num_generated_tokens = 0;
  // Peak RSS of the process at the end of the generation (ours, not in the
  // official JSON).
  int64_t peak_rss_bytes = 0;
  // The prefill (inference start to the first token) and the decode (first
  // token to inference end) timed by the steady clock in fractional
  // milliseconds (ours): the rates use them, the millisecond stamps above
  // being too coarse for short runs. 0: not measured (the stamps are used).
  double prefill_time_ms = 0;
  double decode_time_ms = 0;

  // Prompt tokens per second of the prefill (inference start to prompt eval
  // end) and generated tokens per second after it (from prefill_time_ms /
  // decode_time_ms when measured); 0 for an empty interval.
  double prefill_tokens_per_s() const;
  double decode_tokens_per_s() const;

  // Zeroes everything; the load times too when `all_stats`.
  void reset(bool all_stats = false);

  // The official JSON object: prefill_token_per_sec, decode_token_per_sec,
  // prompt_tokens, generated_tokens, model_load_start_ms, model_load_end_ms,
  // inference_start_ms, inference_end_ms, model_execution_start_ms,
  // model_execution_end_ms, prompt_eval_end_ms, first_token_ms,
  // aggregate_sampling_time_ms, aggregate_model_execution_time_ms,
  // SCALING_FACTOR_UNITS_PER_SECOND.
  std::string to_json() const;
  // Our one-line summary: token counts, load, time to first token, prefill and decode
  // rates, sampling time, peak RSS.
  std::string summary() const;
};

}  // namespace llm
}  // namespace etr
