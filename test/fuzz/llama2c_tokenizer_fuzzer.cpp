// libFuzzer harness for the llama2.c tokenizer.bin reader
// (extension/tokenizers). Each input is used twice:
//   - as a tokenizer.bin: loaded and, when accepted, made to encode a fixed
//     sample and the input itself, and to decode what it got;
//   - as text for the test fixture's tokenizer (byte tokens for every byte,
//     read from test/tokenizers/data/llama2c; run from the repository root,
//     as scripts/fuzz.sh does): every id must decode, and text up to its
//     first NUL, when it is valid UTF-8 and not empty, must decode back to
//     itself exactly, streaming after BOS. (Invalid UTF-8 need not: a stray
//     continuation byte at the start joins the dummy-prefix space, which then
//     falls back to a byte token and decodes as a space, as in the official
//     reader.)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "extension/tokenizers/llama2c_tokenizer.h"
#include "test/support/fuzz_utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const etr::Llama2cTokenizer* fixed = [] {
    auto t = etr::Llama2cTokenizer::load("test/tokenizers/data/llama2c/tokenizer.bin");
    if (!t.ok()) {
      std::fprintf(stderr, "run from the repository root: %s\n", t.error().c_str());
      abort();
    }
    return new etr::Llama2cTokenizer(std::move(t.value()));
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);

  // The input as a tokenizer.bin.
  auto tok = etr::Llama2cTokenizer::load_from_string(input, "input");
  if (tok.ok()) {
    const etr::Llama2cTokenizer& t = tok.value();
    for (const std::string& text :
         {std::string("Hello world, it's 2024!\n  caf\xC3\xA9 \xCE\xB1\xCE\xB2 \xE4\xBD\xA0"),
          input}) {
      auto ids = t.encode(text, 1, 1);
      if (!ids.ok()) continue;
      int32_t prev = t.bos_id();
      for (int32_t id : ids.value()) {
        if (!t.decode(prev, id).ok()) abort();  // every id encode gives must decode
        prev = id;
      }
    }
    if (t.decode(0, t.vocab_size()).ok()) abort();
  }

  // The input as text.
  const std::string text = input.substr(0, input.find('\0'));
  auto ids = fixed->encode(input, 1, 0);
  if (ids.ok() == text.empty()) abort();
  if (ids.ok()) {
    std::string back;
    for (size_t i = 1; i < ids.value().size(); ++i) {
      auto piece = fixed->decode(ids.value()[i - 1], ids.value()[i]);
      if (!piece.ok()) abort();
      back += piece.value();
    }
    if (etr::fuzz::valid_utf8(text) && back != text) abort();
  }
  return 0;
}
