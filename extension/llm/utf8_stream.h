// Utf8Stream: joins the byte pieces a tokenizer decodes token by token and
// hands on only whole UTF-8 characters (a character split over two tokens is
// held back until its last byte arrives).
//
//   etr::llm::Utf8Stream s;
//   std::string out = s.push("\xe2\x82");   // "" (incomplete euro sign)
//   out = s.push("\xac!");                  // "\xe2\x82\xac!"
//   out = s.flush();                        // whatever is left
//
// Bytes that cannot start or continue a character (a stray continuation
// byte, a lead byte followed by a non-continuation byte) are passed on as
// they are, so nothing is held back for more than one character.
#pragma once

#include <string>

namespace etr {
namespace llm {

class Utf8Stream final {
 public:
  // The bytes of `piece` (after those held back) up to the last whole character.
  std::string push(const std::string& piece);
  // Everything held back (an incomplete character at the end of the text).
  std::string flush();
  size_t pending_bytes() const { return held_.size(); }

 private:
  std::string held_;
};

}  // namespace llm
}  // namespace etr
