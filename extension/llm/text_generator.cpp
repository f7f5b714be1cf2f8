#include "extension/llm/text_generator.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "extension/llm/sampler.h"
#include "runtime/core/half.h"
#include "runtime/platform/log.h"

namespace etr {
namespace llm {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The Int or Bool outputs of a metadata method; empty when the method is absent.
Result<std::vector<int64_t>> read_ints(Module& m, const std::vector<std::string>& methods,
                                       const char* name) {
  if (std::find(methods.begin(), methods.end(), name) == methods.end()) {
    return std::vector<int64_t>{};
  }
  Result<std::vector<Value>> outs = m.execute(name, {});
  if (!outs.ok()) ETR_FAIL(outs.error(), "llm: metadata method '%s' failed", name);
  std::vector<int64_t> values;
  for (const Value& v : *outs) {
    if (v.is_int()) {
      values.push_back(v.to_int());
    } else if (v.is_bool()) {
      values.push_back(v.to_bool() ? 1 : 0);
    } else {
      ETR_FAIL(Error::InvalidProgram, "llm: metadata method '%s' returns a non-integer", name);
    }
  }
  return values;
}

}  // namespace

int32_t GenerationConfig::resolve_max_new_tokens(int64_t max_context_len,
                                                 int64_t num_prompt_tokens) const {
  int64_t limit = max_context_len - num_prompt_tokens;
  if (seq_len >= 0) limit = std::min<int64_t>(seq_len, max_context_len) - num_prompt_tokens;
  if (max_new_tokens >= 0) limit = std::min<int64_t>(limit, max_new_tokens);
  return static_cast<int32_t>(std::max<int64_t>(0, std::min<int64_t>(limit, INT32_MAX)));
}

double Stats::decode_tokens_per_s() const {
  if (generated_tokens < 2 || decode_ms <= 0) return 0;
  return static_cast<double>(generated_tokens - 1) * 1000.0 / decode_ms;
}

std::string Stats::to_string() const {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "prompt tokens %" PRId64 ", generated tokens %" PRId64
                ", load %.2f ms, prefill %.2f ms, decode %.2f ms (%.1f tokens/s)",
                prompt_tokens, generated_tokens, model_load_ms, prefill_ms, decode_ms,
                decode_tokens_per_s());
  return buf;
}

TextGenerator::TextGenerator(std::string model_path, ModuleOptions options,
                             std::vector<std::string> data_paths)
    : module_(std::move(model_path), std::move(data_paths), options) {}

