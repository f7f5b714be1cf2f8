#include "extension/tokenizers/hf_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <queue>
#include <sstream>
#include <unordered_map>

namespace etr {
namespace {

using nlohmann::json;

// Ids above this are refused (a real vocabulary has at most a few hundred thousand).
constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;
// Nesting of pre-tokenizer Sequences accepted.
constexpr int kMaxSequenceDepth = 8;
// PCRE2 backtracking budget per match: this base plus kRegexStepsPerByte for each
// byte of the piece, so long whitespace runs (where the Llama 3 pattern's
// \s*[\r\n]+ backtracks over the whole run) still match, while a hostile
// pattern fails instead of hanging.
constexpr uint64_t kRegexMatchLimit = 1000000;
constexpr uint64_t kRegexStepsPerByte = 64;

// GPT-2's pre-tokenizer regex, used by ByteLevel when use_regex is true.
const char* const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

void append_utf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the valid UTF-8 character at s[i], 0 when it is not one
// (truncated, overlong, surrogate, beyond U+10FFFF).
size_t utf8_char_len(const std::string& s, size_t i, uint32_t* cp_out) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const size_t n = s.size();
  const uint8_t c = b(i);
  size_t len;
  uint32_t cp;
  if (c < 0x80) {
    *cp_out = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (n - i < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
    return 0;
  }
  *cp_out = cp;
  return len;
}

// Byte offset of the first invalid UTF-8 sequence, or npos.
size_t find_invalid_utf8(const std::string& s) {
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_char_len(s, i, &cp);
    if (len == 0) return i;
    i += len;
  }
  return std::string::npos;
}

#include "extension/tokenizers/nfc_tables.inc"

// Byte offset where the NFC quick check (UAX #15) cannot confirm that valid
// UTF-8 `s` is in NFC form (a code point whose NFC_Quick_Check is No or Maybe,
// or combining marks out of canonical order), or npos when `s` is NFC.
size_t find_non_nfc(const std::string& s) {
  uint32_t last_ccc = 0;
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_char_len(s, i, &cp);
    if (len == 0) return i;
    if (cp >= 0x300) {  // the tables start at U+0300
      auto in_check = std::upper_bound(std::begin(kNfcCheckRanges), std::end(kNfcCheckRanges), cp,
                                       [](uint32_t c, const uint32_t(&r)[2]) { return c < r[0]; });
      if (in_check != std::begin(kNfcCheckRanges) && cp <= (*(in_check - 1))[1]) return i;
      auto comb = std::upper_bound(std::begin(kCombiningRanges), std::end(kCombiningRanges), cp,
                                   [](uint32_t c, const uint32_t(&r)[3]) { return c < r[0]; });
      const uint32_t ccc =
          (comb != std::begin(kCombiningRanges) && cp <= (*(comb - 1))[1]) ? (*(comb - 1))[2] : 0;
      if (ccc != 0 && last_ccc > ccc) return i;
      last_ccc = ccc;
    } else {
      last_ccc = 0;
    }
    i += len;
  }
  return std::string::npos;
}

// Unicode White_Space (what an added token's lstrip/rstrip remove).
bool is_white_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
using RegexPtr = std::unique_ptr<pcre2_code, CodeDeleter>;

// Compiles `pattern` (UTF-8, Unicode properties); `literal` matches it as plain text.
RegexPtr compile_regex(const std::string& pattern, bool literal, std::string* error) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  uint32_t options = PCRE2_UTF | PCRE2_UCP | (literal ? PCRE2_LITERAL : 0);
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 options, &code, &offset, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof(buf));
    *error = "regex /" + pattern + "/ does not compile at offset " + std::to_string(offset) + ": " +
             reinterpret_cast<const char*>(buf);
    return nullptr;
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // Faster when available; the interpreter otherwise.
  return RegexPtr(re);
}

enum class SplitBehavior { kIsolated, kRemoved };

