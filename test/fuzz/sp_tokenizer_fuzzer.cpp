// libFuzzer harness for the SentencePiece reader (extension/tokenizers, on
// libsentencepiece). Each input is used twice:
//   - as a serialized model: loaded and, when accepted, made to encode a
//     fixed sample and the input itself, and to decode what it got;
//   - as text for the test fixture's BPE model (no normalization, byte
//     fallback; read from test/tokenizers/data/sp_bpe, run from the
//     repository root as scripts/fuzz.sh does): every id must decode, and
//     valid UTF-8 without NUL and without U+2581 (SentencePiece's space
//     mark, which decodes as a space) must decode back to itself, streaming
//     after BOS.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "extension/tokenizers/sp_tokenizer.h"
#include "test/support/fuzz_utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const etr::SpTokenizer* fixed = [] {
    auto t = etr::SpTokenizer::load("test/tokenizers/data/sp_bpe/tokenizer.model");
    if (!t.ok()) {
      std::fprintf(stderr, "run from the repository root: %s\n", t.error().c_str());
      abort();
    }
    return new etr::SpTokenizer(std::move(t.value()));
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);
  // As text, only the first 8 KiB: libsentencepiece's encode is slow under the sanitizers and
  // long text adds little.
  const std::string text = input.substr(0, 8192);

  // The input as a model.
  auto tok = etr::SpTokenizer::load_from_string(input, "input");
  if (tok.ok()) {
    const etr::SpTokenizer& t = tok.value();
    for (const std::string& sample :
         {std::string("Hello world, it's 2024!\n  caf\xC3\xA9 \xCE\xB1\xCE\xB2 \xE4\xBD\xA0"),
          text}) {
      auto ids = t.encode(sample, t.bos_id() >= 0, t.eos_id() >= 0);
      if (!ids.ok()) continue;
      for (int32_t id : ids.value()) {
        if (!t.decode(t.bos_id(), id).ok()) abort();  // every id encode gives must decode
      }
    }
    if (t.decode(0, t.vocab_size()).ok()) abort();
  }

  // The input as text.
  auto ids = fixed->encode(text, 1, 0);
  if (ids.ok()) {
    std::string back;
    for (size_t i = 1; i < ids.value().size(); ++i) {
      auto piece = fixed->decode(ids.value()[i - 1], ids.value()[i]);
      if (!piece.ok()) abort();
      back += piece.value();
    }
    if (etr::fuzz::valid_utf8(text) && text.find('\0') == std::string::npos &&
        text.find("\xE2\x96\x81") == std::string::npos && back != text) {
      abort();
    }
  }
  return 0;
}
