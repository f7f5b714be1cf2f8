#include "test/support/fixtures.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "extension/tensor/npy.h"

namespace etr {
namespace testing {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p[0] == '/' || base_dir.empty()) return p;
  return base_dir + "/" + p;
}

std::vector<std::string> split_paths(const std::string& v, const std::string& base_dir) {
  std::vector<std::string> out;
  if (v == "-" || v.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = v.find(',', start);
    out.push_back(resolve(base_dir, v.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool parse_double(const std::string& v, double* out) {
  if (v.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size() && std::isfinite(*out) && *out >= 0;
}

bool parse_int(const std::string& v, int* out) {
  if (v.empty() || v.size() > 9) return false;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
  }
  *out = std::atoi(v.c_str());
  return *out >= 1;
}

// Fills one entry from its tokens; returns an error message or "".
std::string parse_line(const std::string& line, const std::string& base_dir, ManifestEntry* e) {
  std::istringstream in(line);
  std::string token;
  while (in >> token) {
    const size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) return "token '" + token + "' is not key=value";
    const std::string key = token.substr(0, eq);
    const std::string value = token.substr(eq + 1);
    if (key == "pte") {
      e->pte = resolve(base_dir, value);
    } else if (key == "method") {
      e->method = value;
    } else if (key == "inputs") {
      e->inputs = split_paths(value, base_dir);
    } else if (key == "expected") {
      e->expected = split_paths(value, base_dir);
    } else if (key == "executions") {
      if (!parse_int(value, &e->executions)) return "bad executions '" + value + "'";
    } else if (key == "rtol") {
      if (!parse_double(value, &e->rtol)) return "bad rtol '" + value + "'";
    } else if (key == "atol") {
      if (!parse_double(value, &e->atol)) return "bad atol '" + value + "'";
    } else if (key == "expect_error") {
      e->expect_error = value;
    } else {
      e->extra[key] = value;
    }
  }
  if (e->pte.empty() || e->method.empty()) return "missing pte= or method=";
  return "";
}

const char* kind_name(const EValue& v) { return to_string(v.tag()); }

Error compare_scalar_value(const EValue& got, const HostTensor& exp, double rtol, double atol) {
  const ScalarType want = got.is_int()      ? ScalarType::Long
                          : got.is_double() ? ScalarType::Double
                                            : ScalarType::Bool;
  if (exp.dtype() != want || exp.tensor().dim() != 0) {
    ETR_FAIL(Error::InvalidType, "output is %s but the expected file holds a %s array of shape %s",
             kind_name(got), to_string(exp.dtype()), shape_string(exp.sizes()).c_str());
  }
  // A 0-d tensor holding the value, compared like any tensor.
  uint8_t bytes[8] = {};
  size_t n = 0;
  if (got.is_int()) {
    const int64_t v = got.to_int();
    std::memcpy(bytes, &v, n = sizeof(v));
  } else if (got.is_double()) {
    const double v = got.to_double();
    std::memcpy(bytes, &v, n = sizeof(v));
  } else {
    bytes[0] = got.to_bool() ? 1 : 0;
    n = 1;
  }
  Result<HostTensor> value = HostTensor::from_bytes(want, {}, bytes, n);
  if (!value.ok()) return value.error();
  return compare_tensors(value->tensor(), exp.tensor(), rtol, atol);
}

}  // namespace

std::string ManifestEntry::describe() const {
  const size_t slash = pte.rfind('/');
  const std::string file = slash == std::string::npos ? pte : pte.substr(slash + 1);
  return file + ":" + method + " (manifest line " + std::to_string(line) + ")";
}

Result<std::vector<ManifestEntry>> parse_manifest_text(const std::string& text,
                                                       const std::string& base_dir) {
  std::vector<ManifestEntry> entries;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    ManifestEntry e;
    e.line = number;
    const std::string err = parse_line(line, base_dir, &e);
    if (!err.empty()) ETR_FAIL(Error::InvalidArgument, "manifest line %d: %s", number, err.c_str());
    entries.push_back(std::move(e));
  }
  return entries;
}

Result<std::vector<ManifestEntry>> parse_manifest(const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text.ok()) return text.error();
  const size_t slash = path.rfind('/');
  return parse_manifest_text(*text, slash == std::string::npos ? "." : path.substr(0, slash));
}