struct PreTokenizerStep {
  bool byte_level = false;  // a ByteLevel step, else a Split
  bool add_prefix_space = false;
  const pcre2_code* regex = nullptr;  // null: ByteLevel without use_regex
  SplitBehavior behavior = SplitBehavior::kIsolated;
};

std::string type_of(const json& j) {
  if (j.is_object()) {
    auto it = j.find("type");
    if (it != j.end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

bool bool_field(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

}  // namespace

struct HfTokenizer::Impl {
  std::string name;
  std::unordered_map<std::string, int32_t> vocab;
  // Vocabulary strings by id (a map: ids may be sparse, and a hostile file's
  // large id must not allocate a table).
  std::unordered_map<int32_t, std::string> id_to_token;
  // (left id << 32 | right id) -> (rank, merged id)
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;
  bool ignore_merges = false;
  bool nfc = false;  // the file's normalizer is NFC: text must already be NFC
  struct Added {
    std::string content;
    int32_t id;
    bool lstrip;  // the match takes the whitespace before it
    bool rstrip;  // and after it
  };
  std::vector<Added> added;  // longest content first
  std::unordered_map<int32_t, std::string> added_by_id;
  std::vector<std::vector<size_t>> added_by_first_byte{256};  // indexes into `added`
  std::vector<RegexPtr> regexes;
  std::vector<PreTokenizerStep> steps;
  std::string byte_to_unicode[256];
  std::unordered_map<uint32_t, uint8_t> unicode_to_byte;
  int32_t vocab_size = 0;
  int32_t bos = -1;
  int32_t eos = -1;

  std::string fail_prefix() const { return name + ": "; }

  void build_byte_map() {
    // GPT-2: printable bytes stand for themselves, the others for U+0100 upwards in order.
    uint32_t next = 256;
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const bool printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) ||
                             (byte >= 174 && byte <= 255);
      const uint32_t cp = printable ? byte : next++;
      byte_to_unicode[byte].clear();
      append_utf8(&byte_to_unicode[byte], cp);
      unicode_to_byte[cp] = static_cast<uint8_t>(byte);
    }
  }

  std::string parse_pre_tokenizer(const json& j, int depth, bool* saw_byte_level) {
    if (j.is_null()) return "";
    const std::string type = type_of(j);
    if (depth > kMaxSequenceDepth) return "pre_tokenizer Sequences nest too deep";
    if (*saw_byte_level) return "pre_tokenizer step after ByteLevel is not supported";
    if (type == "Sequence") {
      auto it = j.find("pretokenizers");
      if (it == j.end() || !it->is_array())
        return "pre_tokenizer Sequence has no pretokenizers list";
      for (const json& sub : *it) {
        std::string err = parse_pre_tokenizer(sub, depth + 1, saw_byte_level);
        if (!err.empty()) return err;
      }
      return "";
    }
    PreTokenizerStep step;
    std::string err;
    if (type == "ByteLevel") {
      step.byte_level = true;
      *saw_byte_level = true;
      step.add_prefix_space = bool_field(j, "add_prefix_space", false);
      if (bool_field(j, "use_regex", true)) {
        regexes.push_back(compile_regex(kGpt2Pattern, false, &err));
        if (!regexes.back()) return err;
        step.regex = regexes.back().get();
      }
    } else if (type == "Split") {
      auto pat = j.find("pattern");
      if (pat == j.end() || !pat->is_object()) return "Split pre_tokenizer has no pattern";
      bool literal;
      std::string text;
      if (pat->contains("Regex") && (*pat)["Regex"].is_string()) {
        literal = false;
        text = (*pat)["Regex"].get<std::string>();
      } else if (pat->contains("String") && (*pat)["String"].is_string()) {
        literal = true;
        text = (*pat)["String"].get<std::string>();
      } else {
        return "Split pre_tokenizer pattern is neither a Regex nor a String";
      }
      if (text.empty()) return "Split pre_tokenizer pattern is empty";
      const std::string behavior = j.contains("behavior") && j["behavior"].is_string()
                                       ? j["behavior"].get<std::string>()
                                       : "";
      if (behavior == "Isolated") {
        step.behavior = SplitBehavior::kIsolated;
      } else if (behavior == "Removed") {
        step.behavior = SplitBehavior::kRemoved;
      } else {
        return "Split behavior '" + behavior + "' is not supported (Isolated, Removed)";
      }
      if (bool_field(j, "invert", false)) return "Split with invert true is not supported";
      regexes.push_back(compile_regex(text, literal, &err));
      if (!regexes.back()) return "Split pre_tokenizer " + err;
      step.regex = regexes.back().get();
    } else {
      return "pre_tokenizer type '" + type + "' is not supported (ByteLevel, Split, Sequence)";
    }
    steps.push_back(step);
    return "";
  }

  std::string parse(const json& root) {
    if (!root.is_object()) return "not a tokenizer.json (top level is not a JSON object)";
    auto model_it = root.find("model");
    if (model_it == root.end() || !model_it->is_object()) return "no \"model\" object";
    const json& model = *model_it;
    const std::string model_type = type_of(model);
    if (!model_type.empty() && model_type != "BPE") {
      return "model type '" + model_type + "' is not supported (only BPE)";
    }
    auto dropout = model.find("dropout");
    if (dropout != model.end() && !dropout->is_null() &&
        !(dropout->is_number() && dropout->get<double>() == 0.0)) {
      return "BPE dropout is not supported";
    }
    if (bool_field(model, "byte_fallback", false)) return "BPE byte_fallback is not supported";
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      auto it = model.find(key);
      if (it != model.end() && !it->is_null() &&
          !(it->is_string() && it->get<std::string>().empty())) {
        return std::string("BPE ") + key + " is not supported";
      }
    }
    ignore_merges = bool_field(model, "ignore_merges", false);

    auto vocab_it = model.find("vocab");
    if (vocab_it == model.end() || !vocab_it->is_object()) return "model has no \"vocab\" object";
    int64_t max_id = -1;
    for (auto it = vocab_it->begin(); it != vocab_it->end(); ++it) {
      if (!it.value().is_number_integer())
        return "vocab entry '" + it.key() + "' has no integer id";
      const int64_t id = it.value().get<int64_t>();
      if (id < 0 || id > kMaxTokenId) {
        return "vocab entry '" + it.key() + "' has id " + std::to_string(id) + " outside [0, " +
               std::to_string(kMaxTokenId) + "]";
      }
      max_id = std::max(max_id, id);
      vocab[it.key()] = static_cast<int32_t>(id);
    }
    if (vocab.empty()) return "model vocab is empty";
    auto added_it = root.find("added_tokens");
    if (added_it != root.end() && !added_it->is_null()) {
      if (!added_it->is_array()) return "\"added_tokens\" is not a list";
      for (const json& t : *added_it) {
        if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
            !t.contains("content") || !t["content"].is_string()) {
          return "an added token lacks an integer \"id\" or a string \"content\"";
        }
        const int64_t id = t["id"].get<int64_t>();
        const std::string content = t["content"].get<std::string>();
        if (id < 0 || id > kMaxTokenId) {
          return "added token '" + content + "' has id " + std::to_string(id) + " outside [0, " +
                 std::to_string(kMaxTokenId) + "]";
        }
        if (content.empty()) return "added token " + std::to_string(id) + " has empty content";
        max_id = std::max(max_id, id);
        added.push_back({content, static_cast<int32_t>(id), bool_field(t, "lstrip", false),
                         bool_field(t, "rstrip", false)});
        added_by_id[static_cast<int32_t>(id)] = content;
      }
    }
    vocab_size = static_cast<int32_t>(max_id + 1);
    for (const auto& kv : vocab) {
      auto ins = id_to_token.emplace(kv.second, kv.first);
      if (!ins.second) {
        return "vocab entries '" + ins.first->second + "' and '" + kv.first + "' share id " +
               std::to_string(kv.second);
      }
    }
    std::stable_sort(added.begin(), added.end(), [](const Added& a, const Added& b) {
      return a.content.size() > b.content.size();
    });
    for (size_t i = 0; i < added.size(); ++i) {
      added_by_first_byte[static_cast<uint8_t>(added[i].content[0])].push_back(i);
    }

    auto merges_it = model.find("merges");
    if (merges_it == model.end() || !merges_it->is_array()) return "model has no \"merges\" list";
    int32_t rank = 0;
    for (const json& m : *merges_it) {
      std::string left, right;
      if (m.is_string()) {
        const std::string s = m.get<std::string>();
        const size_t space = s.find(' ', 1);
        if (space == std::string::npos || space + 1 >= s.size()) {
          return "merge " + std::to_string(rank) + " '" + s + "' is not two tokens";
        }
        left = s.substr(0, space);
        right = s.substr(space + 1);
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        left = m[0].get<std::string>();
        right = m[1].get<std::string>();
      } else {
        return "merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\", \"b\"]";
      }
      auto l = vocab.find(left);
      auto r = vocab.find(right);
      auto merged = vocab.find(left + right);
      for (const auto* part : {&left, &right}) {
        if (vocab.find(*part) == vocab.end()) {
          return "merge " + std::to_string(rank) + " names unknown token '" + *part + "'";
        }
      }
      if (merged == vocab.end()) {
        return "merge " + std::to_string(rank) + " makes '" + left + right +
               "', which is not in the vocab";
      }
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(l->second)) << 32) |
                           static_cast<uint32_t>(r->second);
      merges.emplace(key, std::make_pair(rank, merged->second));  // the first (lowest) rank wins
      ++rank;
    }

    auto norm = root.find("normalizer");
    if (norm != root.end() && !norm->is_null()) {
      if (type_of(*norm) != "NFC") return "normalizer '" + type_of(*norm) + "' is not supported";
      nfc = true;
    }
    bool saw_byte_level = false;
    auto pre = root.find("pre_tokenizer");
    if (pre != root.end()) {
      std::string err = parse_pre_tokenizer(*pre, 0, &saw_byte_level);
      if (!err.empty()) return err;
    }
    if (!saw_byte_level) return "no ByteLevel pre_tokenizer (only byte-level BPE is supported)";
    auto dec = root.find("decoder");
    if (dec != root.end() && !dec->is_null() && type_of(*dec) != "ByteLevel") {
      return "decoder '" + type_of(*dec) + "' is not supported (only ByteLevel)";
    }
    build_byte_map();
    find_bos_eos(root);
    return "";
  }

  int32_t lookup(const std::string& token) const {
    for (const Added& a : added) {
      if (a.content == token) return a.id;
    }
    auto it = vocab.find(token);
    return it == vocab.end() ? -1 : it->second;
  }

  void find_bos_eos(const json& root) {
    // TemplateProcessing: special tokens before the sequence are BOS, after it EOS.
    auto post = root.find("post_processor");
    if (post != root.end() && type_of(*post) == "TemplateProcessing" && post->contains("single") &&
        (*post)["single"].is_array()) {
      bool after = false;
      for (const json& piece : (*post)["single"]) {
        if (!piece.is_object()) continue;
        if (piece.contains("Sequence")) {
          after = true;
        } else if (piece.contains("SpecialToken") && piece["SpecialToken"].is_object() &&
                   piece["SpecialToken"].contains("id") &&
                   piece["SpecialToken"]["id"].is_string()) {
          const int32_t id = lookup(piece["SpecialToken"]["id"].get<std::string>());
          if (id >= 0) (after ? eos : bos) = id;
        }
      }
    }
    for (const char* n : {"<|begin_of_text|>", "<s>", "<bos>", "<|startoftext|>"}) {
      if (bos < 0) bos = lookup(n);
    }
    for (const char* n : {"<|end_of_text|>", "</s>", "<eos>", "<|endoftext|>", "<|im_end|>"}) {
      if (eos < 0) eos = lookup(n);
    }
  }

  // Splits `piece` on the regex per `step`, appending the parts to `out`.
  std::string split(const PreTokenizerStep& step, const std::string& piece,
                    std::vector<std::string>* out) const {
    if (step.regex == nullptr) {
      out->push_back(piece);
      return "";
    }
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(
        pcre2_match_data_create_from_pattern(step.regex, nullptr), pcre2_match_data_free);
    std::unique_ptr<pcre2_match_context, void (*)(pcre2_match_context*)> mc(
        pcre2_match_context_create(nullptr), pcre2_match_context_free);
    if (!md || !mc) return "out of memory for a regex match";
    const uint64_t limit = kRegexMatchLimit + kRegexStepsPerByte * piece.size();
    pcre2_set_match_limit(mc.get(), static_cast<uint32_t>(std::min<uint64_t>(limit, UINT32_MAX)));
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(piece.data());
    size_t pos = 0;   // where the next search starts
    size_t kept = 0;  // end of what has been emitted
    while (pos <= piece.size()) {
      const int rc = pcre2_match(step.regex, subject, piece.size(), pos, PCRE2_NO_UTF_CHECK,
                                 md.get(), mc.get());
      if (rc == PCRE2_ERROR_NOMATCH) break;
      if (rc < 0) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(rc, buf, sizeof(buf));
        return std::string("pre_tokenizer regex match failed: ") +
               reinterpret_cast<const char*>(buf);
      }
      const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
      const size_t start = ov[0], end = ov[1];
      if (end == start) {  // empty matches split nothing; step over one character
        if (start >= piece.size()) break;
        uint32_t cp;
        pos = start + std::max<size_t>(1, utf8_char_len(piece, start, &cp));
        continue;
      }
      if (start > kept) out->push_back(piece.substr(kept, start - kept));
      if (step.behavior == SplitBehavior::kIsolated)
        out->push_back(piece.substr(start, end - start));
      kept = end;
      pos = end;
    }
    if (kept < piece.size()) out->push_back(piece.substr(kept));
    return "";
  }

  // Byte-pair merges of one byte-level-mapped word, appended to `ids`.
  void bpe(const std::string& word, std::vector<int32_t>* ids) const {
    if (ignore_merges) {
      auto it = vocab.find(word);
      if (it != vocab.end()) {
        ids->push_back(it->second);
        return;
      }
    }
    // One symbol per character; characters missing from the vocabulary are dropped (as the
    // reference does without an unk token).
    std::vector<int32_t> sym;
    uint32_t cp;
    for (size_t i = 0; i < word.size();) {
      const size_t len = std::max<size_t>(1, utf8_char_len(word, i, &cp));
      auto it = vocab.find(word.substr(i, len));
      if (it != vocab.end()) sym.push_back(it->second);
      i += len;
    }
    const size_t n = sym.size();
    std::vector<int64_t> prev(n), next(n);
    for (size_t i = 0; i < n; ++i) {
      prev[i] = static_cast<int64_t>(i) - 1;
      next[i] = i + 1 < n ? static_cast<int64_t>(i + 1) : -1;
    }
    // Lowest rank first, leftmost first among equal ranks.
    struct Cand {
      int32_t rank;
      int64_t left;
      int32_t left_id, right_id;
      bool operator>(const Cand& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> queue;
    auto push = [&](int64_t left) {
      if (left < 0 || next[left] < 0) return;
      const int32_t a = sym[left], b = sym[next[left]];
      auto it = merges.find((static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) |
                            static_cast<uint32_t>(b));
      if (it != merges.end()) queue.push({it->second.first, left, a, b});
    };
    for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int64_t>(i));
    while (!queue.empty()) {
      const Cand c = queue.top();
      queue.pop();
      const int64_t right = next[c.left];
      if (sym[c.left] != c.left_id || right < 0 || sym[right] != c.right_id) continue;  // stale
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(c.left_id)) << 32) |
                           static_cast<uint32_t>(c.right_id);
      sym[c.left] = merges.at(key).second;
      sym[right] = -1;
      next[c.left] = next[right];
      if (next[right] >= 0) prev[next[right]] = c.left;
      push(prev[c.left]);
      push(c.left);
    }
    for (int64_t i = n > 0 ? 0 : -1; i >= 0; i = next[i]) ids->push_back(sym[i]);
  }

  std::string encode_segment(const std::string& text, std::vector<int32_t>* ids) const {
    std::vector<std::string> pieces{text}, parts;
    for (const PreTokenizerStep& step : steps) {
      parts.clear();
      for (std::string& piece : pieces) {
        if (step.byte_level && step.add_prefix_space && (piece.empty() || piece[0] != ' ')) {
          piece.insert(piece.begin(), ' ');
        }
        std::string err = split(step, piece, &parts);
        if (!err.empty()) return err;
      }
      pieces.swap(parts);
    }
    std::string mapped;
    for (const std::string& piece : pieces) {
      mapped.clear();
      for (char c : piece) mapped += byte_to_unicode[static_cast<uint8_t>(c)];
      if (!mapped.empty()) bpe(mapped, ids);
    }
    return "";
  }
};

