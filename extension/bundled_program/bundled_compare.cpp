// Compares a Method's outputs with one bundled test case's expected outputs.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "extension/bundled_program/bundled_program.h"
#include "extension/bundled_program/bundled_tensor.h"
#include "schema/bundled_program_generated.h"

namespace etr {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double half_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa != 0 ? std::numeric_limits<double>::quiet_NaN() : kInf;
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return (h & 0x8000) != 0 ? -v : v;
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Floating-point dtypes as double.
double load_floating(const uint8_t* p, ScalarType t) {
  switch (t) {
    case ScalarType::Float: return load<float>(p);
    case ScalarType::Double: return load<double>(p);
    case ScalarType::Half: return half_to_double(load<uint16_t>(p));
    default: {  // BFloat16: the high half of a float
      const uint32_t bits = static_cast<uint32_t>(load<uint16_t>(p)) << 16;
      return load<float>(reinterpret_cast<const uint8_t*>(&bits));
    }
  }
}

// Integer and Bool dtypes widened to int64 (UInt64 is compared as raw bytes).
bool load_integer(const uint8_t* p, ScalarType t, int64_t* out) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Bool: *out = load<uint8_t>(p); return true;
    case ScalarType::Char: *out = load<int8_t>(p); return true;
    case ScalarType::Short: *out = load<int16_t>(p); return true;
    case ScalarType::Int: *out = load<int32_t>(p); return true;
    case ScalarType::Long: *out = load<int64_t>(p); return true;
    case ScalarType::UInt16: *out = load<uint16_t>(p); return true;
    case ScalarType::UInt32: *out = load<uint32_t>(p); return true;
    default: return false;
  }
}

// Closeness of one floating element; *err is |a - e|, infinite when a NaN or
// an infinity does not match.
bool close(double a, double e, double rtol, double atol, double* err) {
  if (std::isnan(a) || std::isnan(e)) {
    const bool both = std::isnan(a) && std::isnan(e);
    *err = both ? 0 : kInf;
    return both;
  }
  if (std::isinf(a) || std::isinf(e)) {
    *err = a == e ? 0 : kInf;
    return a == e;
  }
  *err = std::fabs(a - e);
  if (rtol == 0 && atol == 0) return a == e;
  return *err <= atol + rtol * std::fabs(a);
}

// Folds one element into the comparison.
struct Tracker {
  BundledComparison* r;
  double worst_error = -1;

  void add(size_t output, size_t index, double a, double e, double err, bool match) {
    const double scale = std::fmax(std::fabs(a), std::fabs(e));
    const double rel = err == 0 ? 0 : (std::isinf(err) || scale == 0 ? kInf : err / scale);
    r->max_abs_error = std::fmax(r->max_abs_error, err);
    r->max_rel_error = std::fmax(r->max_rel_error, rel);
    const bool first_mismatch = !match && r->passed;
    if (!match) {
      r->passed = false;
      ++r->mismatches;
    }
    if (first_mismatch || (match == r->passed && err > worst_error)) {
      worst_error = err;
      r->worst_output = output;
      r->worst_index = index;
      r->worst_actual = a;
      r->worst_expected = e;
    }
  }
};

// Element offset of row-major position `index` in a strided tensor.
size_t element_offset(const Tensor& t, size_t index) {
  size_t offset = 0;
  for (size_t d = t.dim(); d-- > 0;) {
    const size_t size = static_cast<size_t>(t.size(d));
    offset += (index % size) * static_cast<size_t>(t.stride(d));
    index /= size;
  }
  return offset;
}

// The dtype of a complex element's two parts (Half, Float, Double).
ScalarType complex_part(ScalarType t) {
  if (t == ScalarType::ComplexHalf) return ScalarType::Half;
  return t == ScalarType::ComplexFloat ? ScalarType::Float : ScalarType::Double;
}

void compare_elements(const internal::BundledTensor& b, const Tensor& out, size_t output,
                      double rtol, double atol, Tracker* tracker) {
  const size_t es = element_size(b.dtype);
  const uint8_t* actual = static_cast<const uint8_t*>(out.const_data());
  const bool contiguous = out.is_contiguous_order();
  for (size_t i = 0; i < static_cast<size_t>(b.numel); ++i) {
    const uint8_t* pa = actual + (contiguous ? i : element_offset(out, i)) * es;
    const uint8_t* pe = b.data + i * es;
    int64_t ia = 0;
    int64_t ie = 0;
    if (is_floating(b.dtype)) {
      const double a = load_floating(pa, b.dtype);
      const double e = load_floating(pe, b.dtype);
      double err = 0;
      const bool match = close(a, e, rtol, atol, &err);
      tracker->add(output, i, a, e, err, match);
    } else if (is_complex(b.dtype)) {
      // The real and the imaginary part are each compared as a float; element
      // i is reported with the part that differs more.
      const ScalarType part = complex_part(b.dtype);
      const size_t half = es / 2;
      double a[2];
      double e[2];
      double err[2];
      bool match[2];
      for (size_t k = 0; k < 2; ++k) {
        a[k] = load_floating(pa + k * half, part);
        e[k] = load_floating(pe + k * half, part);
        match[k] = close(a[k], e[k], rtol, atol, &err[k]);
      }
      const size_t k = (match[0] && !match[1]) || (match[0] == match[1] && err[1] > err[0]) ? 1 : 0;
      tracker->add(output, i, a[k], e[k], err[k], match[0] && match[1]);
    } else if (load_integer(pa, b.dtype, &ia) && load_integer(pe, b.dtype, &ie)) {
      const double a = static_cast<double>(ia);
      const double e = static_cast<double>(ie);
      tracker->add(output, i, a, e, ia == ie ? 0 : std::fabs(a - e), ia == ie);
    } else {  // other dtypes: bytes must be equal
      const bool match = std::memcmp(pa, pe, es) == 0;
      tracker->add(output, i, 0, 0, match ? 0 : kInf, match);
    }
  }
}

