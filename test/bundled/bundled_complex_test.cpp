// BundledProgram comparison of complex outputs, on the conformance file
// test/conformance/complex.bpte (official exporter; expected outputs from
// PyTorch eager). Its method "float64" returns torch.complex(re, im) for
// three pairs; case 0's outputs start with
//   output 0 (shape ()):  -3.360656429104422+2.6532027353282572j
//   output 1 (shape (12,)): 0.001j, -0+3j, inf+7.25j, ...
// Expected values are edited in a private copy of the file to check that a
// wrong real or imaginary part is found and reported with its numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "schema/bundled_program_generated.h"
#include "test/bundled/bundled_test_util.h"

namespace etr {
namespace {

using bundled_test::AlignedBytes;
using bundled_test::LoadedBundle;

AlignedBytes read_complex_bpte() {
  Result<std::string> s =
      testing::read_file(std::string(ETR_SOURCE_DIR) + "/test/conformance/complex.bpte");
  if (!s.ok()) return AlignedBytes();
  return AlignedBytes(s->data(), s->size());
}

// Where in `bytes` the data of expected output `output` of case 0 of
// `method` starts (the file is ours: its bytes may be edited in place).
uint8_t* expected_parts(const AlignedBytes& bytes, const char* method, size_t output) {
  const etr_bp::BundledProgram* root = etr_bp::GetBundledProgram(bytes.data());
  for (const etr_bp::BundledMethodTestSuite* suite : *root->method_test_suites()) {
    if (suite->method_name()->str() != method) continue;
    const etr_bp::Value* v = suite->test_cases()->Get(0)->expected_outputs()->Get(
        static_cast<flatbuffers::uoffset_t>(output));
    const uint8_t* data = v->val_as_Tensor()->data()->data();
    return bytes.data() + (data - bytes.data());
  }
  return nullptr;
}

// Part `i` (a double) of the data at p.
double load(const uint8_t* p, size_t i) {
  double v;
  std::memcpy(&v, p + i * sizeof(v), sizeof(v));
  return v;
}

void store(uint8_t* p, size_t i, double v) { std::memcpy(p + i * sizeof(v), &v, sizeof(v)); }

class BundledComplexTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_all_kernels(); }
};

TEST_F(BundledComplexTest, ComplexOutputsAreComparedPartByPart) {
  const AlignedBytes bytes = read_complex_bpte();
  ASSERT_GT(bytes.size(), 8u);
  Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
  ASSERT_TRUE(bp.ok());
  LoadedBundle lb;
  ASSERT_EQ(lb.load_program(*bp), Error::Ok);
  ASSERT_EQ(lb.load_method("float64"), Error::Ok);
  ASSERT_EQ(lb.method->get_output(0).to_tensor().dtype(), ScalarType::ComplexDouble);
  // Exact: complex.out only moves the parts.
  Result<BundledComparison> r = bundled_test::run_case(*bp, *lb.method, 0, 0, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->passed);
  EXPECT_EQ(r->max_abs_error, 0);

  uint8_t* out0 = expected_parts(bytes, "float64", 0);
  uint8_t* out1 = expected_parts(bytes, "float64", 1);
  ASSERT_TRUE(out0 != nullptr && out1 != nullptr);
  ASSERT_EQ(load(out0, 0), -3.360656429104422);
  ASSERT_EQ(load(out0, 1), 2.6532027353282572);
  ASSERT_EQ(load(out1, 4), INFINITY);  // element 2's real part

  // A wrong imaginary part.
  store(out0, 1, 2.6532027353282572 + 1e-3);
  Result<BundledComparison> r1 = bp->compare_outputs(*lb.method, 0, 1e-10, 1e-12);
  ASSERT_TRUE(r1.ok());
  EXPECT_FALSE(r1->passed);
  EXPECT_EQ(r1->mismatches, 1u);
  EXPECT_EQ(r1->worst_output, 0u);
  EXPECT_EQ(r1->worst_index, 0u);
  EXPECT_EQ(r1->worst_actual, 2.6532027353282572);
  EXPECT_EQ(r1->worst_expected, 2.6532027353282572 + 1e-3);
  EXPECT_NEAR(r1->max_abs_error, 1e-3, 1e-12);
  // ... within a tolerance that allows it.
  Result<BundledComparison> r2 = bp->compare_outputs(*lb.method, 0, 0, 2e-3);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->passed);
  store(out0, 1, 2.6532027353282572);

  // A wrong real part: inf expected as -inf.
  store(out1, 4, -INFINITY);
  Result<BundledComparison> r3 = bp->compare_outputs(*lb.method, 0, 1e-10, 1e-12);
  ASSERT_TRUE(r3.ok());
  EXPECT_FALSE(r3->passed);
  EXPECT_EQ(r3->mismatches, 1u);
  EXPECT_EQ(r3->worst_output, 1u);
  EXPECT_EQ(r3->worst_index, 2u);
  EXPECT_EQ(r3->worst_actual, INFINITY);
  EXPECT_EQ(r3->worst_expected, -INFINITY);
  EXPECT_TRUE(std::isinf(r3->max_abs_error));
  char why[512];
  ErrorCapture capture(why, sizeof(why));
  EXPECT_EQ(bp->verify_outputs(*lb.method, 0, 1e-10, 1e-12), Error::NotFound);
  EXPECT_NE(std::string(why).find("worst output 1 element 2: got inf, expected -inf"),
            std::string::npos)
      << why;
  store(out1, 4, INFINITY);
  Result<BundledComparison> r4 = bp->compare_outputs(*lb.method, 0, 0, 0);
  ASSERT_TRUE(r4.ok());
  EXPECT_TRUE(r4->passed);
}

TEST_F(BundledComplexTest, EveryCaseOfTheComplexFilesPasses) {
  for (const char* file : {"complex.bpte", "view_as_real_copy.bpte"}) {
    Result<std::string> s =
        testing::read_file(std::string(ETR_SOURCE_DIR) + "/test/conformance/" + file);
    ASSERT_TRUE(s.ok()) << file;
    const AlignedBytes bytes(s->data(), s->size());
    size_t cases = 0;
    size_t passed = 0;
    EXPECT_EQ(bundled_test::run_everything(bytes, &cases, &passed), Error::Ok) << file;
    EXPECT_GT(cases, 10u) << file;
    EXPECT_EQ(passed, cases) << file;
  }
}

}  // namespace
}  // namespace etr
