// .bpte reader: verification, accessors and loading test inputs into a Method.
#include "extension/bundled_program/bundled_program.h"

#include <cstdio>
#include <cstring>

#include "extension/bundled_program/bundled_tensor.h"
#include "runtime/core/checked_math.h"
#include "schema/bundled_program_generated.h"

namespace etr {
namespace {

// Upper bounds for the verifier; generous for real files, bounded for hostile ones.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 26;

// Names the value being checked in messages: "suite 0 (method 'forward') case 2 input 1".
struct Where {
  size_t suite;
  const char* method;
  size_t test_case;
  const char* role;  // "input" or "expected output"
  size_t index;
  char text[192];

  const char* str() {
    std::snprintf(text, sizeof(text), "bundled program: suite %zu (method '%s') case %zu %s %zu",
                  suite, method, test_case, role, index);
    return text;
  }
};

Error check_dim_order(const flatbuffers::Vector<uint8_t>* order, size_t rank, Where& w) {
  if (order == nullptr) return Error::Ok;
  if (order->size() != rank) {
    ETR_FAIL(Error::InvalidProgram, "%s: dim_order has %u entries for a rank-%zu tensor", w.str(),
             order->size(), rank);
  }
  bool seen[kTensorMaxDim] = {};
  for (size_t d = 0; d < rank; ++d) {
    const uint8_t v = order->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (v >= rank || seen[v]) {
      ETR_FAIL(Error::InvalidProgram, "%s: dim_order is not a permutation of 0..%zu", w.str(),
               rank - 1);
    }
    seen[v] = true;
  }
  return Error::Ok;
}

Error check_tensor(const etr_bp::Tensor& t, Where& w) {
  const ScalarType dtype = static_cast<ScalarType>(t.scalar_type());
  if (!is_valid(dtype)) {
    ETR_FAIL(Error::InvalidProgram, "%s: unknown scalar type %d", w.str(),
             static_cast<int>(t.scalar_type()));
  }
  const size_t rank = t.sizes() != nullptr ? t.sizes()->size() : 0;
  if (rank > kTensorMaxDim) {
    ETR_FAIL(Error::InvalidProgram, "%s: rank %zu exceeds the maximum %zu", w.str(), rank,
             kTensorMaxDim);
  }
  size_t numel = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int32_t s = t.sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (s < 0) ETR_FAIL(Error::InvalidProgram, "%s: size %zu is negative (%d)", w.str(), d, s);
    if (!checked_mul(numel, static_cast<size_t>(s), &numel)) {
      ETR_FAIL(Error::InvalidProgram, "%s: element count overflows", w.str());
    }
  }
  size_t nbytes = 0;
  if (!checked_mul(numel, element_size(dtype), &nbytes)) {
    ETR_FAIL(Error::InvalidProgram, "%s: byte size overflows", w.str());
  }
  const size_t have = t.data() != nullptr ? t.data()->size() : 0;
  if (have != nbytes) {
    ETR_FAIL(Error::InvalidProgram, "%s: data holds %zu bytes; %zu %s elements need %zu", w.str(),
             have, numel, to_string(dtype), nbytes);
  }
  // Kernels read Bool elements as C++ bool: any byte but 0 and 1 is undefined.
  for (size_t i = 0; dtype == ScalarType::Bool && i < have; ++i) {
    const uint8_t v = t.data()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (v > 1) {
      ETR_FAIL(Error::InvalidProgram, "%s: Bool element %zu is %u (must be 0 or 1)", w.str(), i, v);
    }
  }
  return check_dim_order(t.dim_order(), rank, w);
}

Error check_value(const etr_bp::Value* v, Where& w) {
  if (v == nullptr) ETR_FAIL(Error::InvalidProgram, "%s: missing value", w.str());
  const bool has_member = v->val() != nullptr;
  switch (v->val_type()) {
    case etr_bp::ValueUnion::Tensor:
      if (!has_member) break;
      return check_tensor(*v->val_as_Tensor(), w);
    case etr_bp::ValueUnion::Int:
    case etr_bp::ValueUnion::Bool:
    case etr_bp::ValueUnion::Double:
      if (!has_member) break;
      return Error::Ok;
    default:
      ETR_FAIL(Error::InvalidProgram, "%s: unknown value kind %u", w.str(),
               static_cast<unsigned>(v->val_type()));
  }
  ETR_FAIL(Error::InvalidProgram, "%s: value of kind %u has no payload", w.str(),
           static_cast<unsigned>(v->val_type()));
}

using ValueVector = flatbuffers::Vector<flatbuffers::Offset<etr_bp::Value>>;

Error check_values(const ValueVector* values, Where& w) {
  const size_t n = values != nullptr ? values->size() : 0;
  for (size_t i = 0; i < n; ++i) {
    w.index = i;
    ETR_RETURN_IF_ERROR(check_value(values->Get(static_cast<flatbuffers::uoffset_t>(i)), w));
  }
  return Error::Ok;
}

Error check_suite(const etr_bp::BundledMethodTestSuite* suite, size_t s) {
  if (suite == nullptr || suite->method_name() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "bundled program: suite %zu has no method name", s);
  }
  Where w{s, suite->method_name()->c_str(), 0, "input", 0, {}};
  const auto* cases = suite->test_cases();
  const size_t n = cases != nullptr ? cases->size() : 0;
  for (size_t c = 0; c < n; ++c) {
    const etr_bp::BundledMethodTestCase* tc = cases->Get(static_cast<flatbuffers::uoffset_t>(c));
    if (tc == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "bundled program: suite %zu case %zu is missing", s, c);
    }
    w.test_case = c;
    w.role = "input";
    ETR_RETURN_IF_ERROR(check_values(tc->inputs(), w));
    w.role = "expected output";
    ETR_RETURN_IF_ERROR(check_values(tc->expected_outputs(), w));
  }
  return Error::Ok;
}