Error TextGenerator::load() {
  if (loaded_) return Error::Ok;
  const Clock::time_point start = Clock::now();
  Error e = module_.load();
  if (e != Error::Ok) return e;
  Result<std::vector<std::string>> names = module_.method_names();
  if (!names.ok()) return names.error();
  if (std::find(names->begin(), names->end(), "forward") == names->end()) {
    ETR_FAIL(Error::NotFound, "llm: the program has no 'forward' method");
  }
  Result<MethodMeta> fmeta = module_.method_meta("forward");
  if (!fmeta.ok()) return fmeta.error();
  ETR_CHECK_OR_FAIL(fmeta->num_inputs() == 1 || fmeta->num_inputs() == 2, Error::InvalidProgram,
                    "llm: forward takes %zu inputs, expected 2 (tokens, input_pos) or 1 (tokens, "
                    "a program without a KV cache)",
                    fmeta->num_inputs());
  const bool takes_pos = fmeta->num_inputs() == 2;
  Result<TensorInfo> tokens_info = fmeta->input_tensor_meta(0);
  if (!tokens_info.ok()) ETR_FAIL(tokens_info.error(), "llm: forward input 0 is not a tensor");
  ETR_CHECK_OR_FAIL(tokens_info->dtype == ScalarType::Long && tokens_info->sizes.size() == 2,
                    Error::InvalidProgram, "llm: forward input 0 must be Long[1, S] tokens");
  const int64_t input_len = tokens_info->sizes[1];
  ETR_CHECK_OR_FAIL(input_len >= 1, Error::InvalidProgram,
                    "llm: forward's token input holds %" PRId64 " tokens", input_len);

  LlmMetadata meta;
  struct Field {
    const char* name;
    int64_t* value;
  };
  int64_t kv = takes_pos ? 1 : 0;
  int64_t sdpa = 0;
  int64_t dynamic = tokens_info->is_dynamic ? 1 : 0;
  for (Field f :
       {Field{"get_bos_id", &meta.bos_id}, Field{"get_max_seq_len", &meta.max_seq_len},
        Field{"get_max_context_len", &meta.max_context_len},
        Field{"get_vocab_size", &meta.vocab_size}, Field{"use_kv_cache", &kv},
        Field{"use_sdpa_with_kv_cache", &sdpa}, Field{"enable_dynamic_shape", &dynamic}}) {
    Result<std::vector<int64_t>> v = read_ints(module_, *names, f.name);
    if (!v.ok()) return v.error();
    if (v->empty()) continue;
    ETR_CHECK_OR_FAIL(v->size() == 1, Error::InvalidProgram,
                      "llm: metadata method '%s' returns %zu values, expected 1", f.name,
                      v->size());
    *f.value = (*v)[0];
  }
  Result<std::vector<int64_t>> eos = read_ints(module_, *names, "get_eos_ids");
  if (!eos.ok()) return eos.error();
  meta.eos_ids = std::move(*eos);
  meta.use_kv_cache = kv != 0;
  meta.use_sdpa_with_kv_cache = sdpa != 0;
  meta.has_max_seq_len = std::find(names->begin(), names->end(), "get_max_seq_len") != names->end();
  meta.enable_dynamic_shape = dynamic != 0;
  ETR_CHECK_OR_FAIL(meta.use_kv_cache == takes_pos, Error::InvalidProgram,
                    "llm: use_kv_cache says %s, but forward takes %zu inputs",
                    meta.use_kv_cache ? "true" : "false", fmeta->num_inputs());
  if (meta.max_seq_len <= 0) meta.max_seq_len = input_len;
  if (meta.max_context_len <= 0) meta.max_context_len = meta.max_seq_len;
  if (!meta.use_kv_cache) {
    // Every call carries the whole sequence: it must fit the token input,
    // whose length must follow the sequence (a dynamic dimension).
    ETR_CHECK_OR_FAIL(meta.enable_dynamic_shape, Error::NotSupported,
                      "llm: a program without a KV cache needs a dynamic token input (forward's "
                      "input 0 has a static length of %" PRId64 ")",
                      input_len);
    meta.max_context_len = std::min({meta.max_context_len, meta.max_seq_len, input_len});
  }
  // A dynamic token input takes up to its declared (upper-bound) length per call.
  meta.max_prefill_chunk =
      meta.enable_dynamic_shape ? std::min<int64_t>(meta.max_seq_len, input_len) : 1;
  ETR_CHECK_OR_FAIL(meta.max_prefill_chunk >= 1, Error::InvalidProgram,
                    "llm: max_seq_len %" PRId64 " leaves no room for a token", meta.max_seq_len);
  prefill_limit_ = meta.max_prefill_chunk;
  meta_ = std::move(meta);
  e = module_.load_method("forward");
  if (e != Error::Ok) return e;
  loaded_ = true;
  stats_ = Stats{};
  stats_.model_load_ms = ms_since(start);
  return Error::Ok;
}

Error TextGenerator::set_max_prefill_chunk(int64_t tokens) {
  ETR_CHECK_OR_FAIL(loaded_, Error::InvalidState, "llm: set_max_prefill_chunk before load()");
  ETR_CHECK_OR_FAIL(tokens >= 1, Error::InvalidArgument,
                    "llm: a prefill chunk of %" PRId64 " tokens", tokens);
  meta_.max_prefill_chunk = std::min(tokens, prefill_limit_);
  return Error::Ok;
}

Error TextGenerator::set_eos_ids(std::vector<int64_t> ids) {
  ETR_CHECK_OR_FAIL(loaded_, Error::InvalidState, "llm: set_eos_ids before load()");
  meta_.eos_ids = std::move(ids);
  return Error::Ok;
}

void TextGenerator::reset() {
  pos_ = 0;
  history_.clear();
  pending_ = -1;
  logits_.clear();
  has_logits_ = false;
  stop_requested_.store(false);
}

