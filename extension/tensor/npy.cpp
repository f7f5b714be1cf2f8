#include "extension/tensor/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/core/checked_math.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the .npy reader assumes a little-endian host");

namespace etr {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// What went wrong while reading an image: a code and a message, or nothing.
struct Problem {
  Error code = Error::Ok;
  std::string message;
  bool failed() const { return code != Error::Ok; }
};

Problem malformed(std::string message) { return {Error::InvalidArgument, std::move(message)}; }
Problem unsupported(std::string message) { return {Error::NotSupported, std::move(message)}; }

struct NpyHeader {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> shape;
  size_t nbytes = 0;
};

struct DescrEntry {
  const char* code;  // without the byte-order character
  ScalarType dtype;
};

constexpr DescrEntry kDescrs[] = {
    {"f2", ScalarType::Half},         {"f4", ScalarType::Float},
    {"f8", ScalarType::Double},       {"i1", ScalarType::Char},
    {"i2", ScalarType::Short},        {"i4", ScalarType::Int},
    {"i8", ScalarType::Long},         {"u1", ScalarType::Byte},
    {"b1", ScalarType::Bool},         {"u2", ScalarType::UInt16},
    {"u4", ScalarType::UInt32},       {"u8", ScalarType::UInt64},
    {"c8", ScalarType::ComplexFloat}, {"c16", ScalarType::ComplexDouble},
};

// Maps a descr ("<f4", "|u1", "=i8", "<c16") to a dtype; a problem otherwise.
Problem dtype_from_descr(const std::string& descr, ScalarType* out) {
  if (descr.size() == 3 || descr.size() == 4) {
    const char order = descr[0];
    const std::string code = descr.substr(1);
    for (const DescrEntry& e : kDescrs) {
      if (code != e.code) continue;
      const bool one_byte = element_size(e.dtype) == 1;
      if (order == '<' || order == '=' || order == '|' || (order == '>' && one_byte)) {
        *out = e.dtype;
        return {};
      }
      return unsupported("big-endian dtype '" + descr + "' is not supported");
    }
  }
  return unsupported("unsupported dtype '" + descr + "'");
}

// A recursive-descent reader for the header's Python dict literal.
class DictParser {
 public:
  DictParser(const char* text, size_t len) : p_(text), end_(text + len) {}

