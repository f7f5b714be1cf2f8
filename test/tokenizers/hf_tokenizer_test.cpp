// HfTokenizer against the Hugging Face `tokenizers` package: four byte-level
// BPE tokenizers it trained and the ids its encode() gave for each test
// string (test/tokenizers/data, written by make_tokenizer_fixtures.py), and
// four SentencePiece-style ones (Llama 2 / Phi-3, Gemma, Metaspace layouts)
// with the ids and decoded text it gave (make_sp_style_fixtures.py).
#include "extension/tokenizers/hf_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
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

class HfTokenizerReference : public ::testing::TestWithParam<const char*> {};

TEST_P(HfTokenizerReference, MatchesPythonIdsAndRoundTrips) {
  const std::string dir = GetParam();
  auto tok = HfTokenizer::load(data_path(dir + "/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  // Trained to 300 tokens; gpt2_prefix_space has two added tokens more.
  EXPECT_EQ(tok.value().vocab_size(), dir == "gpt2_prefix_space" ? 302 : 300);
  const json ref = json::parse(read_text(data_path(dir + "/reference.json")));
  ASSERT_GE(ref.size(), 30u);
  for (const json& entry : ref) {
    const std::string text = entry["text"].get<std::string>();
    const std::vector<int32_t> want = entry["ids"].get<std::vector<int32_t>>();
    auto ids = tok.value().encode(text);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), want) << "text: '" << text << "'";
    // The package's decode; it equals the text except where add_prefix_space put
    // spaces in (gpt2_prefix_space).
    const std::string decoded = entry["decoded"].get<std::string>();
    auto back = tok.value().decode(ids.value());
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back.value(), decoded);
    // Streaming: per-token byte pieces concatenate to the text.
    std::string streamed;
    for (int32_t id : ids.value()) {
      auto piece = tok.value().decode(id);
      ASSERT_TRUE(piece.ok()) << piece.error();
      streamed += piece.value();
    }
    EXPECT_EQ(streamed, decoded);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfTokenizerReference,
                         ::testing::Values("gpt2_style", "gpt2_prefix_space", "llama3_style",
                                           "qwen_style"));

TEST(HfTokenizer, BosEosByNameAndSpecialTokens) {
  auto tok = HfTokenizer::load(data_path("llama3_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const HfTokenizer& t = tok.value();
  // The fixture's added_tokens: <|begin_of_text|> 0, <|end_of_text|> 1, <|eot_id|> 2.
  EXPECT_EQ(t.bos_id(), 0);
  EXPECT_EQ(t.eos_id(), 1);
  EXPECT_EQ(t.token_to_id("<|eot_id|>"), 2);
  EXPECT_EQ(t.token_to_id("no such token"), -1);
  auto ids = t.encode("Hello", /*bos=*/true, /*eos=*/true);
  ASSERT_TRUE(ids.ok()) << ids.error();
  ASSERT_GE(ids.value().size(), 3u);
  EXPECT_EQ(ids.value().front(), 0);
  EXPECT_EQ(ids.value().back(), 1);
  auto plain = t.encode("Hello");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(ids.value().size(), plain.value().size() + 2);
  auto text = t.decode(ids.value());
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(), "<|begin_of_text|>Hello<|end_of_text|>");
}

TEST(HfTokenizer, BosEosFromTemplateProcessing) {
  json j = json::parse(read_text(data_path("llama3_style/tokenizer.json")));
  j["post_processor"] = json::parse(R"({"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}},
               {"SpecialToken": {"id": "<|eot_id|>", "type_id": 0}}]})");
  auto tok = HfTokenizer::load_from_string(j.dump());
  ASSERT_TRUE(tok.ok()) << tok.error();
  EXPECT_EQ(tok.value().bos_id(), 0);
  EXPECT_EQ(tok.value().eos_id(), 2);
}

