#include "extension/tokenizers/tokenizer.h"

#include <cstdio>

#include "extension/tokenizers/hf_tokenizer.h"
#include "extension/tokenizers/llama2c_tokenizer.h"
#include "extension/tokenizers/tiktoken_tokenizer.h"
#include "extension/tokenizers/tokenizer_util.h"
#ifdef ETR_HAS_SENTENCEPIECE
#include "extension/tokenizers/sp_tokenizer.h"
#endif

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
  // The other formats in the official runner's order; the first that accepts the file wins.
  std::string bytes, error;
  if (!tokenizer_util::read_file(path, size_t{1} << 30, &bytes, &error)) return R::failure(error);
  std::string tried = "tokenizer.json: does not start with '{'";
  auto tiktoken = TiktokenTokenizer::load_from_string(bytes, path);
  if (tiktoken.ok()) {
    return R(std::unique_ptr<Tokenizer>(new TiktokenTokenizer(std::move(tiktoken.value()))));
  }
  tried += "; tiktoken: " + tiktoken.error();
#ifdef ETR_HAS_SENTENCEPIECE
  auto sp = SpTokenizer::load_from_string(bytes, path);
  if (sp.ok()) return R(std::unique_ptr<Tokenizer>(new SpTokenizer(std::move(sp.value()))));
  tried += "; SentencePiece: " + sp.error();
#else
  tried += "; SentencePiece: not built in (libsentencepiece-dev was not found)";
#endif
  auto llama2c = Llama2cTokenizer::load_from_string(bytes, path);
  if (llama2c.ok()) {
    return R(std::unique_ptr<Tokenizer>(new Llama2cTokenizer(std::move(llama2c.value()))));
  }
  tried += "; llama2.c: " + llama2c.error();
  return R::failure(path + ": not a tokenizer this build reads (tried " + tried + ")");
}

}  // namespace etr
