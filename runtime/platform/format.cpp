#include "runtime/platform/format.h"

#include <cstdint>
#include <cstring>

namespace etr {
namespace internal {
namespace {

// Appends to a fixed buffer, counting what would have been written.
struct Sink {
  char* buf;
  size_t cap;
  size_t len = 0;
  void put(char c) {
    if (len + 1 < cap) buf[len] = c;
    ++len;
  }
  void pad(char c, int n) {
    for (int i = 0; i < n; ++i) put(c);
  }
};

struct Spec {
  bool left = false;
  bool zero = false;
  bool plus = false;
  bool space = false;
  int width = 0;
  int precision = -1;
};

// Writes `digits` (n chars, no sign) with sign, zero padding and width.
void emit_number(Sink& out, const Spec& s, char sign, const char* digits, int n) {
  int zeros = 0;
  if (s.precision > n) zeros = s.precision - n;
  const int body = n + zeros + (sign != 0 ? 1 : 0);
  int fill = s.width > body ? s.width - body : 0;
  if (!s.left && !(s.zero && s.precision < 0)) out.pad(' ', fill);
  if (sign != 0) out.put(sign);
  if (!s.left && s.zero && s.precision < 0) out.pad('0', fill);
  out.pad('0', zeros);
  for (int i = 0; i < n; ++i) out.put(digits[i]);
  if (s.left) out.pad(' ', fill);
}

void emit_unsigned(Sink& out, const Spec& s, uint64_t v, unsigned base, bool upper, char sign) {
  char digits[24];
  int n = 0;
  const char* table = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  if (v == 0 && s.precision != 0) digits[n++] = '0';
  while (v != 0) {
    digits[n++] = table[v % base];
    v /= base;
  }
  for (int i = 0; i < n / 2; ++i) {
    const char t = digits[i];
    digits[i] = digits[n - 1 - i];
    digits[n - 1 - i] = t;
  }
  emit_number(out, s, sign, digits, n);
}

void emit_string(Sink& out, const Spec& s, const char* str) {
  if (str == nullptr) str = "(null)";
  size_t n = 0;
  while (str[n] != '\0' && (s.precision < 0 || n < static_cast<size_t>(s.precision))) ++n;
  const int fill = s.width > static_cast<int>(n) ? s.width - static_cast<int>(n) : 0;
  if (!s.left) out.pad(' ', fill);
  for (size_t i = 0; i < n; ++i) out.put(str[i]);
  if (s.left) out.pad(' ', fill);
}

// %g with `precision` significant digits (default 6), trailing zeros
// removed: plain notation for exponents in [-5, precision), else d.ddde+XX.
// Digits come from repeated scaling, so the last digit may differ from a
// correctly rounded printf (these are log messages).
void emit_general(Sink& out, const Spec& s, double v) {
  char text[48];
  int n = 0;
  char sign = v < 0 ? '-' : (s.plus ? '+' : (s.space ? ' ' : 0));
  if (v != v) {
    emit_number(out, Spec{s.left, false, false, false, s.width, -1}, 0, "nan", 3);
    return;
  }
  if (v < 0) v = -v;
  if (v > 1.7976931348623157e308) {
    emit_number(out, Spec{s.left, false, false, false, s.width, -1}, sign, "inf", 3);
    return;
  }
  int p = s.precision < 0 ? 6 : (s.precision == 0 ? 1 : s.precision);
  if (p > 17) p = 17;
  int exp10 = 0;
  if (v != 0) {
    while (v >= 10.0) {
      v /= 10.0;
      ++exp10;
    }
    while (v < 1.0) {
      v *= 10.0;
      --exp10;
    }
  }
  // p significant digits, rounded half up.
  char d[20];
  double r = v;
  for (int i = 0; i < p; ++i) {
    const int digit = static_cast<int>(r);
    d[i] = static_cast<char>('0' + (digit > 9 ? 9 : digit));
    r = (r - digit) * 10.0;
  }
  if (r >= 5.0) {
    int i = p - 1;
    while (i >= 0 && d[i] == '9') d[i--] = '0';
    if (i >= 0) {
      ++d[i];
    } else {
      for (int k = p - 1; k > 0; --k) d[k] = d[k - 1];
      d[0] = '1';
      ++exp10;
    }
  }
  int last = p - 1;  // drop trailing zeros
  while (last > 0 && d[last] == '0') --last;
  if (exp10 >= -5 && exp10 < p) {
    if (exp10 < 0) {
      text[n++] = '0';
      text[n++] = '.';
      for (int i = -1; i > exp10; --i) text[n++] = '0';
      for (int i = 0; i <= last; ++i) text[n++] = d[i];
    } else {
      for (int i = 0; i <= exp10; ++i) text[n++] = i <= last ? d[i] : '0';
      if (last > exp10) {
        text[n++] = '.';
        for (int i = exp10 + 1; i <= last; ++i) text[n++] = d[i];
      }
    }
  } else {
    text[n++] = d[0];
    if (last > 0) {
      text[n++] = '.';
      for (int i = 1; i <= last; ++i) text[n++] = d[i];
    }
    text[n++] = 'e';
    text[n++] = exp10 < 0 ? '-' : '+';
    const int e = exp10 < 0 ? -exp10 : exp10;
    if (e >= 100) text[n++] = static_cast<char>('0' + e / 100);
    text[n++] = static_cast<char>('0' + (e / 10) % 10);
    text[n++] = static_cast<char>('0' + e % 10);
  }
  Spec plain = s;
  plain.precision = -1;
  emit_number(out, plain, sign, text, n);
}

}  // namespace

size_t format_message(char* buf, size_t cap, const char* fmt, va_list args) {
  Sink out{buf, cap};
  va_list ap;
  va_copy(ap, args);
  for (const char* f = fmt; *f != '\0'; ++f) {
    if (*f != '%') {
      out.put(*f);
      continue;
    }
    const char* start = f++;
    if (*f == '%') {
      out.put('%');
      continue;
    }
    Spec s;
    for (;; ++f) {
      if (*f == '-') {
        s.left = true;
      } else if (*f == '0') {
        s.zero = true;
      } else if (*f == '+') {
        s.plus = true;
      } else if (*f == ' ') {
        s.space = true;
      } else if (*f != '#') {
        break;
      }
    }
    if (*f == '*') {
      s.width = va_arg(ap, int);
      if (s.width < 0) {
        s.left = true;
        s.width = -s.width;
      }
      ++f;
    } else {
      while (*f >= '0' && *f <= '9') s.width = s.width * 10 + (*f++ - '0');
    }
    if (*f == '.') {
      ++f;
      s.precision = 0;
      if (*f == '*') {
        s.precision = va_arg(ap, int);
        ++f;
      } else {
        while (*f >= '0' && *f <= '9') s.precision = s.precision * 10 + (*f++ - '0');
      }
    }
    // Length: hh h l ll z j t (L for long double is not used by the runtime).
    int length =
        0;  // 0 int, 1 long, 2 long long, 3 size_t, 4 intmax_t, 5 ptrdiff_t, 6 char, 7 short
    if (*f == 'h') {
      ++f;
      length = 7;
      if (*f == 'h') {
        ++f;
        length = 6;
      }
    } else if (*f == 'l') {
      ++f;
      length = 1;
      if (*f == 'l') {
        ++f;
        length = 2;
      }
    } else if (*f == 'z') {
      ++f;
      length = 3;
    } else if (*f == 'j') {
      ++f;
      length = 4;
    } else if (*f == 't') {
      ++f;
      length = 5;
    }
    const char conv = *f;
    if (conv == 'd' || conv == 'i') {
      int64_t v;
      switch (length) {
        case 1: v = va_arg(ap, long); break;
        case 2: v = va_arg(ap, long long); break;
        case 3: v = static_cast<int64_t>(va_arg(ap, size_t)); break;
        case 4: v = va_arg(ap, intmax_t); break;
        case 5: v = va_arg(ap, ptrdiff_t); break;
        case 6: v = static_cast<signed char>(va_arg(ap, int)); break;
        case 7: v = static_cast<short>(va_arg(ap, int)); break;
        default: v = va_arg(ap, int); break;
      }
      const char sign = v < 0 ? '-' : (s.plus ? '+' : (s.space ? ' ' : 0));
      const uint64_t mag =
          v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      emit_unsigned(out, s, mag, 10, false, sign);
    } else if (conv == 'u' || conv == 'x' || conv == 'X' || conv == 'o') {
      uint64_t v;
      switch (length) {
        case 1: v = va_arg(ap, unsigned long); break;
        case 2: v = va_arg(ap, unsigned long long); break;
        case 3: v = va_arg(ap, size_t); break;
        case 4: v = va_arg(ap, uintmax_t); break;
        case 5: v = static_cast<uint64_t>(va_arg(ap, ptrdiff_t)); break;
        case 6: v = static_cast<unsigned char>(va_arg(ap, unsigned)); break;
        case 7: v = static_cast<unsigned short>(va_arg(ap, unsigned)); break;
        default: v = va_arg(ap, unsigned); break;
      }
      const unsigned base = conv == 'u' ? 10u : (conv == 'o' ? 8u : 16u);
      emit_unsigned(out, s, v, base, conv == 'X', 0);
    } else if (conv == 'c') {
      const char c = static_cast<char>(va_arg(ap, int));
      const char one[2] = {c, '\0'};
      emit_string(out, Spec{s.left, false, false, false, s.width, -1}, one);
    } else if (conv == 's') {
      emit_string(out, s, va_arg(ap, const char*));
    } else if (conv == 'p') {
      const uintptr_t p = reinterpret_cast<uintptr_t>(va_arg(ap, void*));
      out.put('0');
      out.put('x');
      emit_unsigned(out, Spec{}, p, 16, false, 0);
    } else if (conv == 'g' || conv == 'G' || conv == 'f' || conv == 'e' || conv == 'E') {
      // One notation for every float conversion: %g's (messages only).
      emit_general(out, s, va_arg(ap, double));
    } else {
      // Unknown conversion: copy it through and stop consuming arguments.
      for (const char* c = start; c <= f && *c != '\0'; ++c) out.put(*c);
      if (*f == '\0') break;
    }
  }
  va_end(ap);
  if (cap != 0) buf[out.len < cap ? out.len : cap - 1] = '\0';
  return out.len;
}

size_t format_message(char* buf, size_t cap, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  const size_t n = format_message(buf, cap, fmt, args);
  va_end(args);
  return n;
}

}  // namespace internal
}  // namespace etr
