// SpTokenizer (libsentencepiece) against the official runner's SentencePiece
// reader (pytorch_tokenizers' C++ SPTokenizer) and the `sentencepiece`
// package, on a BPE model (Llama 2 style: no normalization) and a unigram
// model (NFKC, whitespace collapsed), both with byte fallback
// (test/tokenizers/data/sp_*, written by make_more_tokenizer_fixtures.py).
// Compiled only when the reader is built.
#ifdef ETR_HAS_SENTENCEPIECE
#include "extension/tokenizers/sp_tokenizer.h"

#include <gtest/gtest.h>

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

bool is_byte_piece(const std::string& p) { return p.size() == 6 && p.compare(0, 3, "<0x") == 0; }

class SpTokenizerReference : public ::testing::TestWithParam<const char*> {};

TEST_P(SpTokenizerReference, MatchesTheReferenceIdsAndText) {
  const std::string dir = GetParam();
  auto tok = SpTokenizer::load(data_path(dir + "/tokenizer.model"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const SpTokenizer& t = tok.value();
  EXPECT_EQ(t.vocab_size(), dir == "sp_bpe" ? 520 : 432);
  EXPECT_EQ(t.bos_id(), 1);
  EXPECT_EQ(t.eos_id(), 2);
  const json ref = json::parse(read_text(data_path(dir + "/reference.json")));
  ASSERT_GE(ref.size(), 40u);
  size_t pieces_checked = 0;
  for (const json& e : ref) {
    const std::string text = e["text"].get<std::string>();
    const auto want = e["ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(want, e["py_ids"].get<std::vector<int32_t>>());  // the package agrees
    auto ids = t.encode(text, 1, 0);
    ASSERT_TRUE(ids.ok()) << ids.error();
    std::vector<int32_t> with_bos = {1};
    with_bos.insert(with_bos.end(), want.begin(), want.end());
    EXPECT_EQ(ids.value(), with_bos) << "text: '" << text << "'";
    std::string streamed;
    int32_t prev = t.bos_id();
    for (size_t i = 0; i < want.size(); ++i) {
      auto piece = t.decode(prev, want[i]);
      ASSERT_TRUE(piece.ok()) << piece.error();
      streamed += piece.value();
      // The official decode of the id alone (previous token not BOS), except for byte
      // tokens, which the official reader prints as "<0xNN>" text.
      if (!e["pieces"][i].is_null() && !is_byte_piece(e["pieces"][i].get<std::string>())) {
        std::string official = e["pieces"][i].get<std::string>();
        if (i == 0 && !official.empty() && official[0] == ' ') official.erase(0, 1);
        EXPECT_EQ(piece.value(), official) << "id " << want[i];
        ++pieces_checked;
      }
      prev = want[i];
    }
    EXPECT_EQ(streamed, e["decoded"].get<std::string>()) << "text: '" << text << "'";
  }
  EXPECT_GT(pieces_checked, 300u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SpTokenizerReference, ::testing::Values("sp_bpe", "sp_unigram"));

TEST(SpTokenizer, BosEosControlAndBadIds) {
  auto tok = SpTokenizer::load(data_path("sp_bpe/tokenizer.model"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const SpTokenizer& t = tok.value();
  auto ids = t.encode("Hello", 2, 1);
  ASSERT_TRUE(ids.ok()) << ids.error();
  EXPECT_EQ(ids.value().front(), 1);
  EXPECT_EQ(ids.value()[1], 1);
  EXPECT_EQ(ids.value().back(), 2);
  EXPECT_EQ(t.decode(1, 2).value(), "");                // </s> is a control token
  EXPECT_EQ(t.decode(5, 0).value(), " \xE2\x81\x87 ");  // <unk>'s surface
  EXPECT_EQ(t.decode(5, 3 + 0xF0).value(), "\xF0");
  auto beyond = t.decode(1, t.vocab_size());
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().find("outside the vocabulary"), std::string::npos) << beyond.error();
  EXPECT_FALSE(t.decode(1, -1).ok());
  EXPECT_FALSE(t.encode("x", -1, 0).ok());
}

TEST(SpTokenizer, BadFilesNameTheFile) {
  const std::string good = read_text(data_path("sp_bpe/tokenizer.model"));
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, good.size() / 2, good.size() - 1}) {
    auto t = SpTokenizer::load_from_string(good.substr(0, n), "cut.model");
    ASSERT_FALSE(t.ok()) << n;
    EXPECT_NE(t.error().find("cut.model: not a SentencePiece model"), std::string::npos)
        << t.error();
  }
  EXPECT_FALSE(SpTokenizer::load_from_string("hello world\n", "text").ok());
  EXPECT_FALSE(SpTokenizer::load("/nonexistent/tokenizer.model").ok());
}

}  // namespace
}  // namespace etr
#endif  // ETR_HAS_SENTENCEPIECE