  Problem parse(NpyHeader* h) {
    skip_ws();
    if (!eat('{')) return malformed("header is not a dict");
    bool have_descr = false, have_order = false, have_shape = false;
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      if (!read_string(&key)) return malformed("malformed key in header");
      skip_ws();
      if (!eat(':')) return malformed("missing ':' after key '" + key + "'");
      skip_ws();
      Problem err;
      if (key == "descr") {
        if (have_descr) return malformed("duplicate key 'descr'");
        have_descr = true;
        std::string descr;
        if (!read_string(&descr))
          return unsupported("'descr' is not a string (structured dtypes are not supported)");
        err = dtype_from_descr(descr, &h->dtype);
      } else if (key == "fortran_order") {
        if (have_order) return malformed("duplicate key 'fortran_order'");
        have_order = true;
        bool fortran = false;
        if (!read_bool(&fortran)) return malformed("'fortran_order' is not True or False");
        if (fortran)
          err = unsupported("fortran_order arrays are not supported (save with C order)");
      } else if (key == "shape") {
        if (have_shape) return malformed("duplicate key 'shape'");
        have_shape = true;
        err = read_shape(&h->shape);
      } else if (!skip_value()) {
        err = malformed("malformed value for key '" + key + "'");
      }
      if (err.failed()) return err;
      skip_ws();
      if (eat(',')) continue;
      if (eat('}')) break;
      return malformed("expected ',' or '}' in header");
    }
    skip_ws();
    if (p_ != end_) return malformed("unexpected text after the header dict");
    if (!have_descr || !have_order || !have_shape) {
      return malformed("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return {};
  }

 private:
  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool eat(char c) {
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool eat_word(const char* w) {
    const size_t n = std::strlen(w);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return false;
    p_ += n;
    return true;
  }
  bool read_string(std::string* out) {
    if (p_ >= end_ || (*p_ != '\'' && *p_ != '"')) return false;
    const char quote = *p_++;
    const char* start = p_;
    while (p_ < end_ && *p_ != quote) {
      if (*p_ == '\\') return false;  // escapes never occur in valid headers
      ++p_;
    }
    if (p_ >= end_) return false;
    out->assign(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }
  bool read_bool(bool* out) {
    if (eat_word("True")) return *out = true, true;
    if (eat_word("False")) return *out = false, true;
    return false;
  }
  bool read_int(int64_t* out) {
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return false;
    int64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (*p_++ - '0');
    }
    eat('L');  // Python 2 long suffix
    *out = v;
    return true;
  }
  Problem read_shape(std::vector<int32_t>* shape) {
    if (!eat('(')) return malformed("'shape' is not a tuple");
    for (;;) {
      skip_ws();
      if (eat(')')) return {};
      int64_t d = 0;
      if (!read_int(&d)) {
        return malformed("'shape' holds something other than non-negative integers");
      }
      if (d > INT32_MAX) return malformed("a dimension of 'shape' is too large");
      if (shape->size() >= kTensorMaxDim) {
        return unsupported("'shape' has more than " + std::to_string(kTensorMaxDim) +
                           " dimensions");
      }
      shape->push_back(static_cast<int32_t>(d));
      skip_ws();
      if (eat(')')) return {};
      if (!eat(',')) return malformed("malformed 'shape' tuple");
    }
  }
  // Skips a string, bool, None, integer or flat tuple (unknown keys).
  bool skip_value() {
    std::string s;
    bool b = false;
    int64_t i = 0;
    if (read_string(&s) || read_bool(&b) || eat_word("None") || read_int(&i)) return true;
    std::vector<int32_t> dims;
    return !read_shape(&dims).failed();
  }

  const char* p_;
  const char* end_;
};

// Parses the fixed preamble: magic, version and header length.
Problem parse_preamble(const uint8_t* p, size_t n, size_t* prefix, size_t* header_len) {
  if (n < 10 || std::memcmp(p, kMagic, kMagicLen) != 0) {
    return malformed("not a .npy file (bad magic)");
  }
  const uint8_t major = p[6];
  if (major == 1) {
    *prefix = 10;
    *header_len = static_cast<size_t>(p[8]) | (static_cast<size_t>(p[9]) << 8);
  } else if (major == 2 || major == 3) {
    if (n < 12) return malformed("file is truncated inside the preamble");
    *prefix = 12;
    *header_len = static_cast<size_t>(p[8]) | (static_cast<size_t>(p[9]) << 8) |
                  (static_cast<size_t>(p[10]) << 16) | (static_cast<size_t>(p[11]) << 24);
  } else {
    return unsupported("unsupported .npy version " + std::to_string(major) + "." +
                       std::to_string(p[7]));
  }
  if (*header_len > kMaxNpyHeaderBytes) {
    return malformed("header length " + std::to_string(*header_len) + " exceeds the limit");
  }
  return {};
}

Problem parse_header_text(const char* text, size_t len, NpyHeader* h) {
  Problem err = DictParser(text, len).parse(h);
  if (err.failed()) return {err.code, "malformed .npy header: " + err.message};
  int64_t numel = 1;
  for (int32_t d : h->shape) {
    if (!checked_mul_i64(numel, d, &numel)) {
      return malformed("element count of the shape overflows");
    }
  }
  if (!checked_mul(static_cast<size_t>(numel), element_size(h->dtype), &h->nbytes)) {
    return malformed("byte size of the array overflows");
  }
  return {};
}

Problem size_mismatch(size_t expected, size_t actual) {
  return malformed("data size mismatch: the header implies " + std::to_string(expected) +
                   " bytes of data, the file holds " + std::to_string(actual));
}

// Logs `problem`, prefixed by "<path>: " when a path is given, and returns its code.
Error report(const Problem& problem, const std::string& path = "") {
  if (path.empty()) {
    ETR_LOG(Error, "%s", problem.message.c_str());
  } else {
    ETR_LOG(Error, "%s: %s", path.c_str(), problem.message.c_str());
  }
  return problem.code;
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

std::string header_dict(const char* descr, Span<const int32_t> sizes) {
  std::string shape;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) shape += ", ";
    shape += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) shape += ",";
  return std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape +
         "), }";
}

Error write_file(const std::string& path, const std::string& header, const void* data,
                 size_t nbytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    ETR_FAIL(Error::AccessFailed, "cannot create %s: %s", path.c_str(), std::strerror(errno));
  }
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  if (ok && nbytes > 0) ok = std::fwrite(data, 1, nbytes, f) == nbytes;
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    ETR_FAIL(Error::AccessFailed, "cannot write %s: %s", path.c_str(), std::strerror(errno));
  }
  return Error::Ok;
}

// Preamble + padded header for `dict`, version 1.0 when it fits.
std::string make_header(const std::string& dict) {
  for (int major = 1; major <= 2; ++major) {
    const size_t prefix = major == 1 ? 10 : 12;
    const size_t unpadded = prefix + dict.size() + 1;
    const size_t len = dict.size() + 1 + (64 - unpadded % 64) % 64;
    if (major == 1 && len > 0xffff) continue;
    std::string out(kMagic, kMagicLen);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t b = 0; b < prefix - 8; ++b) out += static_cast<char>((len >> (8 * b)) & 0xff);
    out += dict;
    out.append(len - dict.size() - 1, ' ');
    out += '\n';
    return out;
  }
  return "";
}

}  // namespace