Result<std::vector<float>> TextGenerator::forward(const int64_t* tokens, size_t count) {
  Result<std::vector<Value>> outs = [&]() {
    if (!meta_.use_kv_cache) {
      // take_input() keeps the sequence within max_context_len, which fits the input.
      history_.insert(history_.end(), tokens, tokens + count);
      return module_.forward({make_tensor({1, static_cast<int32_t>(history_.size())}, history_)});
    }
    std::vector<int64_t> ids(tokens, tokens + count);
    return module_.forward({make_tensor({1, static_cast<int32_t>(count)}, ids),
                            make_tensor({1}, std::vector<int64_t>{pos_})});
  }();
  if (!outs.ok()) {
    ETR_FAIL(outs.error(), "llm: forward of %zu tokens at position %" PRId64 " failed", count,
             pos_);
  }
  ETR_CHECK_OR_FAIL(!outs->empty() && (*outs)[0].is_tensor(), Error::InvalidProgram,
                    "llm: forward returned no logits tensor");
  const Tensor& t = (*outs)[0].tensor();
  const ScalarType dtype = t.dtype();
  ETR_CHECK_OR_FAIL(
      (dtype == ScalarType::Float || dtype == ScalarType::BFloat16 || dtype == ScalarType::Half) &&
          t.dim() >= 1,
      Error::NotSupported,
      "llm: logits have dtype %s and %zu dims; a Float, BFloat16 or Half tensor "
      "is expected",
      to_string(dtype), t.dim());
  // The last row: the last token's logits (the exporter returns only that row).
  const size_t vocab = static_cast<size_t>(t.size(t.dim() - 1));
  const size_t total = static_cast<size_t>(t.numel());
  ETR_CHECK_OR_FAIL(vocab > 0 && total >= vocab, Error::InvalidProgram,
                    "llm: forward returned empty logits");
  if (meta_.vocab_size > 0) {
    ETR_CHECK_OR_FAIL(static_cast<int64_t>(vocab) == meta_.vocab_size, Error::InvalidProgram,
                      "llm: logits hold %zu entries, get_vocab_size says %" PRId64, vocab,
                      meta_.vocab_size);
  }
  pos_ += static_cast<int64_t>(count);
  // Module hands outputs back contiguous; 16-bit logits are widened to float.
  std::vector<float> last(vocab);
  const uint8_t* row =
      static_cast<const uint8_t*>(t.const_data()) + (total - vocab) * t.element_size();
  for (size_t i = 0; i < vocab; ++i) {
    uint16_t bits = 0;
    switch (dtype) {
      case ScalarType::Float: std::memcpy(&last[i], row + i * sizeof(float), sizeof(float)); break;
      case ScalarType::BFloat16:
        std::memcpy(&bits, row + i * 2, 2);
        last[i] = static_cast<float>(BFloat16::from_bits(bits));
        break;
      default:  // Half
        std::memcpy(&bits, row + i * 2, 2);
        last[i] = static_cast<float>(Half::from_bits(bits));
        break;
    }
  }
  return last;
}

Result<std::vector<int64_t>> TextGenerator::take_input(const std::vector<int64_t>& prompt) {
  for (size_t i = 0; i < prompt.size(); ++i) {
    ETR_CHECK_OR_FAIL(prompt[i] >= 0 && (meta_.vocab_size <= 0 || prompt[i] < meta_.vocab_size),
                      Error::InvalidArgument,
                      "llm: prompt token %zu is %" PRId64 ", outside the vocabulary of %" PRId64, i,
                      prompt[i], meta_.vocab_size);
  }
  std::vector<int64_t> input;
  if (pending_ >= 0) input.push_back(pending_);
  input.insert(input.end(), prompt.begin(), prompt.end());
  ETR_CHECK_OR_FAIL(
      static_cast<int64_t>(input.size()) <= meta_.max_context_len - pos_, Error::InvalidArgument,
      "llm: a prompt of %zu tokens (with the one carried from the last call) at position %" PRId64
      " does not fit the context of %" PRId64 " tokens",
      input.size(), pos_, meta_.max_context_len);
  return input;
}

