// libFuzzer harness for the Hugging Face tokenizer.json reader
// (extension/tokenizers). Each input is used twice:
//   - as a tokenizer.json: loaded and, when accepted, made to encode a fixed
//     multilingual sample and the input itself, and to decode what it got;
//   - as text for a fixed byte-level tokenizer built here (all 256 byte
//     tokens, a few merges, an added token, the Llama 3 Split regex): valid
//     UTF-8 must decode back to itself exactly, invalid UTF-8 must be refused;
//   - as text for a fixed Llama 2 style tokenizer (byte_fallback, Prepend and
//     Replace normalizers, Replace/ByteFallback/Fuse/Strip decoders): valid
//     UTF-8 without U+2581 must decode back to itself, whole and streamed.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "extension/tokenizers/hf_tokenizer.h"
#include "test/support/fuzz_utf8.h"

namespace {

// The GPT-2 byte-to-unicode character for `byte`, as JSON string content.
std::string byte_token(int byte) {
  const bool printable =
      (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
  int cp = byte;
  if (!printable) {
    int n = 0;  // how many non-printable bytes come before this one
    for (int b = 0; b < byte; ++b) {
      n += !((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255));
    }
    cp = 256 + n;
  }
  if (cp == '"' || cp == '\\') return std::string("\\") + static_cast<char>(cp);
  std::string out;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return out;
}

std::string fixed_tokenizer_json() {
  std::string vocab;
  for (int b = 0; b < 256; ++b) vocab += "\"" + byte_token(b) + "\": " + std::to_string(b) + ", ";
  const std::string sp = byte_token(' ');
  vocab += "\"he\": 256, \"hel\": 257, \"" + sp + "t\": 258";
  return R"({"added_tokens": [{"id": 259, "content": "<|eot|>", "special": true}],
    "normalizer": null,
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex":
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
       "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
    "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "vocab": {)" +
         vocab + R"(}, "merges": [["h", "e"], ["he", "l"], [")" + sp + R"(", "t"]]}})";
}

// Llama 2's layout: <unk> <s> </s>, the 256 byte tokens, then a few pieces.
std::string fixed_sp_tokenizer_json() {
  std::string vocab = R"("<unk>": 0, "<s>": 1, "</s>": 2, )";
  static const char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    vocab +=
        std::string("\"<0x") + kHex[b >> 4] + kHex[b & 15] + ">\": " + std::to_string(3 + b) + ", ";
  }
  vocab +=
      "\"\u2581\": 259, \"h\": 260, \"e\": 261, \"he\": 262, \"\u2581he\": 263, \"\u00e9\": 264";
  return R"({"added_tokens": [{"id": 0, "content": "<unk>", "special": true, "normalized": false},
      {"id": 1, "content": "<s>", "special": true, "normalized": false},
      {"id": 2, "content": "</s>", "special": true, "normalized": false}],
    "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
      {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
    "pre_tokenizer": null,
    "decoder": {"type": "Sequence", "decoders": [
      {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
      {"type": "ByteFallback"}, {"type": "Fuse"},
      {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
      "vocab": {)" +
         vocab + R"(}, "merges": [["h", "e"], ["\u2581", "he"]]}})";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const etr::HfTokenizer* fixed = [] {
    auto t = etr::HfTokenizer::load_from_string(fixed_tokenizer_json(), "fixed");
    if (!t.ok()) abort();  // the harness's own tokenizer must load
    return new etr::HfTokenizer(std::move(t.value()));
  }();
  static const etr::HfTokenizer* fixed_sp = [] {
    auto t = etr::HfTokenizer::load_from_string(fixed_sp_tokenizer_json(), "fixed_sp");
    if (!t.ok()) abort();
    return new etr::HfTokenizer(std::move(t.value()));
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);

  // The input as a tokenizer.json.
  auto tok = etr::HfTokenizer::load_from_string(input, "input");
  if (tok.ok()) {
    for (const std::string& text :
         {std::string("Hello world, it's 2024!\n  caf\xC3\xA9 \xCE\xB1\xCE\xB2 \xE4\xBD\xA0"),
          input}) {
      auto ids = tok.value().encode(text, tok.value().bos_id() >= 0, tok.value().eos_id() >= 0);
      if (ids.ok()) (void)tok.value().decode(ids.value());
    }
    (void)tok.value().decode(tok.value().vocab_size() - 1);
  }

  // The input as text.
  auto ids = fixed->encode(input);
  if (ids.ok() != etr::fuzz::valid_utf8(input)) abort();
  if (ids.ok()) {
    auto back = fixed->decode(ids.value());
    if (!back.ok() || back.value() != input) abort();
  }

  // The input as text for the Llama 2 style tokenizer. Text holding U+2581 or
  // the special tokens' names does not round-trip (in the package either).
  auto sp_ids = fixed_sp->encode(input);
  if (sp_ids.ok() != etr::fuzz::valid_utf8(input)) abort();
  if (sp_ids.ok() && input.find("\xE2\x96\x81") == std::string::npos &&
      input.find("<unk>") == std::string::npos && input.find("<s>") == std::string::npos &&
      input.find("</s>") == std::string::npos) {
    auto back = fixed_sp->decode(sp_ids.value());
    if (!back.ok() || back.value() != input) abort();
    std::string streamed;
    int32_t prev = fixed_sp->bos_id();
    for (int32_t id : sp_ids.value()) {
      auto piece = fixed_sp->decode(prev, id);
      if (!piece.ok()) abort();
      streamed += piece.value();
      prev = id;
    }
    if (streamed != input) abort();
  }
  return 0;
}