std::string default_manifest_path(const std::string& source_dir) {
  return source_dir + "/test/models/manifest.txt";
}

Error compare_tensors(const Tensor& got, const Tensor& expected, double rtol, double atol) {
  if (got.dtype() != expected.dtype()) {
    ETR_FAIL(Error::InvalidType, "dtype %s, expected %s", to_string(got.dtype()),
             to_string(expected.dtype()));
  }
  if (!same_shape(got, expected)) {
    ETR_FAIL(Error::InvalidArgument, "shape %s, expected %s", shape_string(got.sizes()).c_str(),
             shape_string(expected.sizes()).c_str());
  }
  const size_t n = static_cast<size_t>(got.numel());
  if (n == 0) return Error::Ok;
  if (got.const_data() == nullptr || expected.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "a tensor has no data");
  }
  const bool floating = is_floating(got.dtype());
  const size_t elem = got.element_size();
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* a = static_cast<const uint8_t*>(got.const_data()) + element_offset(got, i);
    const uint8_t* e =
        static_cast<const uint8_t*>(expected.const_data()) + element_offset(expected, i);
    bool ok = false;
    double av = 0;
    double ev = 0;
    if (floating && element_to_double(got.dtype(), a, &av) &&
        element_to_double(got.dtype(), e, &ev)) {
      ok = (std::isnan(av) && std::isnan(ev)) || av == ev ||
           std::fabs(av - ev) <= atol + rtol * std::fabs(ev);
    } else {
      ok = std::memcmp(a, e, elem) == 0;
      element_to_double(got.dtype(), a, &av);
      element_to_double(got.dtype(), e, &ev);
    }
    if (!ok && mismatches++ == 0) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "element %zu is %.9g, expected %.9g", i, av, ev);
      first = buf;
    }
  }
  if (mismatches == 0) return Error::Ok;
  char tol[96] = "";
  if (floating) std::snprintf(tol, sizeof(tol), " (rtol %g, atol %g)", rtol, atol);
  ETR_FAIL(Error::InvalidArgument, "%s; %zu of %zu elements differ%s", first.c_str(), mismatches, n,
           tol);
}

Error compare_output_files(const std::string& got_path, const std::string& expected_path,
                           double rtol, double atol) {
  if (ends_with(expected_path, ".txt")) {
    Result<std::string> got = read_file(got_path);
    if (!got.ok()) return got.error();
    Result<std::string> exp = read_file(expected_path);
    if (!exp.ok()) return exp.error();
    if (*got != *exp) {
      ETR_FAIL(Error::InvalidArgument, "text '%s', expected '%s'", got->c_str(), exp->c_str());
    }
    return Error::Ok;
  }
  Result<HostTensor> got = read_npy(got_path);
  if (!got.ok()) return got.error();
  Result<HostTensor> exp = read_npy(expected_path);
  if (!exp.ok()) return exp.error();
  return compare_tensors(got->tensor(), exp->tensor(), rtol, atol);
}

Error compare_value(const EValue& got, const std::string& expected_path, double rtol, double atol) {
  if (got.is_string()) {
    Result<std::string> exp = read_file(expected_path);
    if (!exp.ok()) return exp.error();
    const std::string g(got.to_string().data(), got.to_string().size());
    if (g != *exp) {
      ETR_FAIL(Error::InvalidArgument, "string '%s', expected '%s'", g.c_str(), exp->c_str());
    }
    return Error::Ok;
  }
  if (!got.is_tensor() && !got.is_int() && !got.is_double() && !got.is_bool()) {
    ETR_FAIL(Error::NotSupported, "cannot compare a %s output", kind_name(got));
  }
  if (ends_with(expected_path, ".txt")) {
    ETR_FAIL(Error::InvalidType, "output is %s but the expected file %s is text", kind_name(got),
             expected_path.c_str());
  }
  Result<HostTensor> exp = read_npy(expected_path);
  if (!exp.ok()) return exp.error();
  if (got.is_tensor()) return compare_tensors(got.to_tensor(), exp->tensor(), rtol, atol);
  return compare_scalar_value(got, *exp, rtol, atol);
}

Result<std::string> read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) ETR_FAIL(Error::AccessFailed, "cannot open %s", path.c_str());
  std::string out;
  char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) ETR_FAIL(Error::AccessFailed, "cannot read %s", path.c_str());
  return out;
}

}  // namespace testing
}  // namespace etr