HfTokenizer::HfTokenizer() : impl_(new Impl) {}
HfTokenizer::~HfTokenizer() = default;
HfTokenizer::HfTokenizer(HfTokenizer&&) noexcept = default;
HfTokenizer& HfTokenizer::operator=(HfTokenizer&&) noexcept = default;

TokenizerResult<HfTokenizer> HfTokenizer::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return TokenizerResult<HfTokenizer>::failure(path + ": cannot open the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return TokenizerResult<HfTokenizer>::failure(path + ": read error");
  return load_from_string(buf.str(), path);
}

TokenizerResult<HfTokenizer> HfTokenizer::load_from_string(const std::string& json_text,
                                                           const std::string& name) {
  json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return TokenizerResult<HfTokenizer>::failure(name + ": not valid JSON (truncated or corrupt)");
  }
  HfTokenizer tok;
  tok.impl_->name = name;
  std::string err;
  try {
    err = tok.impl_->parse(root);
  } catch (const std::exception& e) {  // a field of an unexpected JSON type
    err = std::string("malformed tokenizer.json: ") + e.what();
  }
  if (!err.empty()) return TokenizerResult<HfTokenizer>::failure(name + ": " + err);
  return TokenizerResult<HfTokenizer>(std::move(tok));
}

TokenizerResult<std::vector<int32_t>> HfTokenizer::encode(const std::string& text, int bos,
                                                          int eos) const {
  using R = TokenizerResult<std::vector<int32_t>>;
  const Impl& im = *impl_;
  const size_t bad = find_invalid_utf8(text);
  if (bad != std::string::npos) {
    return R::failure(im.name + ": text to encode is not valid UTF-8 at byte " +
                      std::to_string(bad));
  }
  if (im.nfc) {
    const size_t at = find_non_nfc(text);
    if (at != std::string::npos) {
      return R::failure(im.name + ": text to encode is not in NFC form at byte " +
                        std::to_string(at) +
                        " (the NFC normalizer is checked, not applied: normalize first)");
    }
  }
  if (bos < 0 || eos < 0) return R::failure(im.name + ": negative BOS/EOS count");
  if (bos > 0 && im.bos < 0) return R::failure(im.name + ": the tokenizer names no BOS token");
  if (eos > 0 && im.eos < 0) return R::failure(im.name + ": the tokenizer names no EOS token");
  std::vector<int32_t> ids(static_cast<size_t>(bos), im.bos);
  // Added tokens first: the text between them goes through the pre-tokenizer and BPE.
  size_t seg_start = 0;
  std::string err;
  for (size_t i = 0; i < text.size();) {
    const Impl::Added* hit = nullptr;
    for (size_t k : im.added_by_first_byte[static_cast<uint8_t>(text[i])]) {
      const Impl::Added& a = im.added[k];
      if (text.compare(i, a.content.size(), a.content) == 0) {
        hit = &a;
        break;
      }
    }
    if (hit == nullptr) {
      ++i;
      continue;
    }
    size_t start = i, end = i + hit->content.size();
    uint32_t cp;
    while (hit->lstrip && start > seg_start) {  // back over whole whitespace characters
      size_t prev = start - 1;
      while (prev > seg_start && (static_cast<uint8_t>(text[prev]) & 0xC0) == 0x80) --prev;
      if (utf8_char_len(text, prev, &cp) != start - prev || !is_white_space(cp)) break;
      start = prev;
    }
    while (hit->rstrip && end < text.size()) {
      const size_t len = utf8_char_len(text, end, &cp);
      if (!is_white_space(cp)) break;
      end += len;
    }
    if (start > seg_start) err = im.encode_segment(text.substr(seg_start, start - seg_start), &ids);
    if (!err.empty()) return R::failure(im.name + ": " + err);
    ids.push_back(hit->id);
    i = end;
    seg_start = i;
  }
  if (seg_start < text.size()) err = im.encode_segment(text.substr(seg_start), &ids);
  if (!err.empty()) return R::failure(im.name + ": " + err);
  ids.insert(ids.end(), static_cast<size_t>(eos), im.eos);
  return R(std::move(ids));
}