TEST(HfTokenizer, SplitsUtf8AcrossTokensForStreaming) {
  auto tok = HfTokenizer::load(data_path("gpt2_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  // An emoji the tiny vocab has no merge for: four single-byte tokens.
  const std::string emoji = "\xF0\x9F\xA6\x84";  // U+1F984
  auto ids = tok.value().encode(emoji);
  ASSERT_TRUE(ids.ok()) << ids.error();
  ASSERT_EQ(ids.value().size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    auto piece = tok.value().decode(ids.value()[i]);
    ASSERT_TRUE(piece.ok());
    EXPECT_EQ(piece.value(), emoji.substr(i, 1));
  }
}

TEST(HfTokenizer, LongWhitespaceRunsMatchThePackage) {
  // The Llama 3 pattern's \s*[\r\n]+ backtracks over a whole whitespace run
  // before \s+(?!\S) matches it; the regex budget grows with the text. The ids
  // are from the tokenizers package: 274 is "ĠĠ", 223 "Ġ", 90 "x", 91 "y".
  auto tok = HfTokenizer::load(data_path("llama3_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  auto spaces = tok.value().encode(std::string(1000000, ' '));
  ASSERT_TRUE(spaces.ok()) << spaces.error();
  EXPECT_EQ(spaces.value(), std::vector<int32_t>(500000, 274));
  auto framed = tok.value().encode("x" + std::string(1000000, ' ') + "y");
  ASSERT_TRUE(framed.ok()) << framed.error();
  std::vector<int32_t> want{90};
  want.insert(want.end(), 499999, 274);
  want.insert(want.end(), {223, 223, 91});
  EXPECT_EQ(framed.value(), want);
}

TEST(HfTokenizer, NfcNormalizerIsApplied) {
  // qwen_style has an NFC normalizer and a byte-level vocabulary, so every
  // normalization difference shows in the ids. The references are the
  // package's ids for decomposed text (make_sp_style_fixtures.py): every
  // primary composite decomposed, Hangul jamo, singletons (U+212B -> U+00C5),
  // marks out of canonical order, blocked compositions.
  auto tok = HfTokenizer::load(data_path("qwen_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const json ref = json::parse(read_text(data_path("qwen_style/nfc_reference.json")));
  ASSERT_GE(ref.size(), 20u);
  for (const json& entry : ref) {
    const std::string text = entry["text"].get<std::string>();
    auto ids = tok.value().encode(text);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), entry["ids"].get<std::vector<int32_t>>()) << "text: '" << text << "'";
  }
  // "Cafe" + U+0301 encodes as the package encodes precomposed "Caf\u00e9".
  const json plain = json::parse(read_text(data_path("qwen_style/reference.json")));
  auto decomposed = tok.value().encode(
      "Cafe\xCC\x81 cre\xCC\x80me bru\xCC\x82le\xCC\x81"
      "e");
  ASSERT_TRUE(decomposed.ok()) << decomposed.error();
  bool found = false;
  for (const json& entry : plain) {
    if (entry["text"] != "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e") continue;
    found = true;
    EXPECT_EQ(decomposed.value(), entry["ids"].get<std::vector<int32_t>>());
  }
  EXPECT_TRUE(found);
}

TEST(HfTokenizer, NfkcAndNfkdNormalizersAreApplied) {
  // qwen_style with its normalizer made NFKC or NFKD (the entry's "form"):
  // ligatures, fullwidth and circled forms, superscripts, compatibility
  // spaces, and every fifth code point with a compatibility decomposition.
  json j = json::parse(read_text(data_path("qwen_style/tokenizer.json")));
  const json ref = json::parse(read_text(data_path("qwen_style/nfkc_reference.json")));
  ASSERT_GE(ref.size(), 15u);
  for (const char* form : {"NFKC", "NFKD"}) {
    j["normalizer"] = json{{"type", form}};
    auto tok = HfTokenizer::load_from_string(j.dump());
    ASSERT_TRUE(tok.ok()) << tok.error();
    size_t checked = 0;
    for (const json& entry : ref) {
      if (entry["form"] != form) continue;
      const std::string text = entry["text"].get<std::string>();
      auto ids = tok.value().encode(text);
      ASSERT_TRUE(ids.ok()) << ids.error();
      EXPECT_EQ(ids.value(), entry["ids"].get<std::vector<int32_t>>())
          << form << " text: '" << text << "'";
      ++checked;
    }
    EXPECT_GE(checked, 5u);
  }
}

// SentencePiece-style files (Llama 2, TinyLlama, Mistral, Phi-3, Gemma
// layouts; make_sp_style_fixtures.py): ids and decoded text against the
// package, and the streaming pieces against the package's decode of the
// whole sequence.
class HfSpStyleReference : public ::testing::TestWithParam<const char*> {};

TEST_P(HfSpStyleReference, MatchesPythonIdsAndText) {
  const std::string dir = GetParam();
  const std::string path = data_path(dir + "/tokenizer.json");
  auto tok = HfTokenizer::load(path);
  ASSERT_TRUE(tok.ok()) << tok.error();
  const HfTokenizer& t = tok.value();
  const json file = json::parse(read_text(path));
  int32_t max_id = -1;
  std::vector<int32_t> special;
  for (const json& a : file["added_tokens"]) {
    max_id = std::max(max_id, a["id"].get<int32_t>());
    if (a["special"].get<bool>()) special.push_back(a["id"].get<int32_t>());
  }
  for (const auto& kv : file["model"]["vocab"].items()) {
    max_id = std::max(max_id, kv.value().get<int32_t>());
  }
  EXPECT_EQ(t.vocab_size(), max_id + 1);
  // The BOS the post-processor's template names.
  const std::string bos_name =
      file["post_processor"]["single"][0]["SpecialToken"]["id"].get<std::string>();
  EXPECT_EQ(t.bos_id(), file["model"]["vocab"][bos_name].get<int32_t>());
  const json ref = json::parse(read_text(data_path(dir + "/reference.json")));
  ASSERT_GE(ref.size(), 50u);
  size_t streamed_checked = 0;
  for (const json& entry : ref) {
    const std::string text = entry["text"].get<std::string>();
    const std::vector<int32_t> want = entry["ids"].get<std::vector<int32_t>>();
    auto ids = t.encode(text);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), want) << "text: '" << text << "'";
    auto back = t.decode(want);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back.value(), entry["decoded"].get<std::string>()) << "text: '" << text << "'";
    // Streaming: decode(prev, id) pieces concatenate to the package's decode of
    // the whole sequence: from the start of the text (unless the text holds the
    // BOS, after which a stream drops a leading space), and after BOS, where the
    // package skips the BOS and other special tokens (a stream prints their
    // content, so sequences with them are left out there).
    bool has_special = false, has_bos = false;
    for (int32_t id : want) {
      has_special = has_special || std::count(special.begin(), special.end(), id) > 0;
      has_bos = has_bos || id == t.bos_id();
    }
    for (int32_t first_prev : {-1, t.bos_id()}) {
      if (first_prev < 0 ? has_bos : has_special) continue;
      std::string streamed;
      int32_t prev = first_prev;
      for (int32_t id : want) {
        auto piece = t.decode(prev, id);
        ASSERT_TRUE(piece.ok()) << piece.error();
        streamed += piece.value();
        prev = id;
      }
      EXPECT_EQ(streamed,
                entry[first_prev < 0 ? "decoded" : "decoded_after_bos"].get<std::string>())
          << "text: '" << text << "', first prev " << first_prev;
      ++streamed_checked;
    }
  }
  EXPECT_GT(streamed_checked, 60u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfSpStyleReference,
                         ::testing::Values("llama2_style", "gemma_style", "metaspace_style",
                                           "metaspace_nfc_style"));

TEST(HfTokenizer, SpStyleLeadingSpaceAfterBosOnly) {
  // llama2_style: "Hello" starts with a "▁" piece; the Strip decoder
  // drops the text's first space, so a stream drops it after BOS (the official
  // SentencePiece rule) and at the start, and keeps it elsewhere.
  auto tok = HfTokenizer::load(data_path("llama2_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  const HfTokenizer& t = tok.value();
  auto hello = t.encode("Hello");
  ASSERT_TRUE(hello.ok()) << hello.error();
  const int32_t first = hello.value()[0];  // "▁" or a piece starting with it
  const std::string whole = t.decode(hello.value()).value();
  ASSERT_EQ(whole, "Hello");  // the package's decode (reference.json has it too)
  const std::string after_bos = t.decode(t.bos_id(), first).value();
  EXPECT_EQ(whole.compare(0, after_bos.size(), after_bos), 0) << after_bos;
  EXPECT_EQ(t.decode(-1, first).value(), after_bos);
  EXPECT_EQ(t.decode(first, first).value(), " " + after_bos);
  // Byte-fallback pieces are raw bytes: U+1F600 is four of them.
  auto ids = t.encode("\xF0\x9F\x98\x80");
  ASSERT_TRUE(ids.ok()) << ids.error();
  ASSERT_EQ(ids.value().size(), 5u);  // "▁" then <0xF0> <0x9F> <0x98> <0x80>
  EXPECT_EQ(t.decode(ids.value()[0], ids.value()[1]).value(), "\xF0");
  EXPECT_EQ(t.decode(ids.value()[3], ids.value()[4]).value(), "\x80");
  // A lone byte token that is not UTF-8 is U+FFFD in a whole-sequence decode, as in the package.
  EXPECT_EQ(t.decode(std::vector<int32_t>{ids.value()[1]}).value(), "\xEF\xBF\xBD");
}

TEST(HfTokenizer, RejectsBadTextAndIds) {
  auto tok = HfTokenizer::load(data_path("gpt2_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  auto bad = tok.value().encode(std::string("ok \xC3\x28 no"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("not valid UTF-8 at byte 3"), std::string::npos) << bad.error();
  auto far = tok.value().decode(300);
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().find("token id 300 is outside the vocab [0, 300)"), std::string::npos)
      << far.error();
  EXPECT_FALSE(tok.value().decode(-1).ok());
  EXPECT_FALSE(tok.value().decode(std::vector<int32_t>{5, 1000}).ok());
}

// Loads `text` as tokenizer.json and returns the error (empty when it loaded).
std::string load_error(const std::string& text) {
  auto tok = HfTokenizer::load_from_string(text, "bad.json");
  return tok.ok() ? std::string() : tok.error();
}

#define EXPECT_ERROR_HAS(text, needle)                                    \
  do {                                                                    \
    const std::string err_ = load_error(text);                            \
    EXPECT_NE(err_.find(needle), std::string::npos) << "error: " << err_; \
  } while (0)

TEST(HfTokenizer, BadFilesGiveClearErrors) {
  auto missing = HfTokenizer::load("/nonexistent/dir/tokenizer.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "/nonexistent/dir/tokenizer.json: cannot open the file");

  const std::string good = read_text(data_path("gpt2_style/tokenizer.json"));
  ASSERT_TRUE(load_error(good).empty()) << load_error(good);
  EXPECT_ERROR_HAS(good.substr(0, good.size() / 2), "bad.json: not valid JSON");
  EXPECT_ERROR_HAS("[1, 2, 3]", "bad.json: not a tokenizer.json");
  EXPECT_ERROR_HAS(R"({"name": "not a tokenizer"})", "bad.json: no \"model\" object");

  json j = json::parse(good);
  json unknown_merge = j;
  unknown_merge["model"]["merges"][0] = json::array({"h", "zz_unknown"});
  EXPECT_ERROR_HAS(unknown_merge.dump(), "merge 0 names unknown token 'zz_unknown'");
  json no_vocab = j;
  no_vocab["model"].erase("vocab");
  EXPECT_ERROR_HAS(no_vocab.dump(), "model has no \"vocab\" object");
  json no_merges = j;
  no_merges["model"].erase("merges");
  EXPECT_ERROR_HAS(no_merges.dump(), "model has no \"merges\" list");
  json big_id = j;
  big_id["model"]["vocab"]["huge"] = 1 << 30;
  EXPECT_ERROR_HAS(big_id.dump(), "vocab entry 'huge' has id 1073741824 outside");
  json neg_added = j;
  neg_added["added_tokens"][0]["id"] = -4;
  EXPECT_ERROR_HAS(neg_added.dump(), "added token '<|begin_of_text|>' has id -4 outside");
  json wordpiece = j;
  wordpiece["model"]["type"] = "WordPiece";
  EXPECT_ERROR_HAS(wordpiece.dump(), "model type 'WordPiece' is not supported");
  json bad_regex = j;
  bad_regex["pre_tokenizer"] = json::parse(R"({"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})");
  EXPECT_ERROR_HAS(bad_regex.dump(), "Split pre_tokenizer regex /(unclosed/ does not compile");
  json wrong_type = j;
  wrong_type["model"]["vocab"] = json::array();
  EXPECT_ERROR_HAS(wrong_type.dump(), "model has no \"vocab\" object");
  json str_merge = j;
  str_merge["model"]["merges"][0] = 17;
  EXPECT_ERROR_HAS(str_merge.dump(), "merge 0 is neither");
}

TEST(HfTokenizer, UnfusedUnkMatchesThePackage) {
  // metaspace_nfc_style has no byte_fallback; with fuse_unk false each unknown
  // character is its own <unk> (id 0). Ids from the package on the same edit.
  json j = json::parse(read_text(data_path("metaspace_nfc_style/tokenizer.json")));
  j["model"]["fuse_unk"] = false;
  auto tok = HfTokenizer::load_from_string(j.dump());
  ASSERT_TRUE(tok.ok()) << tok.error();
  const json ref = json::parse(read_text(data_path("metaspace_nfc_style/unfused_reference.json")));
  ASSERT_EQ(ref.size(), 3u);
  for (const json& entry : ref) {
    auto ids = tok.value().encode(entry["text"].get<std::string>());
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), entry["ids"].get<std::vector<int32_t>>());
  }
}

TEST(HfTokenizer, NormalizedAddedTokensMatchThePackage) {
  // llama2_style with <|user|> and <|end|> made normalized: the package matches
  // them in the normalized text as their normalized content ("▁<|user|>"), so
  // "<|end|>" right after a letter stays text.
  json j = json::parse(read_text(data_path("llama2_style/tokenizer.json")));
  for (json& t : j["added_tokens"]) {
    if (t["content"] == "<|user|>" || t["content"] == "<|end|>") t["normalized"] = true;
  }
  auto tok = HfTokenizer::load_from_string(j.dump());
  ASSERT_TRUE(tok.ok()) << tok.error();
  const json ref = json::parse(read_text(data_path("llama2_style/normalized_reference.json")));
  ASSERT_EQ(ref.size(), 7u);
  for (const json& entry : ref) {
    const std::string text = entry["text"].get<std::string>();
    auto ids = tok.value().encode(text);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), entry["ids"].get<std::vector<int32_t>>()) << "text: '" << text << "'";
  }
  // Decoding gives the token's own content, not the normalized one.
  EXPECT_EQ(tok.value().decode(std::vector<int32_t>{tok.value().token_to_id("<|user|>")}).value(),
            "<|user|>");
}

TEST(HfTokenizer, RegexReplaceMatchesThePackage) {
  // llama2_style with Regex patterns in its Replace normalizer (" +" -> "▁")
  // and Replace decoder ("▁+" -> " "): REGEX_EDIT in make_sp_style_fixtures.py.
  json j = json::parse(read_text(data_path("llama2_style/tokenizer.json")));
  j["normalizer"] = json::parse(R"({"type": "Sequence", "normalizers": [
      {"type": "Prepend", "prepend": "\u2581"},
      {"type": "Replace", "pattern": {"Regex": " +"}, "content": "\u2581"}]})");
  j["decoder"]["decoders"][0] =
      json::parse(R"({"type": "Replace", "pattern": {"Regex": "\u2581+"}, "content": " "})");
  auto tok = HfTokenizer::load_from_string(j.dump());
  ASSERT_TRUE(tok.ok()) << tok.error();
  const json ref = json::parse(read_text(data_path("llama2_style/regex_reference.json")));
  ASSERT_EQ(ref.size(), 22u);
  for (const json& entry : ref) {
    const std::string text = entry["text"].get<std::string>();
    auto ids = tok.value().encode(text);
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(ids.value(), entry["ids"].get<std::vector<int32_t>>()) << "text: '" << text << "'";
    auto back = tok.value().decode(ids.value());
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back.value(), entry["decoded"].get<std::string>()) << "text: '" << text << "'";
  }
}

