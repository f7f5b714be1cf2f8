#include "extension/llm/text_llm_runner.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <utility>

#include "extension/llm/utf8_stream.h"
#include "runtime/platform/log.h"

namespace etr {
namespace llm {
namespace {

std::vector<std::string> data_paths_of(const std::string& data_path) {
  if (data_path.empty()) return {};
  return {data_path};
}

// Fails with AccessFailed, naming `what` and `path`, when the file cannot be read.
Error check_readable(const char* what, const std::string& path) {
  ETR_CHECK_OR_FAIL(!path.empty(), Error::InvalidArgument, "llm: no %s file given", what);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ETR_CHECK_OR_FAIL(f != nullptr, Error::AccessFailed, "llm: cannot open the %s file '%s'", what,
                    path.c_str());
  std::fclose(f);
  return Error::Ok;
}

int64_t round_ms(double ms) { return static_cast<int64_t>(std::llround(ms)); }

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

TextLLMRunner::TextLLMRunner(std::string model_path, std::string tokenizer_path,
                             std::string data_path, ModuleOptions options)
    : model_path_(std::move(model_path)),
      tokenizer_path_(std::move(tokenizer_path)),
      data_path_(std::move(data_path)),
      generator_(model_path_, options, data_paths_of(data_path_)) {}

Error TextLLMRunner::load() {
  if (loaded_) return Error::Ok;
  stats_.model_load_start_ms = time_in_ms();
  ETR_RETURN_IF_ERROR(check_readable("model", model_path_));
  ETR_RETURN_IF_ERROR(check_readable("tokenizer", tokenizer_path_));
  if (!data_path_.empty()) ETR_RETURN_IF_ERROR(check_readable("data (.ptd)", data_path_));
  TokenizerResult<std::unique_ptr<Tokenizer>> tok = load_tokenizer(tokenizer_path_);
  ETR_CHECK_OR_FAIL(tok.ok(), Error::InvalidArgument, "llm: tokenizer: %s", tok.error().c_str());
  Error e = generator_.load();
  ETR_CHECK_OR_FAIL(e == Error::Ok, e, "llm: cannot load the model '%s'", model_path_.c_str());
  const LlmMetadata& meta = generator_.metadata();
  // As the official runner: without get_max_seq_len the program is not
  // taken for an LLM export.
  ETR_CHECK_OR_FAIL(meta.has_max_seq_len, Error::NotSupported,
                    "llm: the model '%s' has no get_max_seq_len method (not a program from "
                    "ExecuTorch's LLM exporter?)",
                    model_path_.c_str());
  const Tokenizer& t = *tok.value();
  if (meta.eos_ids.empty() && t.eos_id() >= 0) {
    ETR_RETURN_IF_ERROR(generator_.set_eos_ids({t.eos_id()}));
  }
  if (meta.vocab_size > 0 && t.vocab_size() > meta.vocab_size) {
    // The official runner does not check; ids past the model's vocabulary
    // are refused when a prompt holds one.
    ETR_LOG(Info,
            "llm: warning: the tokenizer '%s' has %d ids, the model '%s' only %" PRId64
            "; prompts with ids past %" PRId64 " are refused",
            tokenizer_path_.c_str(), t.vocab_size(), model_path_.c_str(), meta.vocab_size,
            meta.vocab_size - 1);
  }
  tokenizer_ = std::move(tok.value());
  loaded_ = true;
  stats_.model_load_end_ms = time_in_ms();
  return Error::Ok;
}

int64_t TextLLMRunner::vocab_size() const {
  if (!loaded_) return -1;
  if (generator_.metadata().vocab_size > 0) return generator_.metadata().vocab_size;
  return tokenizer_->vocab_size();
}

Error TextLLMRunner::encode(const std::string& prompt, const GenerationConfig& config) {
  prompt_ids_.clear();
  if (prompt.empty() && config.num_bos <= 0 && config.num_eos <= 0) return Error::Ok;
  ETR_CHECK_OR_FAIL(config.num_bos >= 0 && config.num_eos >= 0, Error::InvalidArgument,
                    "llm: num_bos %d / num_eos %d must not be negative",
                    static_cast<int>(config.num_bos), static_cast<int>(config.num_eos));
  TokenizerResult<std::vector<int32_t>> ids =
      tokenizer_->encode(prompt, config.num_bos, config.num_eos);
  ETR_CHECK_OR_FAIL(ids.ok(), Error::InvalidArgument, "llm: cannot encode the prompt: %s",
                    ids.error().c_str());
  prompt_ids_.assign(ids.value().begin(), ids.value().end());
  return Error::Ok;
}

Error TextLLMRunner::prefill(const std::string& prompt, const GenerationConfig& config) {
  if (!loaded_) {
    Error e = load();
    if (e != Error::Ok) return e;
  }
  ETR_RETURN_IF_ERROR(encode(prompt, config));
  return generator_.prefill(prompt_ids_);
}

Error TextLLMRunner::generate(const std::string& prompt, const GenerationConfig& config,
                              const std::function<void(const std::string&)>& token_callback,
                              const std::function<void(const RunnerStats&)>& stats_callback) {
  if (!loaded_) {
    stats_.reset(true);
    Error e = load();
    if (e != Error::Ok) return e;
  }
  stats_.reset(false);
  generated_.clear();
  stats_.inference_start_ms = time_in_ms();
  const Clock::time_point start = Clock::now();
  Clock::time_point first_token = start;
  ETR_RETURN_IF_ERROR(encode(prompt, config));
  stats_.token_encode_end_ms = time_in_ms();

  // The tokens this call feeds: the prompt's, plus the token the last call
  // sampled and has not fed yet.
  const int64_t carried = generator_.has_pending_token() ? 1 : 0;
  const int64_t num_prompt = static_cast<int64_t>(prompt_ids_.size()) + carried;
  const int64_t pos = generator_.position();
  const int64_t context = generator_.metadata().max_context_len;
  const int64_t free_context = context - pos;
  ETR_CHECK_OR_FAIL(num_prompt > 0 || generator_.has_prefill_logits(), Error::InvalidArgument,
                    "llm: the prompt is empty and there is nothing to continue from");
  ETR_CHECK_OR_FAIL(num_prompt < free_context, Error::InvalidArgument,
                    "llm: the prompt is %" PRId64 " tokens%s at position %" PRId64
                    "; the context (max_context_len %" PRId64
                    ") has room for prompts of at most %" PRId64 " tokens",
                    num_prompt, carried ? " (with one carried from the last call)" : "", pos,
                    context, free_context - 1);
  const int32_t max_new = config.resolve_max_new_tokens(free_context, num_prompt);
  ETR_CHECK_OR_FAIL(max_new > 0, Error::InvalidArgument,
                    "llm: nothing to generate: max_new_tokens %d, seq_len %d, %" PRId64
                    " prompt tokens at position %" PRId64 ", max_context_len %" PRId64,
                    static_cast<int>(config.max_new_tokens), static_cast<int>(config.seq_len),
                    num_prompt, pos, context);
  if (config.max_new_tokens > max_new && !config.warming) {
    ETR_LOG(Info, "llm: max_new_tokens %d lowered to %d (what the context of %" PRId64 " leaves)",
            static_cast<int>(config.max_new_tokens), static_cast<int>(max_new), context);
  }

  GenerationConfig gen_config = config;
  gen_config.max_new_tokens = max_new;
  gen_config.echo = false;
  const bool pass_on = token_callback && !config.warming;
  if (config.echo && pass_on && !prompt.empty()) token_callback(prompt);

  Utf8Stream stream;
  std::string decode_error;
  Error e = generator_.generate(prompt_ids_, gen_config, [&](int64_t id) {
    const bool first = generated_.empty();
    if (first) {
      first_token = Clock::now();
      stats_.first_token_ms = time_in_ms();
      stats_.prompt_eval_end_ms = stats_.first_token_ms;
    }
    // As the official runner: the first token is decoded after itself.
    const int64_t prev = first ? id : generated_.back();
    generated_.push_back(id);
    if (!decode_error.empty()) return;
    TokenizerResult<std::string> piece =
        tokenizer_->decode(static_cast<int32_t>(prev), static_cast<int32_t>(id));
    if (!piece.ok()) {
      decode_error = piece.error();
      generator_.stop();
      return;
    }
    const std::string out = stream.push(piece.value());
    if (pass_on && !out.empty()) token_callback(out);
  });
  const std::string rest = stream.flush();
  if (pass_on && !rest.empty()) token_callback(rest);
  stats_.inference_end_ms = time_in_ms();
  const Clock::time_point end = Clock::now();
  if (e != Error::Ok) return e;
  ETR_CHECK_OR_FAIL(decode_error.empty(), Error::InvalidArgument,
                    "llm: cannot decode a generated token: %s", decode_error.c_str());

  const Stats& g = generator_.stats();
  stats_.num_prompt_tokens = num_prompt;
  // As the official runner: the tokens after the first (the decode steps).
  stats_.num_generated_tokens = std::max<int64_t>(0, static_cast<int64_t>(generated_.size()) - 1);
  stats_.model_execution_start_ms = stats_.token_encode_end_ms;
  stats_.model_execution_end_ms = stats_.inference_end_ms;
  stats_.aggregate_sampling_time_ms = round_ms(g.sampling_ms);
  stats_.aggregate_model_execution_time_ms = round_ms(g.execution_ms);
  stats_.peak_rss_bytes = peak_rss_bytes();
  if (!generated_.empty()) {
    stats_.prefill_time_ms = ms_between(start, first_token);
    stats_.decode_time_ms = ms_between(first_token, end);
  }
  if (stats_callback) stats_callback(stats_);
  return Error::Ok;
}

Error TextLLMRunner::warmup(const std::string& prompt, int32_t max_new_tokens) {
  GenerationConfig config;
  config.echo = false;
  config.warming = true;
  config.max_new_tokens = max_new_tokens;
  config.temperature = 0;
  Error e = generate(prompt, config);
  reset();
  return e;
}

void TextLLMRunner::reset() {
  generator_.reset();
  stats_.reset(false);
}

}  // namespace llm
}  // namespace etr
