// TextLLMRunner (extension/llm/text_llm_runner.h) on the tiny Llama from
// ExecuTorch's exporter with its trained tokenizer (test/models/llm): greedy
// generation from a text prompt gives the eager PyTorch model's tokens
// (text_reference.py: text_{bos0,bos1,chat}_*), the streamed text is the
// `tokenizers` package's decode of them, chat turns continue one sequence,
// stop() / reset() / prefill() work, the stats are sane, bad input fails
// with a message naming it.
#include "extension/llm/text_llm_runner.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "extension/tensor/npy.h"
#include "runtime/platform/error_capture.h"

namespace etr {
namespace llm {
namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/llm/";
const std::string kTokenizer = kDir + "tokenizer.json";
const char* kPrompt = "Once upon a time";
constexpr int64_t kContext = 32;

std::vector<int64_t> load_ids(const std::string& name) {
  Result<HostTensor> t = read_npy(kDir + name);
  EXPECT_TRUE(t.ok()) << "reading " << name;
  return t.ok() ? t->values<int64_t>() : std::vector<int64_t>{};
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<int64_t> head(const std::vector<int64_t>& v, size_t n) {
  return std::vector<int64_t>(v.begin(),
                              v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size())));
}

std::vector<std::string> programs() {
  std::vector<std::string> p = {"tiny_llama_portable.pte"};
#if ETR_LLM_TEST_HAS_XNNPACK
  p.push_back("tiny_llama_xnnpack.pte");
#endif
  return p;
}

GenerationConfig greedy(int32_t max_new_tokens = -1, int32_t num_bos = 0) {
  GenerationConfig c;
  c.temperature = 0;
  c.max_new_tokens = max_new_tokens;
  c.num_bos = num_bos;
  c.echo = false;
  return c;
}

struct TextRun {
  Error error;
  std::string text;
  std::vector<std::string> pieces;
  int stats_calls = 0;
  RunnerStats stats;
};

TextRun run(TextLLMRunner& r, const std::string& prompt, const GenerationConfig& c) {
  TextRun out;
  out.error = r.generate(
      prompt, c,
      [&](const std::string& piece) {
        out.pieces.push_back(piece);
        out.text += piece;
      },
      [&](const RunnerStats& s) {
        ++out.stats_calls;
        out.stats = s;
      });
  return out;
}

TEST(TextLLMRunnerTest, LoadsMetadataAndTokenizer) {
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", kTokenizer);
  EXPECT_EQ(r.vocab_size(), -1);
  ASSERT_EQ(r.load(), Error::Ok);
  EXPECT_EQ(r.vocab_size(), 128);
  EXPECT_EQ(r.metadata().max_seq_len, 32);
  EXPECT_EQ(r.metadata().max_context_len, 32);
  EXPECT_EQ(r.metadata().bos_id, 1);
  EXPECT_TRUE(r.metadata().use_kv_cache);
  EXPECT_TRUE(r.metadata().use_sdpa_with_kv_cache);
  EXPECT_TRUE(r.metadata().enable_dynamic_shape);
  EXPECT_EQ(r.eos_ids(), std::vector<int64_t>{2});
  ASSERT_NE(r.tokenizer(), nullptr);
  EXPECT_EQ(r.tokenizer()->vocab_size(), 128);
  EXPECT_LE(r.stats().model_load_start_ms, r.stats().model_load_end_ms);
}

TEST(TextLLMRunnerTest, GreedyTextMatchesEager) {
  for (const char* name : {"bos0", "bos1"}) {
    const std::vector<int64_t> prompt = load_ids(std::string("text_") + name + "_prompt.npy");
    const std::vector<int64_t> tokens = load_ids(std::string("text_") + name + "_tokens.npy");
    const std::string text = read_text(kDir + "text_" + name + ".txt");
    const int32_t num_bos = std::string(name) == "bos1" ? 1 : 0;
    // The official rule: context - prompt tokens when max_new_tokens is -1.
    const size_t n = static_cast<size_t>(kContext) - prompt.size();
    ASSERT_GE(tokens.size(), n);
    ASSERT_FALSE(text.empty());
    for (const std::string& pte : programs()) {
      for (size_t threads : {size_t{1}, size_t{2}}) {
        SCOPED_TRACE(pte + " " + name + " threads " + std::to_string(threads));
        ModuleOptions options;
        options.num_threads = threads;
        TextLLMRunner r(kDir + pte, kTokenizer, "", options);
        TextRun out = run(r, kPrompt, greedy(-1, num_bos));
        ASSERT_EQ(out.error, Error::Ok);
        EXPECT_EQ(r.prompt_ids(), prompt);
        EXPECT_EQ(r.generated_ids(), head(tokens, n));
        EXPECT_EQ(out.text, text);
        EXPECT_EQ(out.stats_calls, 1);
        EXPECT_EQ(out.stats.num_prompt_tokens, static_cast<int64_t>(prompt.size()));
        // The official count: the tokens after the first (the decode steps).
        EXPECT_EQ(out.stats.num_generated_tokens, static_cast<int64_t>(n) - 1);
        EXPECT_EQ(r.position(), kContext - 1);  // the last token is never fed
      }
    }
  }
}

TEST(TextLLMRunnerTest, EchoAndLimits) {
  const std::vector<int64_t> tokens = load_ids("text_bos1_tokens.npy");
  const size_t prompt_len = load_ids("text_bos1_prompt.npy").size();
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", kTokenizer);
  GenerationConfig c = greedy(5, 1);
  c.echo = true;
  TextRun out = run(r, kPrompt, c);
  ASSERT_EQ(out.error, Error::Ok);
  ASSERT_FALSE(out.pieces.empty());
  EXPECT_EQ(out.pieces[0], kPrompt);  // the prompt text first
  EXPECT_EQ(r.generated_ids(), head(tokens, 5));
  // max_new_tokens past the context is lowered to what fits (as the official runner).
  r.reset();
  out = run(r, kPrompt, greedy(1000, 1));
  ASSERT_EQ(out.error, Error::Ok);
  EXPECT_EQ(r.generated_ids(), head(tokens, kContext - prompt_len));
  // seq_len bounds prompt + generated tokens.
  r.reset();
  GenerationConfig s = greedy(-1, 1);
  s.seq_len = 20;
  out = run(r, kPrompt, s);
  ASSERT_EQ(out.error, Error::Ok);
  EXPECT_EQ(r.generated_ids(), head(tokens, 20 - prompt_len));
}

TEST(TextLLMRunnerTest, ChatTurnsContinueOneSequence) {
  const std::vector<int64_t> turn2 = load_ids("text_chat_turn2_prompt.npy");
  const std::vector<int64_t> want = load_ids("text_chat_tokens.npy");
  const std::vector<int64_t> bos1 = load_ids("text_bos1_tokens.npy");
  ASSERT_GT(want.size(), 5u);
  for (const std::string& pte : programs()) {
    SCOPED_TRACE(pte);
    TextLLMRunner r(kDir + pte, kTokenizer);
    TextRun a = run(r, kPrompt, greedy(5, 1));
    ASSERT_EQ(a.error, Error::Ok);
    EXPECT_EQ(r.generated_ids(), head(want, 5));
    TextRun b = run(r, " the robot", greedy());
    ASSERT_EQ(b.error, Error::Ok);
    EXPECT_EQ(r.prompt_ids(), turn2);
    // Turn 2 feeds the carried token and its prompt; it fills the context.
    EXPECT_EQ(b.stats.num_prompt_tokens, static_cast<int64_t>(turn2.size()) + 1);
    std::vector<int64_t> both = head(want, 5);
    both.insert(both.end(), r.generated_ids().begin(), r.generated_ids().end());
    const size_t n2 = static_cast<size_t>(kContext) - (13 + 5 - 1) - (turn2.size() + 1);
    EXPECT_EQ(both, head(want, 5 + n2));

    // An empty prompt continues the generation: 5 + 5 tokens = one run of 10.
    r.reset();
    ASSERT_EQ(run(r, kPrompt, greedy(5, 1)).error, Error::Ok);
    std::vector<int64_t> got = r.generated_ids();
    ASSERT_EQ(run(r, "", greedy(5)).error, Error::Ok);
    got.insert(got.end(), r.generated_ids().begin(), r.generated_ids().end());
    EXPECT_EQ(got, head(bos1, 10));
  }
}

TEST(TextLLMRunnerTest, PrefillThenGenerate) {
  const std::vector<int64_t> bos1 = load_ids("text_bos1_tokens.npy");
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", kTokenizer);
  GenerationConfig c = greedy(-1, 1);
  ASSERT_EQ(r.prefill(kPrompt, c), Error::Ok);
  EXPECT_EQ(r.position(), 13);
  TextRun out = run(r, "", greedy(6));
  ASSERT_EQ(out.error, Error::Ok);
  EXPECT_EQ(r.generated_ids(), head(bos1, 6));
  // Prefill in two parts gives the same cache as one.
  r.reset();
  ASSERT_EQ(r.prefill("Once upon", c), Error::Ok);
  ASSERT_EQ(r.prefill(" a time", greedy()), Error::Ok);
  const std::vector<int64_t> whole = load_ids("text_bos1_prompt.npy");
  // The two halves encode to the same ids as the whole here (a space starts the second).
  out = run(r, "", greedy(6));
  ASSERT_EQ(out.error, Error::Ok);
  EXPECT_EQ(r.position(), static_cast<int64_t>(whole.size()) + 5);
  EXPECT_EQ(r.generated_ids(), head(bos1, 6));
}

TEST(TextLLMRunnerTest, StopAndReset) {
  const std::vector<int64_t> bos1 = load_ids("text_bos1_tokens.npy");
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", kTokenizer);
  int pieces = 0;
  Error e = r.generate(kPrompt, greedy(-1, 1), [&](const std::string&) {
    if (++pieces == 3) r.stop();
  });
  ASSERT_EQ(e, Error::Ok);
  EXPECT_EQ(r.generated_ids(), head(bos1, 3));
  EXPECT_EQ(r.stats().num_generated_tokens, 2);
  // reset(): position 0, the next generation is the first one again.
  r.reset();
  EXPECT_EQ(r.position(), 0);
  EXPECT_EQ(r.stats().num_generated_tokens, 0);
  TextRun out = run(r, kPrompt, greedy(-1, 1));
  ASSERT_EQ(out.error, Error::Ok);
  EXPECT_EQ(r.generated_ids(), head(bos1, kContext - 13));
  // warmup() (on a fresh runner, as the official CLI calls it) leaves it at position 0.
  r.reset();
  ASSERT_EQ(r.warmup(kPrompt, 4), Error::Ok);
  EXPECT_EQ(r.position(), 0);
}

TEST(TextLLMRunnerTest, StatsAreSane) {
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", kTokenizer);
  TextRun out = run(r, kPrompt, greedy(-1, 1));
  ASSERT_EQ(out.error, Error::Ok);
  const RunnerStats& s = out.stats;
  nlohmann::json j = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(j["prompt_tokens"], 13);
  EXPECT_EQ(j["generated_tokens"], kContext - 13 - 1);
  EXPECT_EQ(j["SCALING_FACTOR_UNITS_PER_SECOND"], 1000);
  const int64_t load_start = j["model_load_start_ms"];
  const int64_t load_end = j["model_load_end_ms"];
  const int64_t start = j["inference_start_ms"];
  const int64_t eval_end = j["prompt_eval_end_ms"];
  const int64_t first = j["first_token_ms"];
  const int64_t end = j["inference_end_ms"];
  EXPECT_GT(load_start, 0);
  EXPECT_LE(load_start, load_end);
  EXPECT_LE(load_end, start);
  EXPECT_LE(start, eval_end);
  EXPECT_EQ(first, eval_end);
  EXPECT_LE(eval_end, end);
  EXPECT_LE(j["aggregate_sampling_time_ms"].get<int64_t>(), end - start);
  EXPECT_LE(j["aggregate_model_execution_time_ms"].get<int64_t>(), end - start + 1);
  EXPECT_GE(j["prefill_token_per_sec"].get<double>(), 0.0);
  EXPECT_GE(j["decode_token_per_sec"].get<double>(), 0.0);
  EXPECT_GT(s.peak_rss_bytes, 1 << 20);
  // The fractional times fit in the millisecond stamps (1 ms rounding each side).
  EXPECT_GT(s.prefill_time_ms, 0);
  EXPECT_GT(s.decode_time_ms, 0);
  EXPECT_LE(s.prefill_time_ms, static_cast<double>(first - start) + 1);
  EXPECT_LE(s.decode_time_ms, static_cast<double>(end - first) + 1);
  EXPECT_GT(j["prefill_token_per_sec"].get<double>(), 0.0);
  EXPECT_GT(j["decode_token_per_sec"].get<double>(), 0.0);
  EXPECT_NE(s.summary().find("peak RSS"), std::string::npos);
}

// Runs `f` and returns the messages it logged at Error level.
template <typename F>
std::string captured(F f, Error* error) {
  char buf[2048];
  ErrorCapture capture(buf, sizeof(buf));
  *error = f();
  return capture.message();
}

TEST(TextLLMRunnerTest, BadFilesNameTheFile) {
  struct Case {
    std::string model, tokenizer, data;
    Error error;
    const char* message;
  } cases[] = {
      {kDir + "missing.pte", kTokenizer, "", Error::AccessFailed, "missing.pte"},
      {kDir + "tiny_llama_portable.pte", kDir + "missing.json", "", Error::AccessFailed,
       "missing.json"},
      {kDir + "tiny_llama_portable.pte", kTokenizer, kDir + "missing.ptd", Error::AccessFailed,
       "missing.ptd"},
      // Not a tokenizer: the message names the file.
      {kDir + "tiny_llama_portable.pte", kDir + "tiny_llama_xnnpack.pte", "",
       Error::InvalidArgument, "tiny_llama_xnnpack.pte"},
      // A program without the metadata methods (make_no_metadata.py).
      {kDir + "no_metadata_llm.pte", kTokenizer, "", Error::NotSupported, "get_max_seq_len"},
      // Not an LLM at all.
      {kDir + "tokenizer.json", kTokenizer, "", Error::InvalidProgram, "tiny"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.model + " / " + c.tokenizer + " / " + c.data);
    TextLLMRunner r(c.model, c.tokenizer, c.data);
    Error e = Error::Ok;
    const std::string msg = captured([&] { return r.load(); }, &e);
    if (std::string(c.message) == "tiny") {
      EXPECT_NE(e, Error::Ok);
      EXPECT_NE(msg.find("tokenizer.json"), std::string::npos) << msg;
      continue;
    }
    EXPECT_EQ(e, c.error) << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
    EXPECT_FALSE(r.is_loaded());
    // generate() loads first and fails the same way.
    TextRun out = run(r, kPrompt, greedy(3));
    EXPECT_EQ(out.error, c.error);
  }
}

TEST(TextLLMRunnerTest, BadPromptsAndLimits) {
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", kTokenizer);
  Error e = Error::Ok;
  // Longer than the context (3 x 12 tokens > 31).
  std::string msg = captured(
      [&] { return run(r, "Once upon a time Once upon a time Once upon a time", greedy()).error; },
      &e);
  EXPECT_EQ(e, Error::InvalidArgument);
  EXPECT_NE(msg.find("max_context_len 32"), std::string::npos) << msg;
  EXPECT_EQ(r.position(), 0);  // nothing was run
  // Empty prompt at position 0.
  msg = captured([&] { return run(r, "", greedy()).error; }, &e);
  EXPECT_EQ(e, Error::InvalidArgument);
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
  // max_new_tokens 0 and a seq_len shorter than the prompt: nothing to generate.
  msg = captured([&] { return run(r, kPrompt, greedy(0)).error; }, &e);
  EXPECT_EQ(e, Error::InvalidArgument);
  EXPECT_NE(msg.find("max_new_tokens 0"), std::string::npos) << msg;
  GenerationConfig c = greedy();
  c.seq_len = 5;
  msg = captured([&] { return run(r, kPrompt, c).error; }, &e);
  EXPECT_EQ(e, Error::InvalidArgument);
  EXPECT_NE(msg.find("seq_len 5"), std::string::npos) << msg;
  // Negative BOS count; bad sampler settings.
  c = greedy();
  c.num_bos = -1;
  EXPECT_EQ(run(r, kPrompt, c).error, Error::InvalidArgument);
  c = greedy();
  c.temperature = -1;
  EXPECT_EQ(run(r, kPrompt, c).error, Error::InvalidArgument);
  // The runner still works after every refusal.
  EXPECT_EQ(r.position(), 0);
  EXPECT_EQ(run(r, kPrompt, greedy(3)).error, Error::Ok);
}

// A split UTF-8 character reaches the callback only once it is whole: the
// tokenizer with the first two tokens the model generates after "Once upon a
// time" (ids 7 '.' and 14 '?') renamed to the byte-level symbols of the bytes
// C3 and A9 ("\xC3\xA9" is "e acute"; the prompt's ids do not change).
TEST(TextLLMRunnerTest, StreamsWholeUtf8Characters) {
  const std::vector<int64_t> tokens = load_ids("text_bos0_tokens.npy");
  const std::string text = read_text(kDir + "text_bos0.txt");
  ASSERT_EQ(head(tokens, 2), (std::vector<int64_t>{7, 14}));
  ASSERT_EQ(text.substr(0, 2), ".?");
  nlohmann::json j = nlohmann::json::parse(read_text(kTokenizer));
  nlohmann::json& vocab = j["model"]["vocab"];
  ASSERT_EQ(vocab["."], 7);
  ASSERT_EQ(vocab["?"], 14);
  vocab.erase(".");
  vocab.erase("?");
  vocab["\u00C3"] = 7;   // GPT-2 byte-level symbol of byte C3
  vocab["\u00A9"] = 14;  // ... of byte A9
  // Drop the merges that use the renamed symbols (none applies to the prompt).
  nlohmann::json merges = nlohmann::json::array();
  for (const nlohmann::json& m : j["model"]["merges"]) {
    if (m[0] != "." && m[1] != "." && m[0] != "?" && m[1] != "?") merges.push_back(m);
  }
  j["model"]["merges"] = merges;
  const std::string path =
      ::testing::TempDir() + "/etr_utf8_tokenizer_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(path);
    f << j.dump();
  }
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", path);
  TextRun out = run(r, kPrompt, greedy());
  std::remove(path.c_str());
  ASSERT_EQ(out.error, Error::Ok);
  EXPECT_EQ(r.generated_ids(), head(tokens, kContext - 12));
  ASSERT_FALSE(out.pieces.empty());
  // Token 7 alone gives no piece; token 14 completes the character.
  EXPECT_EQ(out.pieces[0], "\xC3\xA9");
  EXPECT_EQ(out.pieces.size(), r.generated_ids().size() - 1);
  EXPECT_EQ(out.text, "\xC3\xA9" + text.substr(2));
}

