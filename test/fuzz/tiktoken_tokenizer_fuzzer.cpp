// libFuzzer harness for the tiktoken ranks-file reader (extension/tokenizers).
// Each input is used twice:
//   - as a ranks file: loaded and, when accepted, made to encode a fixed
//     multilingual sample and the input itself, and to decode what it got;
//   - as text for the test fixture's tokenizer (all 256 byte tokens, read
//     from test/tokenizers/data/tiktoken; run from the repository root, as
//     scripts/fuzz.sh does): valid UTF-8 must decode back to itself exactly,
//     invalid UTF-8 must be refused.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "extension/tokenizers/tiktoken_tokenizer.h"
#include "test/support/fuzz_utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const etr::TiktokenTokenizer* fixed = [] {
    auto t = etr::TiktokenTokenizer::load("test/tokenizers/data/tiktoken/tokenizer.model");
    if (!t.ok()) {
      std::fprintf(stderr, "run from the repository root: %s\n", t.error().c_str());
      abort();
    }
    return new etr::TiktokenTokenizer(std::move(t.value()));
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);

  // The input as a ranks file.
  auto tok = etr::TiktokenTokenizer::load_from_string(input, "input");
  if (tok.ok()) {
    const etr::TiktokenTokenizer& t = tok.value();
    for (const std::string& text :
         {std::string(
              "Hello world, it's 2024!\n  caf\xC3\xA9 \xCE\xB1\xCE\xB2 \xE4\xBD\xA0<|eot_id|>"),
          input}) {
      auto ids = t.encode(text, 1, 1);
      if (!ids.ok()) continue;
      for (int32_t id : ids.value()) {
        if (!t.decode(0, id).ok()) abort();  // every id encode gives must decode
      }
    }
    if (t.decode(0, t.vocab_size()).ok()) abort();
  }

  // The input as text.
  auto ids = fixed->encode(input, 0, 0);
  if (ids.ok() != etr::fuzz::valid_utf8(input)) abort();
  if (ids.ok()) {
    std::string back;
    for (int32_t id : ids.value()) {
      auto piece = fixed->decode(0, id);
      if (!piece.ok()) abort();
      back += piece.value();
    }
    if (back != input) abort();
  }
  return 0;
}
