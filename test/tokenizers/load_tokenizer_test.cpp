// load_tokenizer(): format detection from the file's contents, and the
// messages for files it cannot use.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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

}  // namespace
}  // namespace etr
