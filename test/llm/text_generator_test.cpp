// The LLM generation loop (extension/llm/text_generator.h) on the tiny Llama
// from ExecuTorch's own exporter (test/models/llm): greedy generation must
// give the eager PyTorch model's greedy tokens (greedy_tokens.npy, written by
// greedy_reference.py: prompt [1, 5, 9, 17, 33], argmax fed back until the
// context of 32 is full), on the portable and the XNNPACK program.
#include "extension/llm/text_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "extension/tensor/npy.h"

namespace etr {
namespace llm {
namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/llm/";

std::vector<int64_t> load_ids(const std::string& name) {
  Result<HostTensor> t = read_npy(kDir + name);
  EXPECT_TRUE(t.ok()) << "reading " << name;
  return t.ok() ? t->values<int64_t>() : std::vector<int64_t>{};
}

GenerationConfig greedy(int32_t max_new_tokens) {
  GenerationConfig c;
  c.temperature = 0.0f;
  c.max_new_tokens = max_new_tokens;
  return c;
}

struct GenRun {
  Error error;
  std::vector<int64_t> tokens;
};

GenRun run(TextGenerator& gen, const std::vector<int64_t>& prompt, const GenerationConfig& config) {
  GenRun r;
  r.error = gen.generate(prompt, config, [&](int64_t id) { r.tokens.push_back(id); });
  return r;
}

std::vector<std::string> programs() {
  std::vector<std::string> p = {"tiny_llama_portable.pte"};
#if ETR_LLM_TEST_HAS_XNNPACK
  p.push_back("tiny_llama_xnnpack.pte");
#endif
  return p;
}

std::vector<int64_t> slice(const std::vector<int64_t>& v, size_t begin, size_t end) {
  return std::vector<int64_t>(v.begin() + static_cast<std::ptrdiff_t>(begin),
                              v.begin() + static_cast<std::ptrdiff_t>(end));
}

TEST(TextGeneratorTest, MetadataOfTheExport) {
  for (const std::string& pte : programs()) {
    SCOPED_TRACE(pte);
    TextGenerator gen(kDir + pte);
    ASSERT_EQ(gen.load(), Error::Ok);
    const LlmMetadata& m = gen.metadata();
    EXPECT_EQ(m.bos_id, 1);
    EXPECT_EQ(m.eos_ids, std::vector<int64_t>{2});
    EXPECT_EQ(m.max_seq_len, 32);
    EXPECT_EQ(m.max_context_len, 32);
    EXPECT_EQ(m.vocab_size, 128);
    EXPECT_TRUE(m.use_kv_cache);
    // The exporter marks the token input dynamic (S up to max_seq_len - 1).
    EXPECT_TRUE(m.enable_dynamic_shape);
    // The token input is declared Long[1, 31] (dynamic up to max_seq_len - 1).
    EXPECT_EQ(m.max_prefill_chunk, 31);
  }
}

TEST(TextGeneratorTest, GreedyMatchesEager) {
  const std::vector<int64_t> prompt = load_ids("greedy_prompt.npy");
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  ASSERT_EQ(prompt, (std::vector<int64_t>{1, 5, 9, 17, 33}));
  ASSERT_EQ(want.size(), 28u);
  for (const std::string& pte : programs()) {
    for (size_t threads : {size_t{1}, size_t{2}}) {
      SCOPED_TRACE(pte + ", threads " + std::to_string(threads));
      ModuleOptions options;
      options.num_threads = threads;
      TextGenerator gen(kDir + pte, options);
      GenRun r = run(gen, prompt, greedy(10));
      ASSERT_EQ(r.error, Error::Ok);
      EXPECT_EQ(r.tokens, slice(want, 0, 10));
      EXPECT_EQ(gen.stats().prompt_tokens, 5);
      EXPECT_EQ(gen.stats().generated_tokens, 10);
      EXPECT_GT(gen.stats().prefill_ms, 0.0);
      EXPECT_GT(gen.stats().decode_tokens_per_s(), 0.0);
      // Nine tokens fed back after the five of the prompt.
      EXPECT_EQ(gen.position(), 14);
      std::printf("[ info ] %s threads %zu: %s\n", pte.c_str(), threads,
                  gen.stats().to_string().c_str());
    }
  }
}

TEST(TextGeneratorTest, TokenByTokenPrefillMatchesEager) {
  // The path for programs with static shapes: one prompt token per call.
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  for (const std::string& pte : programs()) {
    SCOPED_TRACE(pte);
    TextGenerator gen(kDir + pte);
    EXPECT_EQ(gen.set_max_prefill_chunk(1), Error::InvalidState);
    ASSERT_EQ(gen.load(), Error::Ok);
    EXPECT_EQ(gen.set_max_prefill_chunk(0), Error::InvalidArgument);
    ASSERT_EQ(gen.set_max_prefill_chunk(1), Error::Ok);
    EXPECT_EQ(gen.metadata().max_prefill_chunk, 1);
    GenRun r = run(gen, {1, 5, 9, 17, 33}, greedy(10));
    ASSERT_EQ(r.error, Error::Ok);
    EXPECT_EQ(r.tokens, slice(want, 0, 10));
    // Chunks of 2 (3 calls for the prompt) give the same tokens.
    gen.reset();
    ASSERT_EQ(gen.set_max_prefill_chunk(2), Error::Ok);
    r = run(gen, {1, 5, 9, 17, 33}, greedy(10));
    ASSERT_EQ(r.error, Error::Ok);
    EXPECT_EQ(r.tokens, slice(want, 0, 10));
  }
}

TEST(TextGeneratorTest, UnlimitedStopsWhenTheContextIsFull) {
  // Positions 5..31 take 27 fed-back tokens, and the one sampled at 31 ends it.
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  for (const std::string& pte : programs()) {
    SCOPED_TRACE(pte);
    TextGenerator gen(kDir + pte);
    GenRun r = run(gen, {1, 5, 9, 17, 33}, greedy(-1));
    ASSERT_EQ(r.error, Error::Ok);
    EXPECT_EQ(r.tokens, want);
    EXPECT_EQ(gen.position(), 32);
    // Nothing more fits: the carried token alone overflows the context.
    EXPECT_EQ(run(gen, {}, greedy(-1)).error, Error::InvalidArgument);
  }
}

TEST(TextGeneratorTest, StopsAtAnEosId) {
  // The model's own EOS (2) never comes up in these 28 tokens, so 25 (the
  // eager model's 4th token) stands in: generation ends with it, included.
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  ASSERT_EQ(want[3], 25);
  ASSERT_EQ(std::count(want.begin(), want.end(), 2), 0);
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  EXPECT_EQ(gen.set_eos_ids({25}), Error::InvalidState);
  ASSERT_EQ(gen.load(), Error::Ok);
  ASSERT_EQ(gen.set_eos_ids({99, 25}), Error::Ok);
  GenRun r = run(gen, {1, 5, 9, 17, 33}, greedy(20));
  ASSERT_EQ(r.error, Error::Ok);
  EXPECT_EQ(r.tokens, slice(want, 0, 4));
  EXPECT_EQ(gen.position(), 8);
}

TEST(TextGeneratorTest, StopFromTheCallback) {
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  std::vector<int64_t> got;
  Error e = gen.generate({1, 5, 9, 17, 33}, greedy(20), [&](int64_t id) {
    got.push_back(id);
    if (got.size() == 3) gen.stop();
  });
  ASSERT_EQ(e, Error::Ok);
  EXPECT_EQ(got, slice(want, 0, 3));
  EXPECT_EQ(gen.stats().generated_tokens, 3);
  // The stop request does not carry over to the next call.
  gen.reset();
  GenRun again = run(gen, {1, 5, 9, 17, 33}, greedy(6));
  ASSERT_EQ(again.error, Error::Ok);
  EXPECT_EQ(again.tokens, slice(want, 0, 6));
}

TEST(TextGeneratorTest, ResetGivesTheSameTokens) {
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  GenRun first = run(gen, {1, 5, 9, 17, 33}, greedy(8));
  ASSERT_EQ(first.error, Error::Ok);
  gen.reset();
  EXPECT_EQ(gen.position(), 0);
  GenRun second = run(gen, {1, 5, 9, 17, 33}, greedy(8));
  ASSERT_EQ(second.error, Error::Ok);
  EXPECT_EQ(second.tokens, first.tokens);
  EXPECT_EQ(second.tokens, slice(load_ids("greedy_tokens.npy"), 0, 8));
}

TEST(TextGeneratorTest, SecondCallContinuesTheSequence) {
  // 4 tokens, then 6 more with no new prompt: the carried token is fed at
  // position 8 and the continuation is the eager model's tokens 4..9.
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  GenRun first = run(gen, {1, 5, 9, 17, 33}, greedy(4));
  ASSERT_EQ(first.error, Error::Ok);
  EXPECT_EQ(first.tokens, slice(want, 0, 4));
  EXPECT_EQ(gen.position(), 8);
  GenRun second = run(gen, {}, greedy(6));
  ASSERT_EQ(second.error, Error::Ok);
  EXPECT_EQ(second.tokens, slice(want, 4, 10));
  EXPECT_EQ(gen.position(), 14);
}

TEST(TextGeneratorTest, EchoPassesThePromptFirst) {
  const std::vector<int64_t> want = load_ids("greedy_tokens.npy");
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  GenerationConfig c = greedy(2);
  c.echo = true;
  GenRun r = run(gen, {1, 5, 9, 17, 33}, c);
  ASSERT_EQ(r.error, Error::Ok);
  EXPECT_EQ(r.tokens, (std::vector<int64_t>{1, 5, 9, 17, 33, want[0], want[1]}));
  EXPECT_EQ(gen.stats().generated_tokens, 2);
}

TEST(TextGeneratorTest, SeededSamplingIsReproducible) {
  GenerationConfig c;
  c.temperature = 1.0f;
  c.top_p = 0.9f;
  c.seed = 7;
  c.max_new_tokens = 12;
  TextGenerator a(kDir + "tiny_llama_portable.pte");
  TextGenerator b(kDir + "tiny_llama_portable.pte");
  GenRun ra = run(a, {1, 5, 9}, c);
  GenRun rb = run(b, {1, 5, 9}, c);
  ASSERT_EQ(ra.error, Error::Ok);
  ASSERT_EQ(rb.error, Error::Ok);
  EXPECT_EQ(ra.tokens.size(), 12u);
  EXPECT_EQ(ra.tokens, rb.tokens);
  for (int64_t id : ra.tokens) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 128);
  }
}

