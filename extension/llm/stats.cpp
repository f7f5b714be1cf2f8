#include "extension/llm/stats.h"

#include <sys/resource.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>

namespace etr {
namespace llm {

int64_t time_in_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t peak_rss_bytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
  return static_cast<int64_t>(usage.ru_maxrss);  // bytes on macOS
#else
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
#endif
}

namespace {

double rate(int64_t tokens, double precise_ms, int64_t start_ms, int64_t end_ms) {
  const double span = precise_ms > 0 ? precise_ms : static_cast<double>(end_ms - start_ms);
  if (span <= 0 || tokens <= 0) return 0;
  return static_cast<double>(tokens) * RunnerStats::SCALING_FACTOR_UNITS_PER_SECOND / span;
}

}  // namespace

double RunnerStats::prefill_tokens_per_s() const {
  return rate(num_prompt_tokens, prefill_time_ms, inference_start_ms, prompt_eval_end_ms);
}

double RunnerStats::decode_tokens_per_s() const {
  return rate(num_generated_tokens, decode_time_ms, prompt_eval_end_ms, inference_end_ms);
}

void RunnerStats::reset(bool all_stats) {
  const int64_t load_start = model_load_start_ms;
  const int64_t load_end = model_load_end_ms;
  *this = RunnerStats{};
  if (!all_stats) {
    model_load_start_ms = load_start;
    model_load_end_ms = load_end;
  }
}

std::string RunnerStats::to_json() const {
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "{\"prefill_token_per_sec\":%.6f,\"decode_token_per_sec\":%.6f,"
                "\"prompt_tokens\":%" PRId64 ",\"generated_tokens\":%" PRId64
                ",\"model_load_start_ms\":%" PRId64 ",\"model_load_end_ms\":%" PRId64
                ",\"inference_start_ms\":%" PRId64 ",\"inference_end_ms\":%" PRId64
                ",\"model_execution_start_ms\":%" PRId64 ",\"model_execution_end_ms\":%" PRId64
                ",\"prompt_eval_end_ms\":%" PRId64 ",\"first_token_ms\":%" PRId64
                ",\"aggregate_sampling_time_ms\":%" PRId64
                ",\"aggregate_model_execution_time_ms\":%" PRId64
                ",\"SCALING_FACTOR_UNITS_PER_SECOND\":%" PRId64 "}",
                prefill_tokens_per_s(), decode_tokens_per_s(), num_prompt_tokens,
                num_generated_tokens, model_load_start_ms, model_load_end_ms, inference_start_ms,
                inference_end_ms, model_execution_start_ms, model_execution_end_ms,
                prompt_eval_end_ms, first_token_ms, aggregate_sampling_time_ms,
                aggregate_model_execution_time_ms, SCALING_FACTOR_UNITS_PER_SECOND);
  return buf;
}

std::string RunnerStats::summary() const {
  const double first_ms = prefill_time_ms > 0
                              ? prefill_time_ms
                              : static_cast<double>(first_token_ms - inference_start_ms);
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "prompt tokens %" PRId64 ", tokens decoded after the first %" PRId64
                ", load %" PRId64
                " ms, first token %.2f ms, prefill %.1f tokens/s, decode %.1f tokens/s, "
                "sampling %" PRId64 " ms, peak RSS %.1f MiB",
                num_prompt_tokens, num_generated_tokens, model_load_end_ms - model_load_start_ms,
                first_ms, prefill_tokens_per_s(), decode_tokens_per_s(), aggregate_sampling_time_ms,
                static_cast<double>(peak_rss_bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace llm
}  // namespace etr