const char* npy_descr(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half: return "<f2";
    case ScalarType::Float: return "<f4";
    case ScalarType::Double: return "<f8";
    case ScalarType::Char: return "|i1";
    case ScalarType::Short: return "<i2";
    case ScalarType::Int: return "<i4";
    case ScalarType::Long: return "<i8";
    case ScalarType::Byte: return "|u1";
    case ScalarType::Bool: return "|b1";
    case ScalarType::UInt16: return "<u2";
    case ScalarType::UInt32: return "<u4";
    case ScalarType::UInt64: return "<u8";
    case ScalarType::ComplexFloat: return "<c8";
    case ScalarType::ComplexDouble: return "<c16";
    default: return nullptr;
  }
}

Result<HostTensor> parse_npy(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  size_t prefix = 0;
  size_t header_len = 0;
  Problem err = parse_preamble(p, size, &prefix, &header_len);
  if (err.failed()) return report(err);
  if (header_len > size - prefix) return report(malformed("file is truncated inside the header"));
  NpyHeader h;
  err = parse_header_text(reinterpret_cast<const char*>(p + prefix), header_len, &h);
  if (err.failed()) return report(err);
  const size_t available = size - prefix - header_len;
  if (available != h.nbytes) return report(size_mismatch(h.nbytes, available));
  return HostTensor::from_bytes(h.dtype, std::move(h.shape), p + prefix + header_len, h.nbytes);
}

Result<HostTensor> read_npy(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    ETR_FAIL(Error::AccessFailed, "cannot open %s: %s", path.c_str(), std::strerror(errno));
  }
  if (std::fseek(f.get(), 0, SEEK_END) != 0) {
    ETR_FAIL(Error::AccessFailed, "cannot seek in %s", path.c_str());
  }
  const long file_size = std::ftell(f.get());
  if (file_size < 0 || std::fseek(f.get(), 0, SEEK_SET) != 0) {
    ETR_FAIL(Error::AccessFailed, "cannot determine the size of %s", path.c_str());
  }
  const size_t size = static_cast<size_t>(file_size);
  uint8_t pre[12] = {};
  const size_t got = std::fread(pre, 1, sizeof(pre) < size ? sizeof(pre) : size, f.get());
  size_t prefix = 0;
  size_t header_len = 0;
  Problem err = parse_preamble(pre, got, &prefix, &header_len);
  if (err.failed()) return report(err, path);
  if (header_len > size - prefix) {
    return report(malformed("file is truncated inside the header"), path);
  }
  std::string text(header_len, '\0');
  if (std::fseek(f.get(), static_cast<long>(prefix), SEEK_SET) != 0 ||
      std::fread(&text[0], 1, header_len, f.get()) != header_len) {
    ETR_FAIL(Error::AccessFailed, "cannot read the header of %s", path.c_str());
  }
  NpyHeader h;
  err = parse_header_text(text.data(), text.size(), &h);
  if (err.failed()) return report(err, path);
  const size_t available = size - prefix - header_len;
  if (available != h.nbytes) return report(size_mismatch(h.nbytes, available), path);
  Result<HostTensor> t = HostTensor::zeros(h.dtype, std::move(h.shape));
  if (!t.ok()) {
    ETR_FAIL(t.error(), "%s: cannot make a tensor for the array", path.c_str());
  }
  if (h.nbytes > 0 && std::fread(t->data(), 1, h.nbytes, f.get()) != h.nbytes) {
    ETR_FAIL(Error::AccessFailed, "cannot read the data of %s", path.c_str());
  }
  return t;
}

Error write_npy(const std::string& path, const Tensor& t) {
  const char* descr = npy_descr(t.dtype());
  if (descr == nullptr) {
    ETR_FAIL(Error::InvalidType, "cannot write %s: dtype %s cannot be stored in a .npy file",
             path.c_str(), to_string(t.dtype()));
  }
  const std::string header = make_header(header_dict(descr, t.sizes()));
  if (t.nbytes() == 0) return write_file(path, header, nullptr, 0);
  if (t.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "cannot write %s: the tensor has no data", path.c_str());
  }
  if (t.is_contiguous_order()) return write_file(path, header, t.const_data(), t.nbytes());
  Result<HostTensor> c = HostTensor::contiguous_copy(t);
  if (!c.ok()) ETR_FAIL(c.error(), "cannot write %s: cannot gather the tensor", path.c_str());
  return write_file(path, header, c->data(), c->nbytes());
}

Error write_npy_scalar(const std::string& path, const EValue& value) {
  Span<const int32_t> no_dims;
  if (value.is_int()) {
    const int64_t v = value.to_int();
    return write_file(path, make_header(header_dict("<i8", no_dims)), &v, sizeof(v));
  }
  if (value.is_double()) {
    const double v = value.to_double();
    return write_file(path, make_header(header_dict("<f8", no_dims)), &v, sizeof(v));
  }
  if (value.is_bool()) {
    const uint8_t v = value.to_bool() ? 1 : 0;
    return write_file(path, make_header(header_dict("|b1", no_dims)), &v, sizeof(v));
  }
  ETR_FAIL(Error::InvalidType, "cannot write %s: a %s value cannot be stored in a .npy file",
           path.c_str(), to_string(value.tag()));
}

}  // namespace etr