TEST(TextLLMRunnerTest, TokenizerLargerThanTheModel) {
  // tokenizer.json plus an added token with id 200 (the model has 128 rows).
  nlohmann::json j = nlohmann::json::parse(read_text(kTokenizer));
  j["added_tokens"].push_back({{"id", 200},
                               {"content", "<big>"},
                               {"single_word", false},
                               {"lstrip", false},
                               {"rstrip", false},
                               {"normalized", false},
                               {"special", true}});
  const std::string path =
      ::testing::TempDir() + "/etr_big_tokenizer_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(path);
    f << j.dump();
  }
  TextLLMRunner r(kDir + "tiny_llama_portable.pte", path);
  ASSERT_EQ(r.load(), Error::Ok);  // allowed, with a warning
  EXPECT_EQ(r.tokenizer()->vocab_size(), 201);
  EXPECT_EQ(r.vocab_size(), 128);
  Error e = Error::Ok;
  const std::string msg = captured([&] { return run(r, "Once <big>", greedy(3)).error; }, &e);
  EXPECT_EQ(e, Error::InvalidArgument);
  EXPECT_NE(msg.find("200"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vocabulary of 128"), std::string::npos) << msg;
  EXPECT_EQ(r.position(), 0);
  EXPECT_EQ(run(r, kPrompt, greedy(3)).error, Error::Ok);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace llm
}  // namespace etr