TEST(HfTokenizer, LoadTokenizerReadsSpStyleFiles) {
  auto tok = load_tokenizer(data_path("gemma_style/tokenizer.json"));
  ASSERT_TRUE(tok.ok()) << tok.error();
  EXPECT_STREQ(tok.value()->kind(), "hf");
  // Gemma's special tokens: <pad> 0, <eos> 1, <bos> 2.
  EXPECT_EQ(tok.value()->bos_id(), 2);
  EXPECT_EQ(tok.value()->eos_id(), 1);
  auto ids = tok.value()->encode("Hi", 1, 1);
  ASSERT_TRUE(ids.ok()) << ids.error();
  EXPECT_EQ(ids.value().front(), 2);
  EXPECT_EQ(ids.value().back(), 1);
}

TEST(HfTokenizer, BadSpStyleFilesGiveClearErrors) {
  const json j = json::parse(read_text(data_path("llama2_style/tokenizer.json")));
  ASSERT_TRUE(load_error(j.dump()).empty()) << load_error(j.dump());
  auto with = [&](const char* key, const char* value) {
    json k = j;
    k[key] = json::parse(value);
    return k.dump();
  };
  EXPECT_ERROR_HAS(with("normalizer", R"({"type": "Lowercase"})"),
                   "bad.json: normalizer 'Lowercase' is not supported");
  EXPECT_ERROR_HAS(
      with("normalizer", R"({"type": "Sequence", "normalizers": [{"type": "NFKCF"}]})"),
      "normalizer 'NFKCF' is not supported");
  EXPECT_ERROR_HAS(with("normalizer", R"({"type": "Prepend"})"),
                   "Prepend normalizer has no prepend string");
  EXPECT_ERROR_HAS(
      with("normalizer", R"({"type": "Replace", "pattern": {"Regex": "("}, "content": "x"})"),
      "Replace normalizer regex /(/ does not compile");
  EXPECT_ERROR_HAS(
      with("normalizer", R"({"type": "Replace", "pattern": {"String": ""}, "content": ""})"),
      "Replace normalizer pattern is empty");
  std::string nested = R"({"type": "NFC"})";
  for (int i = 0; i < 12; ++i) nested = R"({"type": "Sequence", "normalizers": [)" + nested + "]}";
  EXPECT_ERROR_HAS(with("normalizer", nested.c_str()), "normalizer Sequences nest too deep");
  EXPECT_ERROR_HAS(with("decoder", R"({"type": "CTC"})"),
                   "bad.json: decoder 'CTC' is not supported");
  EXPECT_ERROR_HAS(with("decoder", R"({"type": "Sequence", "decoders": [{"type": "Fuse"},
                   {"type": "WordPiece", "prefix": "##"}]})"),
                   "decoder 'WordPiece' is not supported");
  EXPECT_ERROR_HAS(with("decoder", R"({"type": "ByteLevel"})"),
                   "decoder ByteLevel needs a ByteLevel pre_tokenizer");
  EXPECT_ERROR_HAS(with("decoder", R"({"type": "Strip", "content": "", "start": 1, "stop": 0})"),
                   "Strip decoder content is not one character");
  EXPECT_ERROR_HAS(with("decoder", R"({"type": "Strip", "content": " ", "start": -1, "stop": 0})"),
                   "Strip decoder start is not a small non-negative integer");
  EXPECT_ERROR_HAS(with("pre_tokenizer", R"({"type": "Metaspace", "replacement": "ab",
                   "prepend_scheme": "first", "split": false})"),
                   "Metaspace pre_tokenizer replacement is not one character");
  EXPECT_ERROR_HAS(with("pre_tokenizer", R"({"type": "Metaspace", "replacement": "_",
                   "prepend_scheme": "sometimes", "split": false})"),
                   "Metaspace pre_tokenizer prepend_scheme 'sometimes' is not one of");
  EXPECT_ERROR_HAS(with("pre_tokenizer", R"({"type": "Sequence", "pretokenizers": [
                   {"type": "ByteLevel"}, {"type": "Metaspace", "replacement": "_"}]})"),
                   "pre_tokenizer step after ByteLevel is not supported");
  EXPECT_ERROR_HAS(with("pre_tokenizer", R"({"type": "Whitespace"})"),
                   "pre_tokenizer type 'Whitespace' is not supported");
  json no_bytes = j;
  json& vocab = no_bytes["model"]["vocab"];
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    ASSERT_EQ(vocab.erase(name), 1u) << name;
  }
  EXPECT_ERROR_HAS(no_bytes.dump(),
                   "BPE byte_fallback is set but the vocab has no <0x00>..<0xFF> byte tokens");
  json bad_unk = j;
  bad_unk["model"]["unk_token"] = "<nope>";
  EXPECT_ERROR_HAS(bad_unk.dump(), "BPE unk_token '<nope>' is not in the vocab");
  // A byte-level file keeps its ByteLevel decoder only.
  json gpt2 = json::parse(read_text(data_path("gpt2_style/tokenizer.json")));
  gpt2["decoder"] = j["decoder"];
  EXPECT_ERROR_HAS(gpt2.dump(),
                   "decoder 'Sequence' is not supported with a ByteLevel pre_tokenizer");
}

