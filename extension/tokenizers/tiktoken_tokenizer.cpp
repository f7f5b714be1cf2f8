#include "extension/tokenizers/tiktoken_tokenizer.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "extension/tokenizers/tokenizer_util.h"

namespace etr {
namespace {

// Base tokens accepted (Llama 3 has 128000; a real vocabulary has at most a few hundred thousand).
constexpr int64_t kMaxBaseTokens = (int64_t{1} << 24) - 256;
// Largest ranks file read.
constexpr size_t kMaxFileBytes = size_t{512} << 20;
constexpr int kNumSpecialTokens = 256;

// The value of a standard base64 character, -1 for any other byte.
int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes padded standard base64 (what tiktoken files hold); false on anything else.
bool base64_decode(const char* s, size_t n, std::string* out) {
  out->clear();
  if (n == 0 || n % 4 != 0) return false;
  for (size_t i = 0; i < n; i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      if (s[i + k] == '=' && i + 4 == n && k >= 2) {
        v[k] = 0;
        ++pad;
      } else {
        if (pad > 0) return false;  // data after '='
        v[k] = base64_value(s[i + k]);
        if (v[k] < 0) return false;
      }
    }
    const uint32_t bits = (static_cast<uint32_t>(v[0]) << 18) |
                          (static_cast<uint32_t>(v[1]) << 12) | (static_cast<uint32_t>(v[2]) << 6) |
                          static_cast<uint32_t>(v[3]);
    out->push_back(static_cast<char>(bits >> 16));
    if (pad < 2) out->push_back(static_cast<char>((bits >> 8) & 0xFF));
    if (pad < 1) out->push_back(static_cast<char>(bits & 0xFF));
  }
  return true;
}

std::vector<std::string> llama3_special_tokens() {
  std::vector<std::string> names = {"<|begin_of_text|>",
                                    "<|end_of_text|>",
                                    "<|reserved_special_token_0|>",
                                    "<|reserved_special_token_1|>",
                                    "<|finetune_right_pad_id|>",
                                    "<|step_id|>",
                                    "<|start_header_id|>",
                                    "<|end_header_id|>",
                                    "<|eom_id|>",
                                    "<|eot_id|>",
                                    "<|python_tag|>"};
  for (int k = 2; names.size() < static_cast<size_t>(kNumSpecialTokens); ++k) {
    names.push_back("<|reserved_special_token_" + std::to_string(k) + "|>");
  }
  return names;
}

}  // namespace

struct TiktokenTokenizer::Impl {
  std::string name;
  std::unordered_map<std::string, int32_t> encoder;  // base token bytes -> rank
  std::vector<std::string> decoder;                  // rank -> base token bytes
  std::vector<std::string> specials;                 // id - decoder.size() -> name
  std::unordered_map<std::string, int32_t> special_ids;
  size_t longest_special = 0;
  tokenizer_util::RegexSplitter regex;

  int32_t rank_of(const std::string& text, size_t begin, size_t end) const {
    auto it = encoder.find(text.substr(begin, end - begin));
    return it == encoder.end() ? -1 : it->second;
  }

