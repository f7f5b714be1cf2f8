#include "extension/tokenizers/tokenizer_util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstdio>

namespace etr {
namespace tokenizer_util {

size_t utf8_char_len(const std::string& s, size_t i, uint32_t* cp_out) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  size_t len;
  uint32_t cp;
  if (c < 0x80) {
    *cp_out = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
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
  if (s.size() - i < len) return 0;
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

bool read_file(const std::string& path, size_t max_bytes, std::string* out, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = path + ": cannot open the tokenizer file";
    return false;
  }
  out->clear();
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0) {
    if (out->size() + got > max_bytes) {
      std::fclose(f);
      *error = path + ": the tokenizer file is larger than " + std::to_string(max_bytes) + " bytes";
      return false;
    }
    out->append(buf, got);
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    *error = path + ": cannot read the tokenizer file";
    return false;
  }
  return true;
}

size_t find_invalid_utf8(const std::string& s) {
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_char_len(s, i, &cp);
    if (len == 0) return i;
    i += len;
  }
  return std::string::npos;
}

struct RegexSplitter::Impl {
  pcre2_code* code = nullptr;
  ~Impl() {
    if (code != nullptr) pcre2_code_free(code);
  }
};

RegexSplitter::RegexSplitter() : impl_(new Impl) {}
RegexSplitter::~RegexSplitter() = default;
RegexSplitter::RegexSplitter(RegexSplitter&&) noexcept = default;
RegexSplitter& RegexSplitter::operator=(RegexSplitter&&) noexcept = default;

bool RegexSplitter::compile(const std::string& pattern, std::string* error) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 PCRE2_UTF | PCRE2_UCP, &code, &offset, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof(buf));
    *error = "regex /" + pattern + "/ does not compile at offset " + std::to_string(offset) + ": " +
             reinterpret_cast<const char*>(buf);
    return false;
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // Faster when available; the interpreter otherwise.
  if (impl_->code != nullptr) pcre2_code_free(impl_->code);
  impl_->code = re;
  return true;
}

bool RegexSplitter::split(const std::string& text, std::vector<std::pair<size_t, size_t>>* pieces,
                          std::string* error) const {
  if (impl_->code == nullptr) {
    *error = "no regex compiled";
    return false;
  }
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(
      pcre2_match_data_create_from_pattern(impl_->code, nullptr), pcre2_match_data_free);
  std::unique_ptr<pcre2_match_context, void (*)(pcre2_match_context*)> mc(
      pcre2_match_context_create(nullptr), pcre2_match_context_free);
  if (!md || !mc) {
    *error = "out of memory for a regex match";
    return false;
  }
  const uint64_t limit = kRegexMatchLimit + kRegexStepsPerByte * text.size();
  pcre2_set_match_limit(mc.get(), static_cast<uint32_t>(std::min<uint64_t>(limit, UINT32_MAX)));
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    const int rc =
        pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md.get(), mc.get());
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof(buf));
      *error = std::string("pre-tokenizer regex match failed at byte ") + std::to_string(pos) +
               ": " + reinterpret_cast<const char*>(buf);
      return false;
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    const size_t start = ov[0], end = ov[1];
    if (end <= start) {  // an empty match cuts nothing; step over one character
      if (start >= text.size()) break;
      uint32_t cp;
      pos = start + std::max<size_t>(1, utf8_char_len(text, start, &cp));
      continue;
    }
    pieces->emplace_back(start, end);
    pos = end;
  }
  return true;
}

}  // namespace tokenizer_util
}  // namespace etr