// The malformed sweep, as test/runtime's for .pte files: every prefix of a
// real file at a stride, and the file with one byte overwritten at a stride,
// either loads or fails with a message; one that loads encodes and decodes
// text without reading out of bounds (ASan runs this in CI).
TEST(HfTokenizer, MalformedSweepLoadsOrFailsWithAMessage) {
  const std::string good = read_text(data_path("llama3_style/tokenizer.json"));
  ASSERT_GT(good.size(), 1000u) << "committed fixture missing";
  const std::string text = "Hello, w\xC3\xB6rld! 123 \xF0\x9F\x98\x80  <|begin_of_text|>";
  size_t loaded = 0, refused = 0;
  auto exercise = [&](const std::string& bytes) {
    auto tok = HfTokenizer::load_from_string(bytes, "swept.json");
    if (!tok.ok()) {
      EXPECT_FALSE(tok.error().empty());
      ++refused;
      return;
    }
    ++loaded;
    auto ids = tok.value().encode(text);
    if (ids.ok()) (void)tok.value().decode(ids.value());
  };
  const size_t stride = good.size() / 97 + 1;
  for (size_t n = 0; n < good.size(); n += stride) exercise(good.substr(0, n));
  const char junk[] = {'\0', '"', '}', '9', '\xFF'};
  for (size_t i = 0, k = 0; i < good.size(); i += stride / 3 + 1, ++k) {
    std::string bad = good;
    bad[i] = junk[k % sizeof(junk)];
    exercise(bad);
  }
  EXPECT_GT(refused, 90u);  // every strict prefix is truncated JSON
  EXPECT_GT(loaded, 0u);    // some overwrites land in strings and still load
}

