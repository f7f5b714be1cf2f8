#include "extension/tokenizers/sp_tokenizer.h"

#include <sentencepiece_processor.h>

#include "extension/tokenizers/tokenizer_util.h"

namespace etr {
namespace {

// Largest model file read (Llama 2's is 0.5 MB, Gemma's 4 MB).
constexpr size_t kMaxFileBytes = size_t{256} << 20;

// The value of a hex digit, -1 for any other character.
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

struct SpTokenizer::Impl {
  std::string name;
  sentencepiece::SentencePieceProcessor processor;
};

SpTokenizer::SpTokenizer() : impl_(new Impl) {}
SpTokenizer::~SpTokenizer() = default;
SpTokenizer::SpTokenizer(SpTokenizer&&) noexcept = default;
SpTokenizer& SpTokenizer::operator=(SpTokenizer&&) noexcept = default;

TokenizerResult<SpTokenizer> SpTokenizer::load(const std::string& path) {
  std::string bytes, error;
  if (!tokenizer_util::read_file(path, kMaxFileBytes, &bytes, &error)) {
    return TokenizerResult<SpTokenizer>::failure(error);
  }
  return load_from_string(bytes, path);
}

TokenizerResult<SpTokenizer> SpTokenizer::load_from_string(const std::string& model,
                                                           const std::string& name) {
  using R = TokenizerResult<SpTokenizer>;
  SpTokenizer t;
  t.impl_->name = name;
  const auto status = t.impl_->processor.LoadFromSerializedProto(model);
  if (!status.ok()) {
    return R::failure(name + ": not a SentencePiece model: " + status.ToString());
  }
  if (t.impl_->processor.GetPieceSize() <= 0) {
    return R::failure(name + ": the SentencePiece model has no pieces");
  }
  return R(std::move(t));
}

TokenizerResult<std::vector<int32_t>> SpTokenizer::encode(const std::string& text, int bos,
                                                          int eos) const {
  using R = TokenizerResult<std::vector<int32_t>>;
  const Impl& im = *impl_;
  if (bos < 0 || eos < 0) return R::failure(im.name + ": negative BOS/EOS count");
  if (bos > 0 && bos_id() < 0) return R::failure(im.name + ": the model has no BOS piece");
  if (eos > 0 && eos_id() < 0) return R::failure(im.name + ": the model has no EOS piece");
  std::vector<int> pieces;
  const auto status = im.processor.Encode(text, &pieces);
  if (!status.ok()) return R::failure(im.name + ": SentencePiece encode: " + status.ToString());
  std::vector<int32_t> ids(static_cast<size_t>(bos), bos_id());
  ids.insert(ids.end(), pieces.begin(), pieces.end());
  ids.insert(ids.end(), static_cast<size_t>(eos), eos_id());
  return R(std::move(ids));
}

TokenizerResult<std::string> SpTokenizer::decode(int32_t prev_id, int32_t id) const {
  using R = TokenizerResult<std::string>;
  const Impl& im = *impl_;
  if (id < 0 || id >= vocab_size()) {
    return R::failure(im.name + ": token id " + std::to_string(id) +
                      " is outside the vocabulary (size " + std::to_string(vocab_size()) + ")");
  }
  if (im.processor.IsControl(id)) return std::string();
  if (im.processor.IsUnknown(id)) return std::string(" \xE2\x81\x87 ");
  const std::string& piece = im.processor.IdToPiece(id);
  if (im.processor.IsByte(id)) {  // "<0xNN>"
    const int hi = piece.size() == 6 ? hex_value(piece[3]) : -1;
    const int lo = piece.size() == 6 ? hex_value(piece[4]) : -1;
    if (hi < 0 || lo < 0) return R::failure(im.name + ": byte piece '" + piece + "' is malformed");
    return std::string(1, static_cast<char>(hi * 16 + lo));
  }
  std::string out;
  out.reserve(piece.size());
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 3, "\xE2\x96\x81") == 0) {
      out.push_back(' ');
      i += 3;
    } else {
      out.push_back(piece[i++]);
    }
  }
  if (prev_id == bos_id() && !out.empty() && out[0] == ' ') out.erase(0, 1);
  return R(std::move(out));
}

int32_t SpTokenizer::vocab_size() const { return impl_->processor.GetPieceSize(); }
int32_t SpTokenizer::bos_id() const { return impl_->processor.bos_id(); }
int32_t SpTokenizer::eos_id() const { return impl_->processor.eos_id(); }

}  // namespace etr