Error check_header(const uint8_t* p, size_t size) {
  if (p == nullptr) ETR_FAIL(Error::InvalidArgument, "bundled program: null data");
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
    ETR_FAIL(Error::InvalidArgument, "bundled program: bytes at %p are not 16-byte aligned",
             static_cast<const void*>(p));
  }
  if (size < 8) {
    ETR_FAIL(Error::InvalidProgram, "bundled program: %zu bytes; at least 8 are needed", size);
  }
  if (!is_bundled_program(p, size)) {
    if (p[4] == 'B' && p[5] == 'P') {
      ETR_FAIL(Error::NotSupported,
               "bundled program: identifier 'BP' %02x %02x is an unsupported version (expected "
               "'BP08')",
               p[6], p[7]);
    }
    ETR_FAIL(Error::InvalidProgram, "not a bundled program: no 'BP08' identifier at offset 4");
  }
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    ETR_FAIL(Error::InvalidProgram, "bundled program: %zu bytes exceed the 2 GiB flatbuffer limit",
             size);
  }
  return Error::Ok;
}

}  // namespace

namespace internal {

BundledTensor read_bundled_tensor(const etr_bp::Tensor& t) {
  BundledTensor b;
  b.dtype = static_cast<ScalarType>(t.scalar_type());
  const auto* sizes = t.sizes();
  const auto* order = t.dim_order();
  // load() refused ranks above kTensorMaxDim and dim orders of another length.
  const size_t rank = sizes != nullptr ? sizes->size() : 0;
  b.rank = rank < kTensorMaxDim ? rank : kTensorMaxDim;
  for (flatbuffers::uoffset_t d = 0; d < b.rank; ++d) {
    b.sizes[d] = sizes->Get(d);
    b.numel *= b.sizes[d];
    const bool stored = order != nullptr && d < order->size();
    b.dim_order[d] = stored ? order->Get(d) : static_cast<uint8_t>(d);
  }
  b.data = t.data() != nullptr ? t.data()->data() : nullptr;
  b.nbytes = t.data() != nullptr ? t.data()->size() : 0;
  return b;
}

}  // namespace internal

