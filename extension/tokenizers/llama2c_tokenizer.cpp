#include "extension/tokenizers/llama2c_tokenizer.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "extension/tokenizers/tokenizer_util.h"

namespace etr {
namespace {

// Vocabulary sizes and token lengths accepted (Llama 2 has 32000 tokens of at most 16 bytes).
constexpr int64_t kMaxVocab = (int64_t{1} << 24) - 1;
constexpr int64_t kMaxTokenLength = int64_t{1} << 16;
constexpr size_t kMaxFileBytes = size_t{512} << 20;
// Pairs scoring at or below this never merge (the official reader's starting best score).
constexpr float kNoMergeScore = -1e10f;

uint32_t read_u32(const std::string& b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24);
}

int32_t read_i32(const std::string& b, size_t at) {
  const uint32_t u = read_u32(b, at);
  int32_t v;
  std::memcpy(&v, &u, sizeof(v));
  return v;
}

float read_f32(const std::string& b, size_t at) {
  const uint32_t u = read_u32(b, at);
  float v;
  std::memcpy(&v, &u, sizeof(v));
  return v;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

struct Llama2cTokenizer::Impl {
  std::string name;
  int32_t vocab_size = 0, bos = -1, eos = -1;
  std::vector<std::string> pieces;  // the tokens the file holds; ids past them are "<pad>"
  std::vector<float> scores;
  std::unordered_map<std::string, int32_t> lookup;  // text -> the first id with it

  const std::string& piece(int32_t id) const {
    static const std::string pad = "<pad>";
    return static_cast<size_t>(id) < pieces.size() ? pieces[id] : pad;
  }
  float score(int32_t id) const {
    return static_cast<size_t>(id) < scores.size() ? scores[id] : 0.0f;
  }
  int32_t find(const std::string& text) const {
    auto it = lookup.find(text);
    return it == lookup.end() ? -1 : it->second;
  }
};

Llama2cTokenizer::Llama2cTokenizer() : impl_(new Impl) {}
Llama2cTokenizer::~Llama2cTokenizer() = default;
Llama2cTokenizer::Llama2cTokenizer(Llama2cTokenizer&&) noexcept = default;
Llama2cTokenizer& Llama2cTokenizer::operator=(Llama2cTokenizer&&) noexcept = default;

TokenizerResult<Llama2cTokenizer> Llama2cTokenizer::load(const std::string& path) {
  std::string bytes, error;
  if (!tokenizer_util::read_file(path, kMaxFileBytes, &bytes, &error)) {
    return TokenizerResult<Llama2cTokenizer>::failure(error);
  }
  return load_from_string(bytes, path);
}

TokenizerResult<Llama2cTokenizer> Llama2cTokenizer::load_from_string(const std::string& b,
                                                                     const std::string& name) {
  using R = TokenizerResult<Llama2cTokenizer>;
  Llama2cTokenizer t;
  Impl& im = *t.impl_;
  im.name = name;
  const auto at = [&](size_t offset) {
    return name + ": at offset " + std::to_string(offset) + ": ";
  };
  if (b.size() < 16) {
    return R::failure(at(0) +
                      "truncated: a llama2.c tokenizer.bin starts with a 16-byte header "
                      "(vocab size, BOS, EOS, max token length), the file has " +
                      std::to_string(b.size()) + " bytes");
  }
  const int32_t vocab = read_i32(b, 0);
  const int32_t bos = read_i32(b, 4);
  const int32_t eos = read_i32(b, 8);
  const int32_t max_len = read_i32(b, 12);
  if (vocab <= 0 || vocab > kMaxVocab) {
    return R::failure(at(0) + "vocab size " + std::to_string(vocab) + " is not in 1.." +
                      std::to_string(kMaxVocab));
  }
  if (bos < 0 || bos >= vocab) {
    return R::failure(at(4) + "BOS id " + std::to_string(bos) +
                      " is outside the vocabulary (size " + std::to_string(vocab) + ")");
  }
  if (eos < 0 || eos >= vocab) {
    return R::failure(at(8) + "EOS id " + std::to_string(eos) +
                      " is outside the vocabulary (size " + std::to_string(vocab) + ")");
  }
  if (max_len <= 0 || max_len > kMaxTokenLength) {
    return R::failure(at(12) + "max token length " + std::to_string(max_len) + " is not in 1.." +
                      std::to_string(kMaxTokenLength));
  }
  im.vocab_size = vocab;
  im.bos = bos;
  im.eos = eos;
  size_t off = 16;
  for (int32_t i = 0; i < vocab && off < b.size(); ++i) {
    const size_t remaining = b.size() - off;
    if (remaining < 8) {
      return R::failure(at(off) + "truncated in token " + std::to_string(i) +
                        "'s score and length (" + std::to_string(remaining) + " bytes left)");
    }
    const float score = read_f32(b, off);
    const int32_t len = read_i32(b, off + 4);
    if (len < 0 || len > max_len) {
      return R::failure(at(off + 4) + "token " + std::to_string(i) + "'s length " +
                        std::to_string(len) + " is not in 0.." + std::to_string(max_len) +
                        " (the header's max token length)");
    }
    if (static_cast<size_t>(len) > remaining - 8) {
      return R::failure(at(off + 8) + "truncated in token " + std::to_string(i) + " (" +
                        std::to_string(len) + " bytes, " + std::to_string(remaining - 8) +
                        " left)");
    }
    im.pieces.emplace_back(b, off + 8, static_cast<size_t>(len));
    im.scores.push_back(score);
    im.lookup.emplace(im.pieces.back(), i);
    off += 8 + static_cast<size_t>(len);
  }
  if (im.pieces.empty()) return R::failure(at(16) + "no tokens after the header");
  if (im.pieces.size() < static_cast<size_t>(vocab)) {
    im.lookup.emplace("<pad>", static_cast<int32_t>(im.pieces.size()));
  }
  return R(std::move(t));
}

TokenizerResult<std::vector<int32_t>> Llama2cTokenizer::encode(const std::string& text_in, int bos,
                                                               int eos) const {
  using R = TokenizerResult<std::vector<int32_t>>;
  const Impl& im = *impl_;
  if (bos < 0 || eos < 0) return R::failure(im.name + ": negative BOS/EOS count");
  const std::string text = text_in.substr(0, text_in.find('\0'));
  if (text.empty()) return R::failure(im.name + ": cannot encode empty text");
  std::vector<int32_t> sym(static_cast<size_t>(bos), im.bos);
  // One character (a byte and up to 3 continuation bytes after it) at a time,
  // after the dummy prefix " ".
  const std::string padded = " " + text;
  for (size_t i = 0; i < padded.size();) {
    size_t len = 1;
    while (len < 4 && i + len < padded.size() &&
           (static_cast<uint8_t>(padded[i + len]) & 0xC0) == 0x80) {
      ++len;
    }
    const int32_t id = im.find(padded.substr(i, len));
    if (id >= 0) {
      sym.push_back(id);
    } else {
      for (size_t k = 0; k < len; ++k) {
        const int32_t byte_id = static_cast<uint8_t>(padded[i + k]) + 3;
        if (byte_id >= im.vocab_size) {
          return R::failure(im.name + ": byte-fallback token " + std::to_string(byte_id) +
                            " for byte " + std::to_string(byte_id - 3) +
                            " is outside the vocabulary (size " + std::to_string(im.vocab_size) +
                            ")");
        }
        sym.push_back(byte_id);
      }
    }
    i += len;
  }
  // Merges, best score first (the leftmost on a tie); a heap of candidate pairs, entries
  // made stale by a merge skipped when popped.
  const size_t n = sym.size();
  std::vector<int64_t> prev(n), next(n);
  std::vector<uint32_t> version(n, 0);
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int64_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int64_t>(i + 1) : -1;
  }
  struct Cand {
    float score;
    size_t left, right;
    int32_t id;
    uint32_t left_version, right_version;
    bool operator<(const Cand& o) const {  // the heap's top is the greatest
      return score != o.score ? score < o.score : left > o.left;
    }
  };
  std::priority_queue<Cand> heap;
  const auto push = [&](int64_t l) {
    if (l < 0 || next[l] < 0) return;
    const size_t r = static_cast<size_t>(next[l]);
    const int32_t id = im.find(im.piece(sym[l]) + im.piece(sym[r]));
    if (id < 0) return;
    const float s = im.score(id);
    if (!(s > kNoMergeScore)) return;  // also drops NaN
    heap.push({s, static_cast<size_t>(l), r, id, version[l], version[r]});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int64_t>(i));
  while (!heap.empty()) {
    const Cand c = heap.top();
    heap.pop();
    if (version[c.left] != c.left_version || next[c.left] != static_cast<int64_t>(c.right) ||
        version[c.right] != c.right_version) {
      continue;
    }
    sym[c.left] = c.id;
    next[c.left] = next[c.right];
    if (next[c.right] >= 0) prev[next[c.right]] = static_cast<int64_t>(c.left);
    ++version[c.left];
    ++version[c.right];
    push(prev[c.left]);
    push(static_cast<int64_t>(c.left));
  }
  std::vector<int32_t> ids;
  ids.reserve(n + static_cast<size_t>(eos));
  for (int64_t i = n > 0 ? 0 : -1; i >= 0; i = next[i]) ids.push_back(sym[i]);
  ids.insert(ids.end(), static_cast<size_t>(eos), im.eos);
  return R(std::move(ids));
}

TokenizerResult<std::string> Llama2cTokenizer::decode(int32_t prev_id, int32_t id) const {
  using R = TokenizerResult<std::string>;
  const Impl& im = *impl_;
  if (id < 0 || id >= im.vocab_size) {
    return R::failure(im.name + ": token id " + std::to_string(id) +
                      " is outside the vocabulary (size " + std::to_string(im.vocab_size) + ")");
  }
  std::string piece = im.piece(id);
  if (prev_id == im.bos && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
  if (piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && piece[5] == '>' &&
      hex_value(piece[3]) >= 0 && hex_value(piece[4]) >= 0) {
    return std::string(1, static_cast<char>(hex_value(piece[3]) * 16 + hex_value(piece[4])));
  }
  return R(std::move(piece));
}

int32_t Llama2cTokenizer::vocab_size() const { return impl_->vocab_size; }
int32_t Llama2cTokenizer::bos_id() const { return impl_->bos; }
int32_t Llama2cTokenizer::eos_id() const { return impl_->eos; }

}  // namespace etr
