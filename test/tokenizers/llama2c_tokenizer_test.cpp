// Llama2cTokenizer against the official runner's llama2.c reader
// (pytorch_tokenizers' C++ Llama2cTokenizer) on a tokenizer.bin that the
// official converter made from a SentencePiece BPE model, and the
// `sentencepiece` package's decode of the same ids
// (test/tokenizers/data/llama2c, written by make_more_tokenizer_fixtures.py).
// Plus hostile files: every count and length is checked against the file.
#include "extension/tokenizers/llama2c_tokenizer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

void put_i32(std::string* b, size_t at, int32_t v) { std::memcpy(&(*b)[at], &v, 4); }

std::string i32(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string f32(float v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

TEST(Llama2cTokenizer, MatchesTheOfficialReaderIdsAndTheSentencepieceText) {
  auto tok = Llama2cTokenizer::load(data_path("llama2c/tokenizer.bin"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const Llama2cTokenizer& t = tok.value();
  EXPECT_EQ(t.vocab_size(), 520);
  EXPECT_EQ(t.bos_id(), 1);
  EXPECT_EQ(t.eos_id(), 2);
  const json ref = json::parse(read_text(data_path("llama2c/reference.json")));
  ASSERT_GE(ref.size(), 40u);
  size_t pieces_checked = 0;
  for (const json& e : ref) {
    const std::string text = e["text"].get<std::string>();
    const auto want = e["ids"].get<std::vector<int32_t>>();
    auto ids = t.encode(text, 1, 1);
    ASSERT_TRUE(ids.ok()) << ids.error();
    std::vector<int32_t> with_bos_eos = {1};
    with_bos_eos.insert(with_bos_eos.end(), want.begin(), want.end());
    with_bos_eos.push_back(2);
    EXPECT_EQ(ids.value(), with_bos_eos) << "text: '" << text << "'";
    // Streaming after BOS gives the sentencepiece package's decode.
    std::string streamed;
    int32_t prev = t.bos_id();
    for (size_t i = 0; i < want.size(); ++i) {
      auto piece = t.decode(prev, want[i]);
      ASSERT_TRUE(piece.ok()) << piece.error();
      streamed += piece.value();
      // The official decode of the id alone (previous token not BOS).
      if (i > 0 && !e["pieces"][i].is_null()) {
        EXPECT_EQ(piece.value(), e["pieces"][i].get<std::string>()) << "id " << want[i];
        ++pieces_checked;
      }
      prev = want[i];
    }
    EXPECT_EQ(streamed, e["decoded"].get<std::string>());
  }
  EXPECT_GT(pieces_checked, 300u);
}

TEST(Llama2cTokenizer, DecodeDropsTheSpaceAfterBosAndReadsByteTokens) {
  auto tok = Llama2cTokenizer::load(data_path("llama2c/tokenizer.bin"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const Llama2cTokenizer& t = tok.value();
  // 261 is " a" in the fixture; byte tokens start at 3 (<0x00>).
  EXPECT_EQ(t.decode(1, 261).value(), "a");
  EXPECT_EQ(t.decode(5, 261).value(), " a");
  EXPECT_EQ(t.decode(5, 3 + 0xE4).value(), "\xE4");
  EXPECT_EQ(t.decode(5, 3 + '\n').value(), "\n");
  EXPECT_EQ(t.decode(5, 1).value(), "<s>");
}

// A three-token file: <unk>, <s>, </s> then "a" (score -1) and "b" and "ab" (score 5).
std::string small_file(int32_t vocab) {
  std::string b = i32(vocab) + i32(1) + i32(2) + i32(5);
  const char* pieces[] = {"<unk>", "<s>", "</s>", "a", "b", "ab", " "};
  const float scores[] = {0, 0, 0, -1, -1, 5, -2};
  for (int i = 0; i < 7; ++i) {
    b += f32(scores[i]) + i32(static_cast<int32_t>(std::strlen(pieces[i]))) + pieces[i];
  }
  return b;
}

TEST(Llama2cTokenizer, MergesByScoreAndFallsBackToBytes) {
  auto tok = Llama2cTokenizer::load_from_string(small_file(7), "small");
  ASSERT_TRUE(tok.ok()) << tok.error();
  EXPECT_EQ(tok.value().encode("ab", 1, 0).value(), (std::vector<int32_t>{1, 6, 5}));
  // 'c' has no token and its byte token 0x63 + 3 is beyond the 7 tokens.
  auto c = tok.value().encode("abc", 0, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("outside the vocabulary"), std::string::npos) << c.error();
  EXPECT_FALSE(tok.value().encode("", 1, 0).ok());
  EXPECT_FALSE(tok.value().encode("a", -1, 0).ok());
  EXPECT_FALSE(tok.value().decode(1, 7).ok());
  EXPECT_FALSE(tok.value().decode(1, -3).ok());
}

TEST(Llama2cTokenizer, EqualScoresMergeTheLeftmostPairFirst) {
  std::string b = i32(6) + i32(1) + i32(2) + i32(4);
  const char* pieces[] = {"<u>", "<s>", "</s>", " ", "a", "aa"};
  for (int i = 0; i < 6; ++i) {
    b += f32(i == 5 ? 1.0f : 0.0f) + i32(static_cast<int32_t>(std::strlen(pieces[i]))) + pieces[i];
  }
  auto tok = Llama2cTokenizer::load_from_string(b, "ties");
  ASSERT_TRUE(tok.ok()) << tok.error();
  // " aaa": the pairs (a, a) at 1 and 2 tie; the official reader merges the first.
  EXPECT_EQ(tok.value().encode("aaa", 0, 0).value(), (std::vector<int32_t>{3, 5, 4}));
}

TEST(Llama2cTokenizer, AFileEndingAtATokenBoundaryIsPaddedLikeTheOfficialReader) {
  auto tok = Llama2cTokenizer::load_from_string(small_file(10), "padded");
  ASSERT_TRUE(tok.ok()) << tok.error();
  EXPECT_EQ(tok.value().vocab_size(), 10);
  EXPECT_EQ(tok.value().decode(0, 9).value(), "<pad>");
}

TEST(Llama2cTokenizer, HostileFilesAreErrorsNamingTheFileAndOffset) {
  const std::string good = small_file(7);
  const auto expect_error = [](const std::string& bytes, const std::string& want) {
    auto t = Llama2cTokenizer::load_from_string(bytes, "bad.bin");
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().find("bad.bin: at offset "), std::string::npos) << t.error();
    EXPECT_NE(t.error().find(want), std::string::npos) << t.error();
  };
  expect_error(good.substr(0, 10), "truncated");
  expect_error(good.substr(0, 16), "no tokens");
  expect_error(good.substr(0, 16 + 6), "offset 16: truncated");
  expect_error(good.substr(0, 16 + 8 + 3), "truncated in token 0");
  std::string b = good;
  put_i32(&b, 0, 0x7fffffff);
  expect_error(b, "vocab size");
  b = good;
  put_i32(&b, 0, -5);
  expect_error(b, "vocab size");
  b = good;
  put_i32(&b, 4, 7);
  expect_error(b, "BOS id 7");
  b = good;
  put_i32(&b, 8, -1);
  expect_error(b, "EOS id -1");
  b = good;
  put_i32(&b, 12, 0x7fffffff);
  expect_error(b, "max token length");
  b = good;
  put_i32(&b, 16 + 4, 0x7fffffff);  // token 0's length
  expect_error(b, "offset 20: token 0's length 2147483647");
  b = good;
  put_i32(&b, 16 + 4, -1);
  expect_error(b, "token 0's length -1");
  b = good;
  put_i32(&b, 16 + 4, 5);  // fine, then token 1's length past the end of the file
  put_i32(&b, 16 + 8 + 5 + 4, 5);
  b.resize(16 + 8 + 5 + 8 + 2);
  expect_error(b, "truncated in token 1");
  // The real fixture cut at every 97th byte loads or fails, never crashes.
  const std::string real = read_text(data_path("llama2c/tokenizer.bin"));
  for (size_t n = 0; n < real.size(); n += 97) {
    auto t = Llama2cTokenizer::load_from_string(real.substr(0, n), "cut.bin");
    if (!t.ok()) {
      EXPECT_NE(t.error().find("cut.bin"), std::string::npos);
    }
  }
  EXPECT_FALSE(Llama2cTokenizer::load("/nonexistent/tokenizer.bin").ok());
}

}  // namespace
}  // namespace etr