const char* shape_text(const int32_t* sizes, size_t rank, char* buf, size_t cap) {
  size_t used = static_cast<size_t>(std::snprintf(buf, cap, "["));
  for (size_t d = 0; d < rank && used < cap; ++d) {
    used += static_cast<size_t>(
        std::snprintf(buf + used, cap - used, d == 0 ? "%d" : ", %d", static_cast<int>(sizes[d])));
  }
  if (used < cap) std::snprintf(buf + used, cap - used, "]");
  return buf;
}

Error compare_output(const Method& method, size_t test_case, size_t i, const etr_bp::Value& v,
                     double rtol, double atol, Tracker* tracker) {
  if (v.val_type() != etr_bp::ValueUnion::Tensor) {
    ETR_FAIL(Error::NotSupported,
             "method '%s' case %zu output %zu: the expected value is not a "
             "tensor",
             method.name(), test_case, i);
  }
  const EValue& out = method.get_output(i);
  if (!out.is_tensor()) {
    ETR_FAIL(Error::InvalidType,
             "method '%s' case %zu output %zu: expected a tensor, the method "
             "returned %s",
             method.name(), test_case, i, to_string(out.tag()));
  }
  const Tensor& t = out.to_tensor();
  const internal::BundledTensor b = internal::read_bundled_tensor(*v.val_as_Tensor());
  if (b.dtype != t.dtype()) {
    ETR_FAIL(Error::InvalidType,
             "method '%s' case %zu output %zu: expected %s, the method "
             "returned %s",
             method.name(), test_case, i, to_string(b.dtype), to_string(t.dtype()));
  }
  bool same = b.rank == t.dim();
  for (size_t d = 0; same && d < b.rank; ++d) same = b.sizes[d] == t.size(d);
  if (!same) {
    char want[96];
    char got[96];
    ETR_FAIL(Error::InvalidArgument,
             "method '%s' case %zu output %zu: expected shape %s, the "
             "method returned %s",
             method.name(), test_case, i, shape_text(b.sizes, b.rank, want, sizeof(want)),
             shape_text(t.sizes().data(), t.dim(), got, sizeof(got)));
  }
  if (b.numel != 0 && t.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidState, "method '%s' case %zu output %zu has no data", method.name(),
             test_case, i);
  }
  compare_elements(b, t, i, rtol, atol, tracker);
  return Error::Ok;
}

}  // namespace

Result<BundledComparison> BundledProgram::compare_outputs(const Method& method, size_t test_case,
                                                          double rtol, double atol) const {
  if (!(rtol >= 0) || !(atol >= 0)) {
    ETR_FAIL(Error::InvalidArgument, "compare_outputs: rtol %g and atol %g must be >= 0", rtol,
             atol);
  }
  ETR_ASSIGN_OR_RETURN(const etr_bp::BundledMethodTestCase* tc,
                       find_case(method.name(), test_case));
  const auto* expected = tc->expected_outputs();
  const size_t n = expected != nullptr ? expected->size() : 0;
  if (n == 0) {
    ETR_FAIL(Error::NotSupported, "method '%s' case %zu has no expected outputs to compare",
             method.name(), test_case);
  }
  if (n != method.outputs_size()) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s' case %zu: %zu expected outputs, the method has "
             "%zu",
             method.name(), test_case, n, method.outputs_size());
  }
  BundledComparison result;
  Tracker tracker{&result};
  for (size_t i = 0; i < n; ++i) {
    const etr_bp::Value& v = *expected->Get(static_cast<flatbuffers::uoffset_t>(i));
    ETR_RETURN_IF_ERROR(compare_output(method, test_case, i, v, rtol, atol, &tracker));
  }
  return result;
}

Error BundledProgram::verify_outputs(const Method& method, size_t test_case, double rtol,
                                     double atol) const {
  ETR_ASSIGN_OR_RETURN(const BundledComparison r, compare_outputs(method, test_case, rtol, atol));
  if (!r.passed) {
    ETR_FAIL(Error::NotFound,
             "method '%s' case %zu: %zu elements differ; worst output %zu "
             "element %zu: got %.9g, expected %.9g (max abs error %g, max rel error %g)",
             method.name(), test_case, r.mismatches, r.worst_output, r.worst_index, r.worst_actual,
             r.worst_expected, r.max_abs_error, r.max_rel_error);
  }
  return Error::Ok;
}

}  // namespace etr