  // Byte-pair merges of text[begin, end) (tiktoken's rule: the adjacent pair
  // whose joined bytes have the lowest rank merges first, the leftmost on a
  // tie), appended to `ids`. A heap of candidate pairs keeps long pieces fast;
  // entries made stale by a merge are skipped when popped.
  bool merge(const std::string& text, size_t begin, size_t end, std::vector<int32_t>* ids,
             std::string* error) const {
    const size_t n = end - begin;
    struct Part {
      size_t start, stop;
      int64_t prev, next;
      uint32_t version;
    };
    std::vector<Part> parts(n);
    for (size_t i = 0; i < n; ++i) {
      parts[i] = {begin + i, begin + i + 1, static_cast<int64_t>(i) - 1,
                  i + 1 < n ? static_cast<int64_t>(i + 1) : -1, 0};
    }
    struct Cand {
      int32_t rank;
      size_t start;        // where the left part starts (orders ties: leftmost first)
      size_t left, right;  // the two parts
      uint32_t left_version, right_version;
      bool operator>(const Cand& o) const {
        return rank != o.rank ? rank > o.rank : start > o.start;
      }
    };
    std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> heap;
    const auto push = [&](int64_t l) {
      if (l < 0 || parts[l].next < 0) return;
      const Part& a = parts[l];
      const Part& b = parts[a.next];
      const int32_t r = rank_of(text, a.start, b.stop);
      if (r < 0) return;
      heap.push(
          {r, a.start, static_cast<size_t>(l), static_cast<size_t>(a.next), a.version, b.version});
    };
    for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int64_t>(i));
    while (!heap.empty()) {
      const Cand c = heap.top();
      heap.pop();
      Part& a = parts[c.left];
      if (a.version != c.left_version || a.next != static_cast<int64_t>(c.right) ||
          parts[c.right].version != c.right_version) {
        continue;
      }
      Part& b = parts[c.right];
      a.stop = b.stop;
      a.next = b.next;
      if (b.next >= 0) parts[b.next].prev = static_cast<int64_t>(c.left);
      ++a.version;
      ++b.version;  // b is gone: any pair naming it is stale
      push(a.prev);
      push(static_cast<int64_t>(c.left));
    }
    for (int64_t i = 0; i >= 0; i = parts[i].next) {
      const int32_t r = rank_of(text, parts[i].start, parts[i].stop);
      if (r < 0) {
        *error = name + ": the text has bytes with no token in the vocabulary (byte " +
                 std::to_string(static_cast<uint8_t>(text[parts[i].start])) + ")";
        return false;
      }
      ids->push_back(r);
    }
    return true;
  }

  // Appends the ids of text[begin, end), which holds no special token.
  bool encode_ordinary(const std::string& text, std::vector<int32_t>* ids,
                       std::string* error) const {
    std::vector<std::pair<size_t, size_t>> pieces;
    if (!regex.split(text, &pieces, error)) {
      *error = name + ": " + *error;
      return false;
    }
    for (const auto& p : pieces) {
      const int32_t whole = rank_of(text, p.first, p.second);
      if (whole >= 0) {
        ids->push_back(whole);
      } else if (!merge(text, p.first, p.second, ids, error)) {
        return false;
      }
    }
    return true;
  }
};

const char* TiktokenTokenizer::official_pattern() {
  return R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+)";
}

const char* TiktokenTokenizer::llama3_pattern() {
  return R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
}

TiktokenTokenizer::TiktokenTokenizer() : impl_(new Impl) {}
TiktokenTokenizer::~TiktokenTokenizer() = default;
TiktokenTokenizer::TiktokenTokenizer(TiktokenTokenizer&&) noexcept = default;
TiktokenTokenizer& TiktokenTokenizer::operator=(TiktokenTokenizer&&) noexcept = default;

TokenizerResult<TiktokenTokenizer> TiktokenTokenizer::load(const std::string& path,
                                                           const std::string& pattern) {
  std::string text, error;
  if (!tokenizer_util::read_file(path, kMaxFileBytes, &text, &error)) {
    return TokenizerResult<TiktokenTokenizer>::failure(error);
  }
  return load_from_string(text, path, pattern);
}

TokenizerResult<TiktokenTokenizer> TiktokenTokenizer::load_from_string(const std::string& text,
                                                                       const std::string& name,
                                                                       const std::string& pattern) {
  using R = TokenizerResult<TiktokenTokenizer>;
  TiktokenTokenizer t;
  Impl& im = *t.impl_;
  im.name = name;
  std::vector<std::pair<std::string, int64_t>> entries;
  size_t line_no = 0;
  std::string token;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    ++line_no;
    size_t end = eol;
    if (end > pos && text[end - 1] == '\r') --end;
    const size_t begin = pos;
    pos = eol + 1;
    if (end == begin) continue;  // blank line
    const auto where = [&] { return name + ": line " + std::to_string(line_no) + ": "; };
    const size_t space = text.find(' ', begin);
    if (space == std::string::npos || space >= end) {
      return R::failure(where() + "not a tiktoken line \"<base64 token> <rank>\"");
    }
    if (!base64_decode(text.data() + begin, space - begin, &token)) {
      return R::failure(where() + "the token is not valid base64");
    }
    int64_t rank = 0;
    if (space + 1 == end) return R::failure(where() + "no rank after the token");
    for (size_t i = space + 1; i < end; ++i) {
      if (text[i] < '0' || text[i] > '9') return R::failure(where() + "the rank is not a number");
      rank = rank * 10 + (text[i] - '0');
      if (rank >= kMaxBaseTokens) {
        return R::failure(where() + "rank beyond " + std::to_string(kMaxBaseTokens - 1));
      }
    }
    if (static_cast<int64_t>(entries.size()) >= kMaxBaseTokens) {
      return R::failure(where() + "more than " + std::to_string(kMaxBaseTokens) + " tokens");
    }
    entries.emplace_back(token, rank);
  }
  if (entries.empty()) return R::failure(name + ": no tokens in the tiktoken file");
  const size_t n = entries.size();
  im.decoder.assign(n, std::string());
  std::vector<bool> seen(n, false);
  im.encoder.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t rank = entries[i].second;
    if (rank >= static_cast<int64_t>(n)) {
      return R::failure(name + ": rank " + std::to_string(rank) + " is beyond the " +
                        std::to_string(n) + " tokens of the file (ranks must be 0.." +
                        std::to_string(n - 1) + ")");
    }
    if (seen[rank]) return R::failure(name + ": rank " + std::to_string(rank) + " appears twice");
    seen[rank] = true;
    if (!im.encoder.emplace(entries[i].first, static_cast<int32_t>(rank)).second) {
      return R::failure(name + ": the token of rank " + std::to_string(rank) +
                        " repeats an earlier token");
    }
    im.decoder[rank] = std::move(entries[i].first);
  }
  im.specials = llama3_special_tokens();
  for (size_t i = 0; i < im.specials.size(); ++i) {
    im.special_ids.emplace(im.specials[i], static_cast<int32_t>(n + i));
    im.longest_special = std::max(im.longest_special, im.specials[i].size());
  }
  std::string error;
  if (!im.regex.compile(pattern, &error)) return R::failure(name + ": " + error);
  return R(std::move(t));
}

