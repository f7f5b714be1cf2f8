// TiktokenTokenizer against the official runner's tiktoken reader
// (pytorch_tokenizers' C++ Tiktoken) and the `tiktoken` package, on a
// byte-level BPE ranks file and the ids both gave for each test string
// (test/tokenizers/data/tiktoken, written by make_more_tokenizer_fixtures.py).
#include "extension/tokenizers/tiktoken_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "extension/tokenizers/tokenizer.h"

namespace etr {
namespace {

using nlohmann::json;

std::string data_path(const std::string& name) {
  return std::string(ETR_SOURCE_DIR) + "/test/tokenizers/data/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture has 256 byte tokens and 200 merges.
constexpr int32_t kBase = 456;

TEST(TiktokenTokenizer, MatchesTheOfficialReaderIdsAndDecodesToTheText) {
  auto tok = TiktokenTokenizer::load(data_path("tiktoken/tokenizer.model"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const TiktokenTokenizer& t = tok.value();
  EXPECT_EQ(t.vocab_size(), kBase + 256);
  EXPECT_EQ(t.bos_id(), kBase);
  EXPECT_EQ(t.eos_id(), kBase + 1);
  const json ref = json::parse(read_text(data_path("tiktoken/reference.json")));
  ASSERT_GE(ref.size(), 40u);
  size_t pieces_checked = 0;
  for (const json& e : ref) {
    const std::string text = e["text"].get<std::string>();
    const auto want = e["ids"].get<std::vector<int32_t>>();
    auto ids = t.encode(text, 0, 0);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), want) << "text: '" << text << "'";
    // The `tiktoken` package's decode of its ids is the text; ours of the official ids too.
    std::string streamed;
    int32_t prev = t.bos_id();
    for (size_t i = 0; i < want.size(); ++i) {
      auto piece = t.decode(prev, want[i]);
      ASSERT_TRUE(piece.ok()) << piece.error();
      streamed += piece.value();
      prev = want[i];
      if (!e["pieces"][i].is_null()) {
        EXPECT_EQ(piece.value(), e["pieces"][i].get<std::string>()) << "id " << want[i];
        ++pieces_checked;
      }
    }
    EXPECT_EQ(streamed, e["decoded"].get<std::string>());
    EXPECT_EQ(streamed, text);
  }
  EXPECT_GT(pieces_checked, 300u);
}

TEST(TiktokenTokenizer, MetasPatternGivesTheTiktokenPackagesIds) {
  auto tok = TiktokenTokenizer::load(data_path("tiktoken/tokenizer.model"),
                                     TiktokenTokenizer::llama3_pattern());
  ASSERT_TRUE(tok.ok()) << tok.error();
  const json ref = json::parse(read_text(data_path("tiktoken/reference.json")));
  size_t differ = 0;
  for (const json& e : ref) {
    auto ids = tok.value().encode(e["text"].get<std::string>(), 0, 0);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), e["py_ids"].get<std::vector<int32_t>>()) << e["text"];
    differ += e["py_ids"] != e["ids"];
  }
  EXPECT_GE(differ, 3u);  // whitespace runs before a word: the two patterns differ there
}

TEST(TiktokenTokenizer, SpecialTokensBosEos) {
  auto tok = TiktokenTokenizer::load(data_path("tiktoken/tokenizer.model"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const TiktokenTokenizer& t = tok.value();
  EXPECT_EQ(t.token_to_id("<|begin_of_text|>"), kBase);
  EXPECT_EQ(t.token_to_id("<|eot_id|>"), kBase + 9);
  EXPECT_EQ(t.token_to_id("<|python_tag|>"), kBase + 10);
  EXPECT_EQ(t.token_to_id("<|reserved_special_token_2|>"), kBase + 11);
  EXPECT_EQ(t.token_to_id("<|reserved_special_token_246|>"), kBase + 255);
  EXPECT_EQ(t.token_to_id("<|reserved_special_token_247|>"), -1);
  EXPECT_EQ(t.token_to_id("a"), 'a');
  auto ids = t.encode("<|eot_id|>a", 2, 1);
  ASSERT_TRUE(ids.ok()) << ids.error();
  EXPECT_EQ(ids.value(), (std::vector<int32_t>{kBase, kBase, kBase + 9, 'a', kBase + 1}));
  EXPECT_EQ(t.decode(0, kBase + 9).value(), "<|eot_id|>");
}

TEST(TiktokenTokenizer, LongWhitespaceRunsStayWithinTheRegexBudget) {
  auto tok = TiktokenTokenizer::load(data_path("tiktoken/tokenizer.model"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const std::string text = std::string(200000, ' ') + "x" + std::string(100000, '\n') + "!";
  auto ids = tok.value().encode(text, 0, 0);
  ASSERT_TRUE(ids.ok()) << ids.error();
  std::string back;
  for (int32_t id : ids.value()) back += tok.value().decode(0, id).value();
  EXPECT_EQ(back, text);
}

TEST(TiktokenTokenizer, BadFilesNameTheFileAndLine) {
  const std::string good = read_text(data_path("tiktoken/tokenizer.model"));
  // Truncated inside the base64 of a line.
  auto cut = TiktokenTokenizer::load_from_string(good.substr(0, good.find('\n', 2000) + 3), "cut");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("cut: line "), std::string::npos) << cut.error();
  // Not a tokenizer.
  auto text = TiktokenTokenizer::load_from_string("hello world\n", "text");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().find("text: line 1: the token is not valid base64"), std::string::npos)
      << text.error();
  EXPECT_FALSE(TiktokenTokenizer::load_from_string("", "empty").ok());
  EXPECT_FALSE(TiktokenTokenizer::load_from_string("YQ==\n", "norank").ok());
  EXPECT_FALSE(TiktokenTokenizer::load_from_string("YQ== 0x1\n", "hexrank").ok());
  // Ranks beyond the vocabulary, repeated ranks and tokens.
  auto beyond = TiktokenTokenizer::load_from_string("YQ== 0\nYg== 7\n", "beyond");
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().find("rank 7 is beyond the 2 tokens"), std::string::npos)
      << beyond.error();
  EXPECT_FALSE(TiktokenTokenizer::load_from_string("YQ== 0\nYg== 0\n", "dup").ok());
  EXPECT_FALSE(TiktokenTokenizer::load_from_string("YQ== 0\nYQ== 1\n", "duptok").ok());
  EXPECT_FALSE(TiktokenTokenizer::load_from_string("YQ== 99999999999999999999\n", "huge").ok());
  EXPECT_FALSE(TiktokenTokenizer::load("/nonexistent/tokenizer.model").ok());
}

TEST(TiktokenTokenizer, BadIdsAndText) {
  auto tok = TiktokenTokenizer::load(data_path("tiktoken/tokenizer.model"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const TiktokenTokenizer& t = tok.value();
  auto beyond = t.decode(0, t.vocab_size());
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().find("outside the vocabulary"), std::string::npos) << beyond.error();
  EXPECT_FALSE(t.decode(0, -1).ok());
  auto bad_utf8 = t.encode("ab\xC3", 0, 0);
  ASSERT_FALSE(bad_utf8.ok());
  EXPECT_NE(bad_utf8.error().find("byte 2"), std::string::npos) << bad_utf8.error();
  EXPECT_FALSE(t.encode("a", -1, 0).ok());
  // A vocabulary without the byte 'b': text with it cannot be encoded.
  auto small = TiktokenTokenizer::load_from_string("YQ== 0\n", "small");
  ASSERT_TRUE(small.ok()) << small.error();
  EXPECT_EQ(small.value().encode("aaa", 0, 0).value(), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_FALSE(small.value().encode("ab", 0, 0).ok());
}

}  // namespace
}  // namespace etr