TokenizerResult<std::string> HfTokenizer::decode(int32_t id) const {
  using R = TokenizerResult<std::string>;
  const Impl& im = *impl_;
  if (id < 0 || id >= im.vocab_size) {
    return R::failure(im.name + ": token id " + std::to_string(id) + " is outside the vocab [0, " +
                      std::to_string(im.vocab_size) + ")");
  }
  auto added = im.added_by_id.find(id);
  if (added != im.added_by_id.end()) return R(added->second);
  auto entry = im.id_to_token.find(id);
  if (entry == im.id_to_token.end()) {
    return R::failure(im.name + ": token id " + std::to_string(id) + " names no token");
  }
  // Undo the byte-to-unicode map; a character outside it is kept as its UTF-8.
  const std::string& token = entry->second;
  std::string out;
  uint32_t cp;
  for (size_t i = 0; i < token.size();) {
    const size_t raw = utf8_char_len(token, i, &cp);
    const size_t len = raw == 0 ? 1 : raw;
    auto it = raw > 0 ? im.unicode_to_byte.find(cp) : im.unicode_to_byte.end();
    if (it != im.unicode_to_byte.end()) {
      out.push_back(static_cast<char>(it->second));
    } else {
      out.append(token, i, len);
    }
    i += len;
  }
  return R(std::move(out));
}

TokenizerResult<std::string> HfTokenizer::decode(int32_t /*prev_id*/, int32_t id) const {
  return decode(id);
}

TokenizerResult<std::string> HfTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  for (int32_t id : ids) {
    TokenizerResult<std::string> piece = decode(id);
    if (!piece.ok()) return piece;
    out += piece.value();
  }
  return TokenizerResult<std::string>(std::move(out));
}

int32_t HfTokenizer::vocab_size() const { return impl_->vocab_size; }
int32_t HfTokenizer::bos_id() const { return impl_->bos; }
int32_t HfTokenizer::eos_id() const { return impl_->eos; }
int32_t HfTokenizer::token_to_id(const std::string& token) const { return impl_->lookup(token); }

}  // namespace etr
