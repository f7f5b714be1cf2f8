// BundledProgram: a .bpte file (identifier "BP08") that wraps a whole .pte
// program plus test cases (inputs and expected outputs) per method.
//
//   auto bp = etr::BundledProgram::load(bytes, size);     // verified
//   etr::BufferDataLoader loader(bp->program_data().data(), bp->program_data().size());
//   auto program = etr::Program::load(&loader);
//   ... load method "forward" ...
//   bp->load_inputs(*method, 0);                          // test case 0
//   method->execute();
//   auto cmp = bp->compare_outputs(*method, 0, rtol, atol);   // cmp->passed
//
// load() runs the flatbuffers verifier over the whole file and then checks
// every value of every test case (value kind, dtype, rank, sizes, dim order,
// data length against sizes, all overflow-checked), so the accessors below
// never read outside the file. Nothing is copied: every view points into the
// caller's bytes. Does not take ownership; the bytes must be 16-byte aligned
// and outlive the BundledProgram, every Program loaded from program_data()
// and every Method whose inputs were loaded from it (inputs the program does
// not memory-plan point at the bundled bytes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/method.h"

// The generated schema stays out of public headers.
namespace etr_bp {
struct BundledProgram;
struct BundledMethodTestSuite;
struct BundledMethodTestCase;
}  // namespace etr_bp

namespace etr {

// True when `data` holds at least 8 bytes with "BP08" at offset 4. Checks
// nothing else; use BundledProgram::load to verify.
bool is_bundled_program(const void* data, size_t size);

// How a method's outputs compare with one test case's expected outputs.
// Float, Double, Half and BFloat16 elements `a` (actual) and `e` (expected)
// match when both are NaN, both are the same infinity, or
// |a - e| <= atol + rtol * |a| (rtol == atol == 0: a == e); a ComplexHalf,
// ComplexFloat or ComplexDouble element matches when both its real and its
// imaginary parts do (the worst element is reported with its worse part);
// every other dtype must match exactly. Errors are over all outputs of the case.
struct BundledComparison {
  bool passed = true;
  // Elements (over all outputs) that did not match.
  size_t mismatches = 0;
  // Largest |a - e|, and largest |a - e| / max(|a|, |e|) (0 when both are 0);
  // infinite when a NaN or an infinity does not match.
  double max_abs_error = 0;
  double max_rel_error = 0;
  // The worst element: the mismatch with the largest abs error (or, when all
  // match, the element with the largest abs error). `worst_index` is its
  // row-major position within output `worst_output`.
  size_t worst_output = 0;
  size_t worst_index = 0;
  double worst_actual = 0;
  double worst_expected = 0;
};

class BundledProgram final {
 public:
  // Tolerances of the official runtime's verify_method_outputs.
  static constexpr double kDefaultRtol = 1e-5;
  static constexpr double kDefaultAtol = 1e-8;

  // Verifies the file. InvalidArgument for null or misaligned bytes;
  // NotSupported for another BundledProgram version ("BPxx"); InvalidProgram
  // (with a logged message naming the suite, case, value and field) for
  // anything malformed.
  [[nodiscard]] static Result<BundledProgram> load(const void* data, size_t size);

  // The embedded .pte file, byte for byte (16-byte aligned).
  Span<const uint8_t> program_data() const;
  // The writer's schema version (2 for every official file; not checked).
  uint32_t version() const;

  size_t num_suites() const;
  // Name of suite `suite`'s method; InvalidArgument when out of range.
  [[nodiscard]] Result<const char*> suite_method_name(size_t suite) const;
  // Test cases for `method_name` (the first suite with that name); NotFound
  // when no suite names it.
  [[nodiscard]] Result<size_t> num_test_cases(const char* method_name) const;

  // Sets every input of `method` from test case `test_case` of its suite.
  // NotFound: no suite for the method; InvalidArgument: no such case, wrong
  // input count or shape; InvalidType: a value kind or dtype differs from the
  // method's input; NotSupported: the method input has a non-contiguous dim
  // order (bundled data is contiguous). Method::set_input's own error
  // otherwise. Each refusal logs the method, case and input index.
  [[nodiscard]] Error load_inputs(Method& method, size_t test_case) const;

  // Compares the outputs of `method` (after execute) with test case
  // `test_case`'s expected outputs. A numeric mismatch is a result with
  // passed == false, not an error. Errors: NotFound / InvalidArgument as
  // above; NotSupported when the case has no expected outputs;
  // InvalidArgument for a wrong output count or shape, InvalidType for an
  // output that is not a tensor or has another dtype, InvalidArgument for a
  // negative tolerance.
  [[nodiscard]] Result<BundledComparison> compare_outputs(const Method& method, size_t test_case,
                                                          double rtol = kDefaultRtol,
                                                          double atol = kDefaultAtol) const;

  // Like the official runtime's verify: Ok when every output matches,
  // NotFound (logged with the worst element) on a mismatch.
  [[nodiscard]] Error verify_outputs(const Method& method, size_t test_case,
                                     double rtol = kDefaultRtol, double atol = kDefaultAtol) const;

 private:
  explicit BundledProgram(const etr_bp::BundledProgram* root) : root_(root) {}
  [[nodiscard]] Result<const etr_bp::BundledMethodTestCase*> find_case(const char* method_name,
                                                                       size_t test_case) const;

  const etr_bp::BundledProgram* root_ = nullptr;
};

}  // namespace etr