bool is_bundled_program(const void* data, size_t size) {
  return data != nullptr && size >= 8 &&
         std::memcmp(static_cast<const uint8_t*>(data) + 4, "BP08", 4) == 0;
}

Result<BundledProgram> BundledProgram::load(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  ETR_RETURN_IF_ERROR(check_header(p, size));
  flatbuffers::Verifier verifier(p, size, kMaxDepth, kMaxTables);
  if (!etr_bp::VerifyBundledProgramBuffer(verifier)) {
    ETR_FAIL(Error::InvalidProgram,
             "bundled program flatbuffer failed structural verification (%zu bytes)", size);
  }
  const etr_bp::BundledProgram* root = etr_bp::GetBundledProgram(p);
  const auto* program = root->program();
  if (program == nullptr || program->size() < 8) {
    ETR_FAIL(Error::InvalidProgram,
             "bundled program: the embedded program is missing or has %u "
             "bytes",
             program != nullptr ? program->size() : 0u);
  }
  if (reinterpret_cast<uintptr_t>(program->data()) % 16 != 0) {
    ETR_FAIL(Error::InvalidProgram,
             "bundled program: the embedded program at offset %zu is not 16-byte aligned",
             static_cast<size_t>(program->data() - p));
  }
  const auto* suites = root->method_test_suites();
  const size_t n = suites != nullptr ? suites->size() : 0;
  for (size_t s = 0; s < n; ++s) {
    ETR_RETURN_IF_ERROR(check_suite(suites->Get(static_cast<flatbuffers::uoffset_t>(s)), s));
  }
  return BundledProgram(root);
}

Span<const uint8_t> BundledProgram::program_data() const {
  return {root_->program()->data(), root_->program()->size()};
}

uint32_t BundledProgram::version() const { return root_->version(); }

size_t BundledProgram::num_suites() const {
  return root_->method_test_suites() != nullptr ? root_->method_test_suites()->size() : 0;
}

Result<const char*> BundledProgram::suite_method_name(size_t suite) const {
  if (suite >= num_suites()) {
    ETR_FAIL(Error::InvalidArgument, "bundled program: suite %zu is out of range (%zu suites)",
             suite, num_suites());
  }
  return root_->method_test_suites()
      ->Get(static_cast<flatbuffers::uoffset_t>(suite))
      ->method_name()
      ->c_str();
}

Result<size_t> BundledProgram::num_test_cases(const char* method_name) const {
  for (size_t s = 0; s < num_suites(); ++s) {
    const auto* suite = root_->method_test_suites()->Get(static_cast<flatbuffers::uoffset_t>(s));
    if (method_name != nullptr && std::strcmp(suite->method_name()->c_str(), method_name) == 0) {
      return static_cast<size_t>(suite->test_cases() != nullptr ? suite->test_cases()->size() : 0);
    }
  }
  ETR_FAIL(Error::NotFound, "bundled program: no test suite for method '%s'",
           method_name != nullptr ? method_name : "(null)");
}

Result<const etr_bp::BundledMethodTestCase*> BundledProgram::find_case(const char* method_name,
                                                                       size_t test_case) const {
  ETR_ASSIGN_OR_RETURN(const size_t n, num_test_cases(method_name));
  if (test_case >= n) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': test case %zu does not exist (%zu cases)",
             method_name, test_case, n);
  }
  for (size_t s = 0; s < num_suites(); ++s) {
    const auto* suite = root_->method_test_suites()->Get(static_cast<flatbuffers::uoffset_t>(s));
    if (std::strcmp(suite->method_name()->c_str(), method_name) == 0) {
      return suite->test_cases()->Get(static_cast<flatbuffers::uoffset_t>(test_case));
    }
  }
  return Error::Internal;
}

}  // namespace etr