TEST(TextGeneratorTest, PromptLongerThanOneChunkIsSplit) {
  // 32 tokens: more than one prefill call takes (31), exactly the context;
  // one token is sampled after it and the context is full.
  std::vector<int64_t> prompt;
  for (int i = 0; i < 32; ++i) prompt.push_back((i * 7 + 3) % 128);
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  GenRun r = run(gen, prompt, greedy(-1));
  ASSERT_EQ(r.error, Error::Ok);
  EXPECT_EQ(r.tokens.size(), 1u);
  EXPECT_EQ(gen.position(), 32);
}

TEST(TextGeneratorTest, PromptPastTheContextFails) {
  std::vector<int64_t> prompt(33, 5);
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  GenRun r = run(gen, prompt, greedy(4));
  EXPECT_EQ(r.error, Error::InvalidArgument);
  EXPECT_TRUE(r.tokens.empty());
  EXPECT_EQ(gen.position(), 0);
  // A prompt that fits alone but not after the tokens already in the cache.
  ASSERT_EQ(run(gen, {1, 5, 9, 17, 33}, greedy(10)).error, Error::Ok);
  EXPECT_EQ(run(gen, std::vector<int64_t>(20, 5), greedy(4)).error, Error::InvalidArgument);
  EXPECT_EQ(gen.position(), 14);
}

TEST(TextGeneratorTest, BadInputFails) {
  TextGenerator gen(kDir + "tiny_llama_portable.pte");
  EXPECT_EQ(run(gen, {}, greedy(4)).error, Error::InvalidArgument);
  EXPECT_EQ(run(gen, {1, 500}, greedy(4)).error, Error::InvalidArgument);
  EXPECT_EQ(run(gen, {1, -3}, greedy(4)).error, Error::InvalidArgument);
  GenerationConfig bad;
  bad.temperature = 1.0f;
  bad.top_p = 1.5f;
  EXPECT_EQ(run(gen, {1, 5}, bad).error, Error::InvalidArgument);
  EXPECT_EQ(gen.position(), 0);
  TextGenerator missing(kDir + "no_such_model.pte");
  EXPECT_NE(missing.load(), Error::Ok);
  EXPECT_NE(run(missing, {1}, greedy(1)).error, Error::Ok);
}

}  // namespace
}  // namespace llm
}  // namespace etr
