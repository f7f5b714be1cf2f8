// load_tokenizer(): format detection from the file's contents, and the
// messages for files it cannot use.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "extension/tokenizers/tokenizer.h"

namespace etr {
namespace {

std::string data_path(const std::string& name) {
  return std::string(ETR_SOURCE_DIR) + "/test/tokenizers/data/" + name;
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

TEST(LoadTokenizer, DetectsTokenizerJsonAndEncodesThroughTheInterface) {
  auto tok = load_tokenizer(data_path("llama3_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const Tokenizer& t = *tok.value();
  EXPECT_STREQ(t.kind(), "hf");
  EXPECT_EQ(t.vocab_size(), 300);
  ASSERT_GE(t.bos_id(), 0);
  auto ids = t.encode("Hello world", 1, 0);
  ASSERT_TRUE(ids.ok()) << ids.error();
  ASSERT_GE(ids.value().size(), 2u);
  EXPECT_EQ(ids.value()[0], t.bos_id());
  // Decoding every piece after the BOS gives the text back.
  std::string text;
  int32_t prev = ids.value()[0];
  for (size_t i = 1; i < ids.value().size(); ++i) {
    auto piece = t.decode(prev, ids.value()[i]);
    ASSERT_TRUE(piece.ok()) << piece.error();
    text += piece.value();
    prev = ids.value()[i];
  }
  EXPECT_EQ(text, "Hello world");
  EXPECT_FALSE(t.decode(0, t.vocab_size()).ok());
  EXPECT_FALSE(t.encode("x", -1, 0).ok());
}

TEST(LoadTokenizer, NamesTheFileItCannotUse) {
  auto missing = load_tokenizer("/nonexistent/tokenizer.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("/nonexistent/tokenizer.json"), std::string::npos);

  auto empty = load_tokenizer(write_temp("etr_empty_tokenizer", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("empty"), std::string::npos) << empty.error();

  auto broken = load_tokenizer(write_temp("etr_broken_tokenizer.json", "{\"model\": "));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().find("etr_broken_tokenizer.json"), std::string::npos) << broken.error();
}

TEST(LoadTokenizer, DetectsEachFormatInTheOfficialOrder) {
  struct Case {
    const char* file;
    const char* kind;
    int32_t vocab, bos, eos;
  };
  std::vector<Case> cases = {{"tiktoken/tokenizer.model", "tiktoken", 712, 456, 457},
                             {"llama2c/tokenizer.bin", "llama2c", 520, 1, 2}};
#ifdef ETR_HAS_SENTENCEPIECE
  cases.push_back({"sp_bpe/tokenizer.model", "sentencepiece", 520, 1, 2});
  cases.push_back({"sp_unigram/tokenizer.model", "sentencepiece", 432, 1, 2});
#endif
  for (const Case& c : cases) {
    auto tok = load_tokenizer(data_path(c.file));
    ASSERT_TRUE(tok.ok()) << c.file << ": " << tok.error();
    const Tokenizer& t = *tok.value();
    EXPECT_STREQ(t.kind(), c.kind) << c.file;
    EXPECT_EQ(t.vocab_size(), c.vocab) << c.file;
    EXPECT_EQ(t.bos_id(), c.bos) << c.file;
    EXPECT_EQ(t.eos_id(), c.eos) << c.file;
    auto ids = t.encode("Hello world", 1, 1);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value().front(), c.bos);
    EXPECT_EQ(ids.value().back(), c.eos);
    EXPECT_FALSE(t.decode(c.bos, t.vocab_size()).ok());
  }
}

TEST(LoadTokenizer, AFileOfNoFormatGetsOneMessageNamingTheFormatsTried) {
  const std::string path = write_temp("etr_not_a_tokenizer.txt", "just some text\nand more\n");
  auto tok = load_tokenizer(path);
  ASSERT_FALSE(tok.ok());
  const std::string& e = tok.error();
  EXPECT_EQ(e.find(path + ": not a tokenizer this build reads"), 0u) << e;
  for (const char* format : {"tokenizer.json", "tiktoken", "SentencePiece", "llama2.c"}) {
    EXPECT_NE(e.find(format), std::string::npos) << format << " in " << e;
  }
  // A truncated tiktoken file fails as tiktoken and as everything else.
  auto cut = load_tokenizer(write_temp("etr_cut_tiktoken.model", "YQ== 0\nYg"));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("line 2"), std::string::npos) << cut.error();
}

}  // namespace
}  // namespace etr