Error TextGenerator::feed(const std::vector<int64_t>& input) {
  pending_ = -1;
  has_logits_ = false;
  for (size_t done = 0; done < input.size();) {
    const size_t n = std::min(input.size() - done, static_cast<size_t>(meta_.max_prefill_chunk));
    const Clock::time_point start = Clock::now();
    Result<std::vector<float>> out = forward(input.data() + done, n);
    stats_.execution_ms += ms_since(start);
    if (!out.ok()) return out.error();
    logits_ = std::move(*out);
    done += n;
  }
  has_logits_ = !input.empty();
  return Error::Ok;
}

Error TextGenerator::prefill(const std::vector<int64_t>& prompt) {
  Error e = load();
  if (e != Error::Ok) return e;
  Result<std::vector<int64_t>> input = take_input(prompt);
  if (!input.ok()) return input.error();
  if (prompt.empty()) return Error::Ok;
  return feed(*input);
}

Error TextGenerator::generate(const std::vector<int64_t>& prompt, const GenerationConfig& config,
                              const std::function<void(int64_t)>& token_callback) {
  Error e = load();
  if (e != Error::Ok) return e;
  stop_requested_.store(false);
  const double load_ms = stats_.model_load_ms;
  stats_ = Stats{};
  stats_.model_load_ms = load_ms;

  // The sequence to prefill: the token sampled last time (not yet in the
  // cache), then the prompt. Empty after prefill(): its logits are sampled.
  Result<std::vector<int64_t>> taken = take_input(prompt);
  if (!taken.ok()) return taken.error();
  const std::vector<int64_t>& input = *taken;
  ETR_CHECK_OR_FAIL(!input.empty() || has_logits_, Error::InvalidArgument,
                    "llm: generate needs at least one prompt token at position 0");
  Sampler sampler(config.temperature, config.top_p, config.seed);
  ETR_CHECK_OR_FAIL(std::isfinite(config.temperature) && config.temperature >= 0 &&
                        (config.temperature == 0 || (config.top_p > 0 && config.top_p <= 1)),
                    Error::InvalidArgument, "llm: temperature %g / top_p %g out of range",
                    static_cast<double>(config.temperature), static_cast<double>(config.top_p));
  stats_.prompt_tokens = static_cast<int64_t>(input.size());
  if (config.echo && token_callback) {
    for (int64_t id : prompt) token_callback(id);
  }
  if (config.max_new_tokens == 0) return Error::Ok;

  // Prefill: whole chunks when the input is dynamic, else one token per call.
  const Clock::time_point prefill_start = Clock::now();
  if (!input.empty()) {
    e = feed(input);
    if (e != Error::Ok) return e;
  }
  std::vector<float> logits = std::move(logits_);
  logits_.clear();
  has_logits_ = false;

  // Decode: sample, pass on, feed back.
  Clock::time_point decode_start = prefill_start;
  while (true) {
    const Clock::time_point sample_start = Clock::now();
    Result<int64_t> next = sampler.sample(logits.data(), logits.size());
    stats_.sampling_ms += ms_since(sample_start);
    if (!next.ok()) return next.error();
    pending_ = *next;
    ++stats_.generated_tokens;
    if (stats_.generated_tokens == 1) {
      stats_.prefill_ms = ms_since(prefill_start);
      decode_start = Clock::now();
    }
    if (token_callback) token_callback(pending_);
    if (stop_requested_.load()) break;
    if (std::find(meta_.eos_ids.begin(), meta_.eos_ids.end(), pending_) != meta_.eos_ids.end()) {
      break;
    }
    if (config.max_new_tokens > 0 && stats_.generated_tokens >= config.max_new_tokens) break;
    if (pos_ >= meta_.max_context_len) break;  // no room to feed it back
    const Clock::time_point exec_start = Clock::now();
    Result<std::vector<float>> out = forward(&pending_, 1);
    stats_.execution_ms += ms_since(exec_start);
    if (!out.ok()) return out.error();
    pending_ = -1;
    logits = std::move(*out);
  }
  if (stats_.generated_tokens > 1) stats_.decode_ms = ms_since(decode_start);
  stop_requested_.store(false);
  return Error::Ok;
}

}  // namespace llm
}  // namespace etr