TokenizerResult<std::vector<int32_t>> TiktokenTokenizer::encode(const std::string& text, int bos,
                                                                int eos) const {
  using R = TokenizerResult<std::vector<int32_t>>;
  const Impl& im = *impl_;
  if (bos < 0 || eos < 0) return R::failure(im.name + ": negative BOS/EOS count");
  const size_t bad = tokenizer_util::find_invalid_utf8(text);
  if (bad != std::string::npos) {
    return R::failure(im.name + ": the text is not valid UTF-8 at byte " + std::to_string(bad));
  }
  std::vector<int32_t> ids(static_cast<size_t>(bos), bos_id());
  std::string error;
  size_t done = 0;  // text before this has been encoded
  size_t search = 0;
  size_t close = 0;  // the first "|>" at or after open + 2, kept while it stays ahead
  bool close_known = false;
  while (true) {
    // The next special token: "<|" up to the first "|>" after it, when that names one
    // (no special token has "|>" inside).
    size_t open = text.find("<|", search);
    size_t special_end = std::string::npos;
    int32_t special_id = -1;
    while (open != std::string::npos) {
      if (!close_known || close < open + 2) {
        close = text.find("|>", open + 2);
        close_known = true;
      }
      if (close == std::string::npos) {
        open = std::string::npos;
        break;
      }
      auto it = close + 2 - open <= im.longest_special
                    ? im.special_ids.find(text.substr(open, close + 2 - open))
                    : im.special_ids.end();
      if (it != im.special_ids.end()) {
        special_end = close + 2;
        special_id = it->second;
        break;
      }
      open = text.find("<|", open + 1);
    }
    const size_t stop = open == std::string::npos ? text.size() : open;
    if (stop > done && !im.encode_ordinary(text.substr(done, stop - done), &ids, &error)) {
      return R::failure(error);
    }
    if (open == std::string::npos) break;
    ids.push_back(special_id);
    done = search = special_end;
  }
  ids.insert(ids.end(), static_cast<size_t>(eos), eos_id());
  return R(std::move(ids));
}

TokenizerResult<std::string> TiktokenTokenizer::decode(int32_t id) const {
  const Impl& im = *impl_;
  if (id >= 0 && static_cast<size_t>(id) < im.decoder.size()) return im.decoder[id];
  if (id >= 0 && static_cast<size_t>(id) < im.decoder.size() + im.specials.size()) {
    return im.specials[id - im.decoder.size()];
  }
  return TokenizerResult<std::string>::failure(im.name + ": token id " + std::to_string(id) +
                                               " is outside the vocabulary (size " +
                                               std::to_string(vocab_size()) + ")");
}

TokenizerResult<std::string> TiktokenTokenizer::decode(int32_t prev_id, int32_t id) const {
  (void)prev_id;
  return decode(id);
}

int32_t TiktokenTokenizer::vocab_size() const {
  return static_cast<int32_t>(impl_->decoder.size() + impl_->specials.size());
}
int32_t TiktokenTokenizer::bos_id() const { return static_cast<int32_t>(impl_->decoder.size()); }
int32_t TiktokenTokenizer::eos_id() const {
  return static_cast<int32_t>(impl_->decoder.size() + 1);
}

int32_t TiktokenTokenizer::token_to_id(const std::string& token) const {
  auto it = impl_->encoder.find(token);
  if (it != impl_->encoder.end()) return it->second;
  auto sp = impl_->special_ids.find(token);
  return sp == impl_->special_ids.end() ? -1 : sp->second;
}

}  // namespace etr
