#include "extension/tokenizers/tokenizer.h"

#include <cstdio>

#include "extension/tokenizers/hf_tokenizer.h"

namespace etr {

Tokenizer::~Tokenizer() = default;

namespace {

// The first `n` bytes of the file (fewer when it is shorter); false when it
// cannot be opened.
bool read_head(const std::string& path, size_t n, std::string* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out->resize(n);
  const size_t got = std::fread(&(*out)[0], 1, n, f);
  std::fclose(f);
  out->resize(got);
  return true;
}

// A JSON object starts with '{' after optional whitespace (and a UTF-8 BOM).
bool looks_like_json(const std::string& head) {
  size_t i = 0;
  if (head.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) {
    ++i;
  }
  return i < head.size() && head[i] == '{';
}

}  // namespace

TokenizerResult<std::unique_ptr<Tokenizer>> load_tokenizer(const std::string& path) {
  using R = TokenizerResult<std::unique_ptr<Tokenizer>>;
  std::string head;
  if (!read_head(path, 64, &head)) return R::failure(path + ": cannot open the tokenizer file");
  if (head.empty()) return R::failure(path + ": the tokenizer file is empty");
  if (looks_like_json(head)) {
    auto hf = HfTokenizer::load(path);
    if (!hf.ok()) return R::failure(hf.error());
    return R(std::unique_ptr<Tokenizer>(new HfTokenizer(std::move(hf.value()))));
  }
  return R::failure(path +
                    ": not a tokenizer this build reads (expected a Hugging Face tokenizer.json)");
}

}  // namespace etr
