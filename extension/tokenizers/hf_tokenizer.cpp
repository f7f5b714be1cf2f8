#include "extension/tokenizers/hf_tokenizer.h"

#include "extension/tokenizers/tokenizer_util.h"

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
using tokenizer_util::append_utf8;
using tokenizer_util::find_invalid_utf8;
using tokenizer_util::kRegexMatchLimit;
using tokenizer_util::kRegexStepsPerByte;
using tokenizer_util::utf8_char_len;

// Ids above this are refused (a real vocabulary has at most a few hundred thousand).
constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;
// Nesting of pre-tokenizer Sequences accepted.
constexpr int kMaxSequenceDepth = 8;

// GPT-2's pre-tokenizer regex, used by ByteLevel when use_regex is true.
const char* const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

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

// Canonical combining class of `cp` (0 for starters).
uint32_t combining_class(uint32_t cp) {
  if (cp < 0x300) return 0;
  auto it = std::upper_bound(std::begin(kCombiningRanges), std::end(kCombiningRanges), cp,
                             [](uint32_t c, const uint32_t(&r)[3]) { return c < r[0]; });
  return (it != std::begin(kCombiningRanges) && cp <= (*(it - 1))[1]) ? (*(it - 1))[2] : 0;
}

// Hangul syllables decompose and compose by formula (Unicode chapter 3.12).
constexpr uint32_t kHangulS = 0xAC00, kHangulL = 0x1100, kHangulV = 0x1161, kHangulT = 0x11A7;
constexpr uint32_t kHangulLCount = 19, kHangulVCount = 21, kHangulTCount = 28;
constexpr uint32_t kHangulSCount = kHangulLCount * kHangulVCount * kHangulTCount;

// Appends the full canonical (or, with `compat`, compatibility) decomposition
// of `cp` to `out`.
void decompose(uint32_t cp, bool compat, std::vector<uint32_t>* out, int depth = 0) {
  if (cp >= kHangulS && cp < kHangulS + kHangulSCount) {
    const uint32_t s = cp - kHangulS;
    out->push_back(kHangulL + s / (kHangulVCount * kHangulTCount));
    out->push_back(kHangulV + (s % (kHangulVCount * kHangulTCount)) / kHangulTCount);
    if (s % kHangulTCount != 0) out->push_back(kHangulT + s % kHangulTCount);
    return;
  }
  if (cp < 0xA0 || depth >= 8) {  // nothing below U+00A0 decomposes; real chains are short
    out->push_back(cp);
    return;
  }
  if (compat) {
    auto it = std::lower_bound(std::begin(kCompatDecompositions), std::end(kCompatDecompositions),
                               cp, [](const uint32_t(&r)[3], uint32_t c) { return r[0] < c; });
    if (it != std::end(kCompatDecompositions) && (*it)[0] == cp) {
      for (uint32_t k = 0; k < (*it)[2]; ++k) {
        decompose(kCompatPool[(*it)[1] + k], compat, out, depth + 1);
      }
      return;
    }
  }
  auto it =
      std::lower_bound(std::begin(kCanonicalDecompositions), std::end(kCanonicalDecompositions), cp,
                       [](const uint32_t(&r)[3], uint32_t c) { return r[0] < c; });
  if (it != std::end(kCanonicalDecompositions) && (*it)[0] == cp) {
    decompose((*it)[1], compat, out, depth + 1);
    if ((*it)[2] != 0) decompose((*it)[2], compat, out, depth + 1);
    return;
  }
  out->push_back(cp);
}

// The primary composite of `a` followed by `b`, or 0 when they do not compose.
uint32_t compose_pair(uint32_t a, uint32_t b) {
  if (a >= kHangulL && a < kHangulL + kHangulLCount && b >= kHangulV &&
      b < kHangulV + kHangulVCount) {
    return kHangulS + ((a - kHangulL) * kHangulVCount + (b - kHangulV)) * kHangulTCount;
  }
  if (a >= kHangulS && a < kHangulS + kHangulSCount && (a - kHangulS) % kHangulTCount == 0 &&
      b > kHangulT && b < kHangulT + kHangulTCount) {
    return a + (b - kHangulT);
  }
  auto it =
      std::lower_bound(std::begin(kCompositions), std::end(kCompositions), std::make_pair(a, b),
                       [](const uint32_t(&r)[3], const std::pair<uint32_t, uint32_t>& k) {
                         return r[0] != k.first ? r[0] < k.first : r[1] < k.second;
                       });
  return (it != std::end(kCompositions) && (*it)[0] == a && (*it)[1] == b) ? (*it)[2] : 0;
}