// The same sweep over a SentencePiece-style file (normalizers, byte_fallback,
// decoder chain); prefixes at a stride and single-byte overwrites.
TEST(HfTokenizer, MalformedSpStyleSweepLoadsOrFailsWithAMessage) {
  const std::string good = read_text(data_path("llama2_style/tokenizer.json"));
  ASSERT_GT(good.size(), 1000u) << "committed fixture missing";
  const std::string text = "Hello, w\xC3\xB6rld! 123 \xF0\x9F\x98\x80  <s>e\xCC\x81<|end|> x";
  size_t loaded = 0, refused = 0;
  auto exercise = [&](const std::string& bytes) {
    auto tok = HfTokenizer::load_from_string(bytes, "swept.json");
    if (!tok.ok()) {
      EXPECT_FALSE(tok.error().empty());
      ++refused;
      return;
    }
    ++loaded;
    auto ids = tok.value().encode(text, tok.value().bos_id() >= 0 ? 1 : 0);
    if (!ids.ok()) return;
    (void)tok.value().decode(ids.value());
    int32_t prev = -1;
    for (int32_t id : ids.value()) {
      (void)tok.value().decode(prev, id);
      prev = id;
    }
  };
  const size_t stride = good.size() / 97 + 1;
  for (size_t n = 0; n < good.size(); n += stride) exercise(good.substr(0, n));
  const char junk[] = {'\0', '"', '}', '9', '\xFF', '-'};
  for (size_t i = 0, k = 0; i < good.size(); i += stride / 3 + 1, ++k) {
    std::string bad = good;
    bad[i] = junk[k % sizeof(junk)];
    exercise(bad);
  }
  EXPECT_GT(refused, 90u);
  EXPECT_GT(loaded, 0u);
}

TEST(HfTokenizer, AcceptsStringMerges) {
  // Older files write merges as "a b" strings; the ids must not change.
  const std::string good = read_text(data_path("gpt2_style/tokenizer.json"));
  json j = json::parse(good);
  for (json& m : j["model"]["merges"]) m = m[0].get<std::string>() + " " + m[1].get<std::string>();
  auto a = HfTokenizer::load_from_string(good);
  auto b = HfTokenizer::load_from_string(j.dump());
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  const std::string text = "The quick brown fox, caf\xC3\xA9 42";
  EXPECT_EQ(a.value().encode(text).value(), b.value().encode(text).value());
}

}  // namespace
}  // namespace etr
