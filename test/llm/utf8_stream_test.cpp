// Utf8Stream (whole characters only), GenerationConfig::resolve_max_new_tokens
// (the official runner's rule, irunner.h) and RunnerStats' JSON line.
#include "extension/llm/utf8_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "extension/llm/stats.h"
#include "extension/llm/text_generator.h"

namespace etr {
namespace llm {
namespace {

TEST(Utf8StreamTest, HoldsBackASplitCharacter) {
  Utf8Stream s;
  // "é" = C3 A9, "€" = E2 82 AC, "😀" = F0 9F 98 80.
  EXPECT_EQ(s.push("a\xC3"), "a");
  EXPECT_EQ(s.pending_bytes(), 1u);
  EXPECT_EQ(s.push("\xA9"), "\xC3\xA9");
  EXPECT_EQ(s.push("\xE2"), "");
  EXPECT_EQ(s.push("\x82"), "");
  EXPECT_EQ(s.push("\xAC b"), "\xE2\x82\xAC b");
  EXPECT_EQ(s.push("\xF0\x9F\x98"), "");
  EXPECT_EQ(s.push("\x80\xF0"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(s.flush(), "\xF0");
  EXPECT_EQ(s.pending_bytes(), 0u);
}

TEST(Utf8StreamTest, PassesBrokenBytesOn) {
  Utf8Stream s;
  // A stray continuation byte and a lead byte followed by ASCII go out as they are.
  EXPECT_EQ(s.push("\x80x"), "\x80x");
  EXPECT_EQ(s.push("\xC3y"), "\xC3y");
  EXPECT_EQ(s.push("\xFF"), "\xFF");
  EXPECT_EQ(s.flush(), "");
}

TEST(Utf8StreamTest, ConcatenationIsTheInput) {
  const std::string text = "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80!";
  for (size_t cut = 1; cut < 4; ++cut) {
    Utf8Stream s;
    std::string out;
    for (size_t i = 0; i < text.size(); i += cut) out += s.push(text.substr(i, cut));
    out += s.flush();
    EXPECT_EQ(out, text) << "pieces of " << cut;
  }
}

TEST(GenerationConfigTest, ResolveMaxNewTokensAsTheOfficialRunner) {
  GenerationConfig c;  // both -1: the context minus the prompt
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 27);
  c.max_new_tokens = 10;
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 10);
  c.max_new_tokens = 100;  // lowered to what the context leaves
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 27);
  c.max_new_tokens = -1;
  c.seq_len = 20;
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 15);
  c.seq_len = 64;  // capped at the context
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 27);
  c.seq_len = 20;
  c.max_new_tokens = 4;
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 4);
  c.max_new_tokens = -1;
  c.seq_len = 3;  // never negative
  EXPECT_EQ(c.resolve_max_new_tokens(32, 5), 0);
}

TEST(RunnerStatsTest, JsonHasTheOfficialFields) {
  RunnerStats s;
  s.model_load_start_ms = 100;
  s.model_load_end_ms = 150;
  s.inference_start_ms = 200;
  s.prompt_eval_end_ms = 250;
  s.first_token_ms = 250;
  s.inference_end_ms = 450;
  s.num_prompt_tokens = 10;
  s.num_generated_tokens = 20;
  s.aggregate_sampling_time_ms = 3;
  EXPECT_DOUBLE_EQ(s.prefill_tokens_per_s(), 200.0);  // 10 tokens in 50 ms
  EXPECT_DOUBLE_EQ(s.decode_tokens_per_s(), 100.0);   // 20 tokens in 200 ms
  const std::string json = s.to_json();
  for (const char* field :
       {"\"prefill_token_per_sec\":200.", "\"decode_token_per_sec\":100.", "\"prompt_tokens\":10,",
        "\"generated_tokens\":20,", "\"model_load_start_ms\":100,", "\"model_load_end_ms\":150,",
        "\"inference_start_ms\":200,", "\"inference_end_ms\":450,", "\"prompt_eval_end_ms\":250,",
        "\"first_token_ms\":250,", "\"aggregate_sampling_time_ms\":3,",
        "\"model_execution_start_ms\":0,", "\"aggregate_model_execution_time_ms\":0,",
        "\"SCALING_FACTOR_UNITS_PER_SECOND\":1000}"}) {
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
  }
  EXPECT_EQ(json.front(), '{');
  // Measured fractional times take over from the millisecond stamps.
  s.prefill_time_ms = 25;
  s.decode_time_ms = 400;
  EXPECT_DOUBLE_EQ(s.prefill_tokens_per_s(), 400.0);
  EXPECT_DOUBLE_EQ(s.decode_tokens_per_s(), 50.0);
  s.reset();
  EXPECT_EQ(s.model_load_end_ms, 150);  // load times stay
  EXPECT_EQ(s.num_prompt_tokens, 0);
  s.reset(true);
  EXPECT_EQ(s.model_load_end_ms, 0);
  EXPECT_GT(peak_rss_bytes(), 0);
}

}  // namespace
}  // namespace llm
}  // namespace etr