// NFD, NFC, NFKD or NFKC of valid UTF-8 `s` (UAX #15: canonical or
// compatibility decomposition, canonical ordering of combining marks, then
// for NFC/NFKC canonical composition). ASCII text, and text the NFC quick
// check confirms for NFC, come back unchanged without being rebuilt.
std::string normalize_unicode(const std::string& s, bool compose, bool compat) {
  bool ascii = true;
  for (char c : s) ascii = ascii && static_cast<uint8_t>(c) < 0x80;
  if (ascii) return s;
  if (compose && !compat && find_non_nfc(s) == std::string::npos) return s;
  std::vector<uint32_t> cps;
  cps.reserve(s.size());
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_char_len(s, i, &cp);
    if (len == 0) {  // not reached for valid UTF-8; a bad byte becomes U+FFFD
      cp = 0xFFFD;
      ++i;
    } else {
      i += len;
    }
    decompose(cp, compat, &cps);
  }
  // Canonical ordering: a stable sort of each run of nonzero classes by class.
  for (size_t i = 0; i < cps.size();) {
    if (combining_class(cps[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < cps.size() && combining_class(cps[j]) != 0) ++j;
    std::stable_sort(cps.begin() + i, cps.begin() + j, [](uint32_t a, uint32_t b) {
      return combining_class(a) < combining_class(b);
    });
    i = j;
  }
  if (compose && !cps.empty()) {
    std::vector<uint32_t> out;
    out.reserve(cps.size());
    int64_t starter = -1;  // index in `out` of the last starter
    uint32_t last_class = 256;
    for (uint32_t c : cps) {
      const uint32_t cls = combining_class(c);
      if (starter >= 0 && (last_class < cls || last_class == 0)) {
        // Not blocked: nothing between the starter and c has a class of 0 or >= c's.
        const uint32_t composite = compose_pair(out[static_cast<size_t>(starter)], c);
        if (composite != 0) {
          out[static_cast<size_t>(starter)] = composite;
          continue;
        }
      }
      if (cls == 0) starter = static_cast<int64_t>(out.size());
      last_class = cls;
      out.push_back(c);
    }
    cps.swap(out);
  }
  std::string result;
  result.reserve(s.size() + 8);
  for (uint32_t c : cps) append_utf8(&result, c);
  return result;
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
enum class StepKind { kByteLevel, kSplit, kMetaspace };
enum class PrependScheme { kAlways, kFirst, kNever };

struct PreTokenizerStep {
  StepKind kind = StepKind::kSplit;
  bool add_prefix_space = false;      // ByteLevel
  const pcre2_code* regex = nullptr;  // Split; ByteLevel's GPT-2 regex, null without use_regex
  SplitBehavior behavior = SplitBehavior::kIsolated;
  std::string replacement;  // Metaspace: the character that stands for a space
  PrependScheme prepend = PrependScheme::kAlways;
  bool split = true;  // Metaspace: cut before each replacement character
};

enum class NormKind { kPrepend, kReplace, kNfc, kNfd, kNfkc, kNfkd };

struct NormStep {
  NormKind kind;
  std::string text;                   // Prepend: what is put first; Replace: the String pattern
  std::string content;                // Replace: what each match becomes
  const pcre2_code* regex = nullptr;  // Replace with a Regex pattern
};

enum class DecKind { kReplace, kByteFallback, kFuse, kStrip, kMetaspace };

struct DecStep {
  DecKind kind;
  std::string pattern;                // Replace: String pattern; Metaspace: replacement
  std::string content;                // Replace: what each match becomes; Strip: the character
  const pcre2_code* regex = nullptr;  // Replace with a Regex pattern
  int64_t start = 0, stop = 0;        // Strip: how many characters to take from each end
  bool strip_first = false;           // Metaspace: prepend_scheme is not "never"
};

// A piece of text on its way through the pre-tokenizer; `at_start` when it
// begins at the start of the text to encode (Metaspace's "first" scheme).
struct Piece {
  std::string text;
  bool at_start;
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

// Replaces every non-overlapping occurrence of `pattern` in `s` with `content`.
std::string replace_all(const std::string& s, const std::string& pattern,
                        const std::string& content) {
  if (pattern.empty() || s.find(pattern) == std::string::npos) return s;
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  for (size_t hit; (hit = s.find(pattern, pos)) != std::string::npos; pos = hit + pattern.size()) {
    out.append(s, pos, hit - pos);
    out += content;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// Calls on_match(start, end) for each non-empty match of `re` in `s` in order;
// an error message when the match fails (budget exhausted), else empty.
template <typename F>
std::string for_each_match(const pcre2_code* re, const std::string& s, F on_match) {
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(
      pcre2_match_data_create_from_pattern(re, nullptr), pcre2_match_data_free);
  std::unique_ptr<pcre2_match_context, void (*)(pcre2_match_context*)> mc(
      pcre2_match_context_create(nullptr), pcre2_match_context_free);
  if (!md || !mc) return "out of memory for a regex match";
  const uint64_t limit = kRegexMatchLimit + kRegexStepsPerByte * s.size();
  pcre2_set_match_limit(mc.get(), static_cast<uint32_t>(std::min<uint64_t>(limit, UINT32_MAX)));
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(s.data());
  size_t pos = 0;
  while (pos <= s.size()) {
    const int rc = pcre2_match(re, subject, s.size(), pos, PCRE2_NO_UTF_CHECK, md.get(), mc.get());
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof(buf));
      return std::string("regex match failed: ") + reinterpret_cast<const char*>(buf);
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    const size_t start = ov[0], end = ov[1];
    if (end == start) {  // empty matches split nothing; step over one character
      if (start >= s.size()) break;
      uint32_t cp;
      pos = start + std::max<size_t>(1, utf8_char_len(s, start, &cp));
      continue;
    }
    on_match(start, end);
    pos = end;
  }
  return "";
}

// The byte a ByteFallback token "<0xNN>" stands for, or -1. Like the
// reference (Rust's u8::from_str_radix), either case is read and a '+' sign
// may lead the two characters.
int byte_fallback_value(const std::string& token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
  const auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  if (token[3] == '+') return hex(token[4]);
  const int hi = hex(token[3]), lo = hex(token[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// Removes up to `start` leading and `stop` trailing copies of the character
// `ch` (UTF-8) from `s`.
std::string strip_chars(const std::string& s, const std::string& ch, int64_t start, int64_t stop) {
  size_t begin = 0, end = s.size();
  for (int64_t k = 0; k < start && !ch.empty() && s.compare(begin, ch.size(), ch) == 0; ++k) {
    begin += ch.size();
  }
  for (int64_t k = 0; k < stop && !ch.empty() && end >= begin + ch.size() &&
                      s.compare(end - ch.size(), ch.size(), ch) == 0;
       ++k) {
    end -= ch.size();
  }
  return s.substr(begin, end - begin);
}

// A string field holding exactly one UTF-8 character, else empty.
std::string one_char_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  const std::string v = it->get<std::string>();
  uint32_t cp;
  return (!v.empty() && utf8_char_len(v, 0, &cp) == v.size()) ? v : "";
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
  int32_t unk_id = -1;  // the model's unk_token, -1 when none
  bool fuse_unk = false;
  bool byte_fallback = false;
  int32_t byte_ids[256];  // the "<0xNN>" tokens, -1 where the vocab lacks one
  struct Added {
    std::string content;  // as matched: normalized for a normalized token
    int32_t id;
    bool lstrip;  // the match takes the whitespace before it
    bool rstrip;  // and after it
  };
  // Added tokens matched in the raw text (normalized false) and in the
  // normalized text (normalized true, their content normalized too), as the
  // reference does.
  struct AddedSet {
    std::vector<Added> added;                             // longest content first
    std::vector<std::vector<size_t>> by_first_byte{256};  // indexes into `added`
    void finish() {
      std::stable_sort(added.begin(), added.end(), [](const Added& a, const Added& b) {
        return a.content.size() > b.content.size();
      });
      for (size_t i = 0; i < added.size(); ++i) {
        by_first_byte[static_cast<uint8_t>(added[i].content[0])].push_back(i);
      }
    }
  };
  AddedSet raw_added, normalized_added;
  std::unordered_map<int32_t, std::string> added_by_id;
  std::vector<RegexPtr> regexes;
  std::vector<NormStep> norms;
  std::vector<PreTokenizerStep> steps;
  bool byte_level = false;   // a ByteLevel pre-tokenizer: the vocab is in GPT-2's byte alphabet
  bool has_decoder = false;  // else (not byte-level) tokens are joined with spaces
  std::vector<DecStep> decoders;
  std::string byte_to_unicode[256];
  std::unordered_map<uint32_t, uint8_t> unicode_to_byte;
  int32_t vocab_size = 0;
  int32_t bos = -1;
  int32_t eos = -1;

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

  // Reads a {"String": ...} or {"Regex": ...} pattern into `literal`/`regex`.
  std::string parse_pattern(const json& j, const std::string& what, std::string* literal,
                            const pcre2_code** regex) {
    auto pat = j.find("pattern");
    if (pat == j.end() || !pat->is_object()) return what + " has no pattern";
    std::string err;
    if (pat->contains("String") && (*pat)["String"].is_string()) {
      *literal = (*pat)["String"].get<std::string>();
      if (literal->empty()) return what + " pattern is empty";
      return "";
    }
    if (pat->contains("Regex") && (*pat)["Regex"].is_string()) {
      const std::string text = (*pat)["Regex"].get<std::string>();
      if (text.empty()) return what + " pattern is empty";
      regexes.push_back(compile_regex(text, false, &err));
      if (!regexes.back()) return what + " " + err;
      *regex = regexes.back().get();
      return "";
    }
    return what + " pattern is neither a Regex nor a String";
  }

  std::string parse_normalizer(const json& j, int depth) {
    if (j.is_null()) return "";
    if (depth > kMaxSequenceDepth) return "normalizer Sequences nest too deep";
    const std::string type = type_of(j);
    NormStep step{NormKind::kNfc, "", "", nullptr};
    if (type == "Sequence") {
      auto it = j.find("normalizers");
      if (it == j.end() || !it->is_array()) return "normalizer Sequence has no normalizers list";
      for (const json& sub : *it) {
        std::string err = parse_normalizer(sub, depth + 1);
        if (!err.empty()) return err;
      }
      return "";
    } else if (type == "NFC") {
      step.kind = NormKind::kNfc;
    } else if (type == "NFD") {
      step.kind = NormKind::kNfd;
    } else if (type == "NFKC") {
      step.kind = NormKind::kNfkc;
    } else if (type == "NFKD") {
      step.kind = NormKind::kNfkd;
    } else if (type == "Prepend") {
      auto it = j.find("prepend");
      if (it == j.end() || !it->is_string()) return "Prepend normalizer has no prepend string";
      step.kind = NormKind::kPrepend;
      step.text = it->get<std::string>();
    } else if (type == "Replace") {
      step.kind = NormKind::kReplace;
      std::string err = parse_pattern(j, "Replace normalizer", &step.text, &step.regex);
      if (!err.empty()) return err;
      auto c = j.find("content");
      if (c == j.end() || !c->is_string()) return "Replace normalizer has no content string";
      step.content = c->get<std::string>();
    } else {
      return "normalizer '" + type +
             "' is not supported (NFC, NFD, NFKC, NFKD, Prepend, Replace, Sequence)";
    }
    if (find_invalid_utf8(step.text) != std::string::npos ||
        find_invalid_utf8(step.content) != std::string::npos) {
      return "normalizer '" + type + "' has text that is not valid UTF-8";
    }
    norms.push_back(step);
    return "";
  }

  std::string parse_pre_tokenizer(const json& j, int depth) {
    if (j.is_null()) return "";
    const std::string type = type_of(j);
    if (depth > kMaxSequenceDepth) return "pre_tokenizer Sequences nest too deep";
    if (byte_level) return "pre_tokenizer step after ByteLevel is not supported";
    if (type == "Sequence") {
      auto it = j.find("pretokenizers");
      if (it == j.end() || !it->is_array())
        return "pre_tokenizer Sequence has no pretokenizers list";
      for (const json& sub : *it) {
        std::string err = parse_pre_tokenizer(sub, depth + 1);
        if (!err.empty()) return err;
      }
      return "";
    }
    PreTokenizerStep step;
    std::string err;
    if (type == "ByteLevel") {
      step.kind = StepKind::kByteLevel;
      byte_level = true;
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
    } else if (type == "Metaspace") {
      step.kind = StepKind::kMetaspace;
      step.replacement = one_char_field(j, "replacement");
      if (step.replacement.empty())
        return "Metaspace pre_tokenizer replacement is not one character";
      std::string err2 = parse_prepend_scheme(j, "Metaspace pre_tokenizer", &step.prepend);
      if (!err2.empty()) return err2;
      step.split = bool_field(j, "split", true);
    } else {
      return "pre_tokenizer type '" + type +
             "' is not supported (ByteLevel, Split, Metaspace, Sequence)";
    }
    steps.push_back(step);
    return "";
  }

  // Metaspace's prepend_scheme, or the older add_prefix_space flag.
  static std::string parse_prepend_scheme(const json& j, const std::string& what,
                                          PrependScheme* out) {
    auto it = j.find("prepend_scheme");
    if (it != j.end() && !it->is_null()) {
      const std::string v = it->is_string() ? it->get<std::string>() : "";
      if (v == "always") {
        *out = PrependScheme::kAlways;
      } else if (v == "first") {
        *out = PrependScheme::kFirst;
      } else if (v == "never") {
        *out = PrependScheme::kNever;
      } else {
        return what + " prepend_scheme '" + v + "' is not one of always, first, never";
      }
      return "";
    }
    *out = bool_field(j, "add_prefix_space", true) ? PrependScheme::kAlways : PrependScheme::kNever;
    return "";
  }

  std::string parse_decoder(const json& j, int depth) {
    if (depth > kMaxSequenceDepth) return "decoder Sequences nest too deep";
    const std::string type = type_of(j);
    DecStep step{DecKind::kFuse, "", "", nullptr, 0, 0, false};
    if (type == "Sequence") {
      auto it = j.find("decoders");
      if (it == j.end() || !it->is_array()) return "decoder Sequence has no decoders list";
      for (const json& sub : *it) {
        std::string err = parse_decoder(sub, depth + 1);
        if (!err.empty()) return err;
      }
      return "";
    } else if (type == "Replace") {
      step.kind = DecKind::kReplace;
      std::string err = parse_pattern(j, "Replace decoder", &step.pattern, &step.regex);
      if (!err.empty()) return err;
      auto c = j.find("content");
      if (c == j.end() || !c->is_string()) return "Replace decoder has no content string";
      step.content = c->get<std::string>();
    } else if (type == "ByteFallback") {
      step.kind = DecKind::kByteFallback;
    } else if (type == "Fuse") {
      step.kind = DecKind::kFuse;
    } else if (type == "Strip") {
      step.kind = DecKind::kStrip;
      step.content = one_char_field(j, "content");
      if (step.content.empty()) return "Strip decoder content is not one character";
      for (auto field :
           {std::make_pair("start", &step.start), std::make_pair("stop", &step.stop)}) {
        auto it = j.find(field.first);
        if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0 ||
            it->get<int64_t>() > kMaxTokenId) {
          return std::string("Strip decoder ") + field.first +
                 " is not a small non-negative integer";
        }
        *field.second = it->get<int64_t>();
      }
    } else if (type == "Metaspace") {
      step.kind = DecKind::kMetaspace;
      step.pattern = one_char_field(j, "replacement");
      if (step.pattern.empty()) return "Metaspace decoder replacement is not one character";
      PrependScheme scheme;
      std::string err = parse_prepend_scheme(j, "Metaspace decoder", &scheme);
      if (!err.empty()) return err;
      step.strip_first = scheme != PrependScheme::kNever;
    } else if (type == "ByteLevel") {
      return "decoder ByteLevel needs a ByteLevel pre_tokenizer and stands alone";
    } else {
      return "decoder '" + type +
             "' is not supported (ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, "
             "Sequence)";
    }
    decoders.push_back(step);
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
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      auto it = model.find(key);
      if (it != model.end() && !it->is_null() &&
          !(it->is_string() && it->get<std::string>().empty())) {
        return std::string("BPE ") + key + " is not supported";
      }
    }
    ignore_merges = bool_field(model, "ignore_merges", false);
    byte_fallback = bool_field(model, "byte_fallback", false);
    fuse_unk = bool_field(model, "fuse_unk", false);

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
    auto unk_it = model.find("unk_token");
    if (unk_it != model.end() && !unk_it->is_null()) {
      if (!unk_it->is_string()) return "BPE unk_token is not a string";
      auto found = vocab.find(unk_it->get<std::string>());
      if (found == vocab.end()) {
        return "BPE unk_token '" + unk_it->get<std::string>() + "' is not in the vocab";
      }
      unk_id = found->second;
    }
    bool any_byte = false;
    for (int b = 0; b < 256; ++b) {
      static const char kHex[] = "0123456789ABCDEF";
      const std::string code = std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
      auto it = vocab.find(code);
      byte_ids[b] = it == vocab.end() ? -1 : it->second;
      any_byte = any_byte || it != vocab.end();
    }
    if (byte_fallback && !any_byte) {
      return "BPE byte_fallback is set but the vocab has no <0x00>..<0xFF> byte tokens";
    }

    // The normalizer comes before the added tokens: normalized ones are matched
    // with their content normalized.
    auto norm = root.find("normalizer");
    if (norm != root.end()) {
      std::string err = parse_normalizer(*norm, 0);
      if (!err.empty()) return err;
    }
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
        const bool special = bool_field(t, "special", false);
        const bool normalized = bool_field(t, "normalized", !special);
        Added a{content, static_cast<int32_t>(id), bool_field(t, "lstrip", false),
                bool_field(t, "rstrip", false)};
        if (normalized && !norms.empty()) {
          if (find_invalid_utf8(content) != std::string::npos) {
            return "added token " + std::to_string(id) + " is not valid UTF-8";
          }
          std::string err = normalize(&a.content);
          if (!err.empty()) return err;
          if (a.content.empty()) continue;  // nothing left to match
        }
        (normalized ? normalized_added : raw_added).added.push_back(a);
        added_by_id[static_cast<int32_t>(id)] = content;
      }
    }
    raw_added.finish();
    normalized_added.finish();
    vocab_size = static_cast<int32_t>(max_id + 1);
    for (const auto& kv : vocab) {
      auto ins = id_to_token.emplace(kv.second, kv.first);
      if (!ins.second) {
        return "vocab entries '" + ins.first->second + "' and '" + kv.first + "' share id " +
               std::to_string(kv.second);
      }
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

    auto pre = root.find("pre_tokenizer");
    if (pre != root.end()) {
      std::string err = parse_pre_tokenizer(*pre, 0);
      if (!err.empty()) return err;
    }
    auto dec = root.find("decoder");
    const bool dec_present = dec != root.end() && !dec->is_null();
    if (byte_level) {
      for (const PreTokenizerStep& s : steps) {
        if (s.kind == StepKind::kMetaspace) {
          return "a Metaspace pre_tokenizer together with ByteLevel is not supported";
        }
      }
      if (dec_present && type_of(*dec) != "ByteLevel") {
        return "decoder '" + type_of(*dec) +
               "' is not supported with a ByteLevel pre_tokenizer (only ByteLevel)";
      }
      build_byte_map();
    } else if (dec_present) {
      has_decoder = true;
      std::string err = parse_decoder(*dec, 0);
      if (!err.empty()) return err;
    }
    find_bos_eos(root);
    return "";
  }

  int32_t lookup(const std::string& token) const {
    for (const AddedSet* set : {&raw_added, &normalized_added}) {
      for (const Added& a : set->added) {
        auto it = added_by_id.find(a.id);
        if (it != added_by_id.end() && it->second == token) return a.id;
      }
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

  // Applies the normalizer to valid UTF-8 `s` in place.
  std::string normalize(std::string* s) const {
    for (const NormStep& n : norms) {
      switch (n.kind) {
        case NormKind::kNfc:
        case NormKind::kNfd:
        case NormKind::kNfkc:
        case NormKind::kNfkd:
          *s = normalize_unicode(*s, n.kind == NormKind::kNfc || n.kind == NormKind::kNfkc,
                                 n.kind == NormKind::kNfkc || n.kind == NormKind::kNfkd);
          break;
        case NormKind::kPrepend:
          if (!s->empty()) s->insert(0, n.text);
          break;
        case NormKind::kReplace:
          if (n.regex == nullptr) {
            *s = replace_all(*s, n.text, n.content);
          } else {
            std::string out;
            size_t kept = 0;
            std::string err = for_each_match(n.regex, *s, [&](size_t start, size_t end) {
              out.append(*s, kept, start - kept);
              out += n.content;
              kept = end;
            });
            if (!err.empty()) return "Replace normalizer " + err;
            out.append(*s, kept, std::string::npos);
            s->swap(out);
          }
          break;
      }
    }
    return "";
  }

  // Cuts `text` at the added tokens of `set` (leftmost, then longest match):
  // appends {begin, end, -1} for the text between them and {.., .., id} for each token.
  struct Span {
    size_t begin, end;
    int32_t id;
  };
  void find_added(const AddedSet& set, const std::string& text, std::vector<Span>* out) const {
    size_t seg_start = 0;
    for (size_t i = 0; i < text.size() && !set.added.empty();) {
      const Added* hit = nullptr;
      for (size_t k : set.by_first_byte[static_cast<uint8_t>(text[i])]) {
        const Added& a = set.added[k];
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
        if (len == 0 || !is_white_space(cp)) break;
        end += len;
      }
      if (start > seg_start) out->push_back({seg_start, start, -1});
      out->push_back({start, end, hit->id});
      i = end;
      seg_start = i;
    }
    if (seg_start < text.size()) out->push_back({seg_start, text.size(), -1});
  }

  // Splits `piece` on the regex per `step`, appending the parts to `out`.
  std::string split(const PreTokenizerStep& step, const Piece& piece,
                    std::vector<Piece>* out) const {
    if (step.regex == nullptr) {
      out->push_back(piece);
      return "";
    }
    const std::string& text = piece.text;
    size_t kept = 0;  // end of what has been emitted
    std::string err = for_each_match(step.regex, text, [&](size_t start, size_t end) {
      if (start > kept)
        out->push_back({text.substr(kept, start - kept), piece.at_start && kept == 0});
      if (step.behavior == SplitBehavior::kIsolated) {
        out->push_back({text.substr(start, end - start), piece.at_start && start == 0});
      }
      kept = end;
    });
    if (!err.empty()) return "pre_tokenizer " + err;
    if (kept < text.size()) out->push_back({text.substr(kept), piece.at_start && kept == 0});
    return "";
  }

  // Metaspace: spaces become the replacement, which is put first per the
  // scheme; with `split`, the piece is cut before each replacement.
  void metaspace(const PreTokenizerStep& step, Piece piece, std::vector<Piece>* out) const {
    std::string s = replace_all(piece.text, " ", step.replacement);
    const bool starts = s.compare(0, step.replacement.size(), step.replacement) == 0;
    if (!starts && (step.prepend == PrependScheme::kAlways ||
                    (step.prepend == PrependScheme::kFirst && piece.at_start))) {
      s.insert(0, step.replacement);
    }
    if (!step.split) {
      out->push_back({std::move(s), piece.at_start});
      return;
    }
    size_t begin = 0;
    for (size_t hit = s.find(step.replacement, 1); hit != std::string::npos;
         hit = s.find(step.replacement, hit + step.replacement.size())) {
      if (hit > begin) {
        out->push_back({s.substr(begin, hit - begin), piece.at_start && begin == 0});
        begin = hit;
      }
    }
    if (begin < s.size()) out->push_back({s.substr(begin), piece.at_start && begin == 0});
  }

  // Byte-pair merges of one word (in the vocabulary's alphabet), appended to `ids`.
  void bpe(const std::string& word, std::vector<int32_t>* ids) const {
    if (ignore_merges) {
      auto it = vocab.find(word);
      if (it != vocab.end()) {
        ids->push_back(it->second);
        return;
      }
    }
    // One symbol per character. A character missing from the vocabulary becomes
    // its <0xNN> byte tokens (byte_fallback, when all of them exist), else the
    // unk token (consecutive ones fused into one with fuse_unk), else is dropped,
    // as the reference does.
    std::vector<int32_t> sym;
    uint32_t cp;
    bool unk_pending = false;
    for (size_t i = 0; i < word.size();) {
      const size_t len = std::max<size_t>(1, utf8_char_len(word, i, &cp));
      auto it = vocab.find(word.substr(i, len));
      if (it != vocab.end()) {
        if (unk_pending) sym.push_back(unk_id);
        unk_pending = false;
        sym.push_back(it->second);
      } else {
        bool bytes = byte_fallback;
        for (size_t k = i; bytes && k < i + len; ++k) {
          bytes = byte_ids[static_cast<uint8_t>(word[k])] >= 0;
        }
        if (bytes) {  // (a pending unk stays pending, as in the reference)
          for (size_t k = i; k < i + len; ++k)
            sym.push_back(byte_ids[static_cast<uint8_t>(word[k])]);
        } else if (unk_id >= 0) {
          if (unk_pending && !fuse_unk) sym.push_back(unk_id);
          unk_pending = true;
        }
      }
      i += len;
    }
    if (unk_pending) sym.push_back(unk_id);
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

  // Pre-tokenizes and encodes normalized text that holds no added token;
  // `at_start` when it begins the text to encode.
  std::string encode_segment(const std::string& text, bool at_start,
                             std::vector<int32_t>* ids) const {
    std::vector<Piece> pieces{{text, at_start}}, parts;
    for (const PreTokenizerStep& step : steps) {
      parts.clear();
      for (Piece& piece : pieces) {
        if (step.kind == StepKind::kMetaspace) {
          metaspace(step, std::move(piece), &parts);
          continue;
        }
        if (step.kind == StepKind::kByteLevel && step.add_prefix_space &&
            (piece.text.empty() || piece.text[0] != ' ')) {
          piece.text.insert(piece.text.begin(), ' ');
        }
        std::string err = split(step, piece, &parts);
        if (!err.empty()) return err;
      }
      pieces.swap(parts);
    }
    std::string mapped;
    for (const Piece& piece : pieces) {
      if (!byte_level) {
        if (!piece.text.empty()) bpe(piece.text, ids);
        continue;
      }
      mapped.clear();
      for (char c : piece.text) mapped += byte_to_unicode[static_cast<uint8_t>(c)];
      if (!mapped.empty()) bpe(mapped, ids);
    }
    return "";
  }

  // The string the reference's decoder starts from for `id`: an added
  // token's content, else the vocabulary entry.
  const std::string* token_string(int32_t id) const {
    auto added = added_by_id.find(id);
    if (added != added_by_id.end()) return &added->second;
    auto entry = id_to_token.find(id);
    return entry == id_to_token.end() ? nullptr : &entry->second;
  }

  // A Replace decoder/step applied to one token.
  static std::string replace_token(const DecStep& d, const std::string& s) {
    if (d.regex == nullptr) return replace_all(s, d.pattern, d.content);
    std::string out;
    size_t kept = 0;
    const std::string err = for_each_match(d.regex, s, [&](size_t start, size_t end) {
      out.append(s, kept, start - kept);
      out += d.content;
      kept = end;
    });
    if (!err.empty()) return s;  // a runaway pattern leaves the token as it is
    out.append(s, kept, std::string::npos);
    return out;
  }

  // The reference's decoder chain over a whole token sequence (non-byte-level files).
  std::string decode_chain(std::vector<std::string> tokens) const {
    if (!has_decoder) {  // no decoder: the reference joins the tokens with spaces
      std::string out;
      for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
      return out;
    }
    for (const DecStep& d : decoders) {
      switch (d.kind) {
        case DecKind::kReplace:
          for (std::string& t : tokens) t = replace_token(d, t);
          break;
        case DecKind::kByteFallback: {
          // Runs of byte tokens become their bytes when those are valid UTF-8,
          // else one U+FFFD per byte.
          std::vector<std::string> out;
          std::string run;
          size_t run_len = 0;
          auto flush = [&]() {
            if (run_len == 0) return;
            if (find_invalid_utf8(run) == std::string::npos) {
              out.push_back(run);
            } else {
              for (size_t k = 0; k < run_len; ++k) out.push_back("\xEF\xBF\xBD");
            }
            run.clear();
            run_len = 0;
          };
          for (std::string& t : tokens) {
            const int b = byte_fallback_value(t);
            if (b >= 0) {
              run.push_back(static_cast<char>(b));
              ++run_len;
            } else {
              flush();
              out.push_back(std::move(t));
            }
          }
          flush();
          tokens.swap(out);
          break;
        }
        case DecKind::kFuse: {
          std::string all;
          for (const std::string& t : tokens) all += t;
          tokens.assign(1, all);
          break;
        }
        case DecKind::kStrip:
          for (std::string& t : tokens) t = strip_chars(t, d.content, d.start, d.stop);
          break;
        case DecKind::kMetaspace:
          for (size_t i = 0; i < tokens.size(); ++i) {
            tokens[i] = replace_all(tokens[i], d.pattern, (i == 0 && d.strip_first) ? "" : " ");
          }
          break;
      }
    }
    std::string out;
    for (const std::string& t : tokens) out += t;
    return out;
  }

  // One token through the decoder chain for streaming (non-byte-level files):
  // byte tokens give their raw byte, and what the chain does to the start of
  // the whole text (Strip after Fuse, Metaspace's first token) is done when
  // `first` (the token starts the text).
  std::string decode_piece(const std::string& token, bool first) const {
    if (!has_decoder) return first ? token : " " + token;
    std::string t = token;
    bool fused = false;
    for (const DecStep& d : decoders) {
      switch (d.kind) {
        case DecKind::kReplace: t = replace_token(d, t); break;
        case DecKind::kByteFallback: {
          const int b = byte_fallback_value(t);
          if (b >= 0) t.assign(1, static_cast<char>(b));
          break;
        }
        case DecKind::kFuse: fused = true; break;
        case DecKind::kStrip:
          // After Fuse, Strip sees the whole text: only its start is known here.
          t = fused ? (first ? strip_chars(t, d.content, d.start, 0) : t)
                    : strip_chars(t, d.content, d.start, d.stop);
          break;
        case DecKind::kMetaspace:
          t = replace_all(t, d.pattern, (first && d.strip_first) ? "" : " ");
          break;
      }
    }
    return t;
  }

  // The bytes of byte-level token `token` (GPT-2's alphabet undone; a
  // character outside it is kept as its UTF-8).
  std::string byte_level_bytes(const std::string& token) const {
    std::string out;
    uint32_t cp;
    for (size_t i = 0; i < token.size();) {
      const size_t raw = utf8_char_len(token, i, &cp);
      const size_t len = raw == 0 ? 1 : raw;
      auto it = raw > 0 ? unicode_to_byte.find(cp) : unicode_to_byte.end();
      if (it != unicode_to_byte.end()) {
        out.push_back(static_cast<char>(it->second));
      } else {
        out.append(token, i, len);
      }
      i += len;
    }
    return out;
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
  if (bos < 0 || eos < 0) return R::failure(im.name + ": negative BOS/EOS count");
  if (bos > 0 && im.bos < 0) return R::failure(im.name + ": the tokenizer names no BOS token");
  if (eos > 0 && im.eos < 0) return R::failure(im.name + ": the tokenizer names no EOS token");
  std::vector<int32_t> ids(static_cast<size_t>(bos), im.bos);
  // As the reference: added tokens matched in the raw text first; the text
  // between them is normalized, cut at the normalized added tokens, and what
  // is left goes through the pre-tokenizer and BPE.
  std::vector<Impl::Span> spans, inner;
  im.find_added(im.raw_added, text, &spans);
  std::string err;
  for (const Impl::Span& span : spans) {
    if (span.id >= 0) {
      ids.push_back(span.id);
      continue;
    }
    std::string segment = text.substr(span.begin, span.end - span.begin);
    err = im.normalize(&segment);
    if (!err.empty()) return R::failure(im.name + ": " + err);
    inner.clear();
    im.find_added(im.normalized_added, segment, &inner);
    for (const Impl::Span& part : inner) {
      if (part.id >= 0) {
        ids.push_back(part.id);
        continue;
      }
      err = im.encode_segment(segment.substr(part.begin, part.end - part.begin),
                              span.begin == 0 && part.begin == 0, &ids);
      if (!err.empty()) return R::failure(im.name + ": " + err);
    }
  }
  ids.insert(ids.end(), static_cast<size_t>(eos), im.eos);
  return R(std::move(ids));
}

TokenizerResult<std::string> HfTokenizer::decode(int32_t id) const { return decode(-1, id); }

TokenizerResult<std::string> HfTokenizer::decode(int32_t prev_id, int32_t id) const {
  using R = TokenizerResult<std::string>;
  const Impl& im = *impl_;
  if (id < 0 || id >= im.vocab_size) {
    return R::failure(im.name + ": token id " + std::to_string(id) + " is outside the vocab [0, " +
                      std::to_string(im.vocab_size) + ")");
  }
  const std::string* token = im.token_string(id);
  if (token == nullptr) {
    return R::failure(im.name + ": token id " + std::to_string(id) + " names no token");
  }
  if (im.byte_level) {
    if (im.added_by_id.count(id) != 0) return R(*token);
    return R(im.byte_level_bytes(*token));
  }
  return R(im.decode_piece(*token, prev_id < 0 || prev_id == im.bos));
}

TokenizerResult<std::string> HfTokenizer::decode(const std::vector<int32_t>& ids) const {
  using R = TokenizerResult<std::string>;
  const Impl& im = *impl_;
  if (im.byte_level) {
    std::string out;
    for (int32_t id : ids) {
      R piece = decode(-1, id);
      if (!piece.ok()) return piece;
      out += piece.value();
    }
    return R(std::move(out));
  }
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    const std::string* token = (id >= 0 && id < im.vocab_size) ? im.token_string(id) : nullptr;
    if (token == nullptr) return decode(-1, id);  // the error for this id
    tokens.push_back(*token);
  }
  return R(im.decode_chain(std::move(tokens)));
}

int32_t HfTokenizer::vocab_size() const { return impl_->vocab_size; }
int32_t HfTokenizer::bos_id() const { return impl_->bos; }
int32_t HfTokenizer::eos_id() const { return impl_->eos; }
int32_t HfTokenizer::token_to_id(const std::string& token) const { return impl_->lookup(token); }

}  // namespace etr
