// BundledProgram (.bpte) reader: the official fixtures (test/models/bundled,
// written by export_bundled.py with executorch 1.5.1, expected outputs from
// PyTorch eager), a wrong expected output, and refusals of crafted files.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "schema/bundled_program_generated.h"
#include "test/bundled/bundled_test_util.h"

namespace etr {
namespace {

using bundled_test::AlignedBytes;
using bundled_test::LoadedBundle;
using bundled_test::read_fixture;

class BundledProgramTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_all_kernels(); }
};

// Every case of every suite passes at the tolerance the fixtures are exported with.
void expect_all_pass(const std::string& file, size_t expected_cases) {
  const AlignedBytes bytes = read_fixture(file);
  ASSERT_GT(bytes.size(), 8u) << file;
  Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
  ASSERT_TRUE(bp.ok()) << file;
  EXPECT_EQ(bp->version(), 2u);
  LoadedBundle lb;
  ASSERT_EQ(lb.load_program(*bp), Error::Ok) << file;
  size_t cases = 0;
  for (size_t s = 0; s < bp->num_suites(); ++s) {
    const char* name = *bp->suite_method_name(s);
    char why[512];
    ErrorCapture capture(why, sizeof(why));
    ASSERT_EQ(lb.load_method(name), Error::Ok) << file << ":" << name << ": " << why;
    for (size_t c = 0; c < *bp->num_test_cases(name); ++c, ++cases) {
      Result<BundledComparison> r = bundled_test::run_case(*bp, *lb.method, c, 1e-5, 1e-6);
      ASSERT_TRUE(r.ok()) << file << ":" << name << " case " << c << ": " << why;
      EXPECT_TRUE(r->passed) << file << ":" << name << " case " << c << " max abs error "
                             << r->max_abs_error;
      EXPECT_EQ(r->mismatches, 0u);
      EXPECT_LT(r->max_abs_error, 1e-5);
    }
  }
  EXPECT_EQ(cases, expected_cases) << file;
}

TEST_F(BundledProgramTest, OfficialFixturesPass) {
  expect_all_pass("mlp.bpte", 3);
  expect_all_pass("two_methods.bpte", 4);
  expect_all_pass("int_bool.bpte", 2);  // int64, bool and a traced Int input
  expect_all_pass("dynamic.bpte", 3);   // batch 1, 5, 8 of a dynamic input
}

TEST_F(BundledProgramTest, SuitesAndProgramBytes) {
  const AlignedBytes bytes = read_fixture("two_methods.bpte");
  EXPECT_TRUE(is_bundled_program(bytes.data(), bytes.size()));
  EXPECT_FALSE(is_bundled_program(bytes.data(), 7));
  Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
  ASSERT_TRUE(bp.ok());
  ASSERT_EQ(bp->num_suites(), 2u);  // the official writer sorts suites by name
  EXPECT_STREQ(*bp->suite_method_name(0), "decode");
  EXPECT_STREQ(*bp->suite_method_name(1), "forward");
  EXPECT_EQ(bp->suite_method_name(2).error(), Error::InvalidArgument);
  EXPECT_EQ(bp->num_test_cases("nope").error(), Error::NotFound);
  const Span<const uint8_t> pte = bp->program_data();
  ASSERT_GT(pte.size(), 8u);
  EXPECT_EQ(std::memcmp(pte.data() + 4, "ET12", 4), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pte.data()) % 32, 0u);
  EXPECT_FALSE(is_bundled_program(pte.data(), pte.size()));
}

// mlp_wrong.bpte case 1: expected output element [1, 2] (flat index 5) is
// eager + 0.5. export_bundled.py printed, with torch:
//   eager 0.11672844, bundled 0.616728425,
//   abs error (wrong - eager).abs() = 0.499999985,
//   rel error abs / max(|wrong|, |eager|) = 0.810729593
TEST_F(BundledProgramTest, WrongExpectedOutputIsReportedWithItsNumbers) {
  const AlignedBytes bytes = read_fixture("mlp_wrong.bpte");
  Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
  ASSERT_TRUE(bp.ok());
  LoadedBundle lb;
  ASSERT_EQ(lb.load_program(*bp), Error::Ok);
  ASSERT_EQ(lb.load_method("forward"), Error::Ok);
  for (size_t c : {0, 2}) {
    Result<BundledComparison> r = bundled_test::run_case(*bp, *lb.method, c, 1e-5, 1e-6);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->passed) << c;
  }
  Result<BundledComparison> r = bundled_test::run_case(*bp, *lb.method, 1, 1e-5, 1e-6);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->passed);
  EXPECT_EQ(r->mismatches, 1u);
  EXPECT_EQ(r->worst_output, 0u);
  EXPECT_EQ(r->worst_index, 5u);
  EXPECT_NEAR(r->max_abs_error, 0.499999985, 1e-6);
  EXPECT_NEAR(r->max_rel_error, 0.810729593, 1e-5);
  EXPECT_NEAR(r->worst_actual, 0.11672844, 1e-6);
  EXPECT_NEAR(r->worst_expected, 0.616728425, 1e-7);
  // A tolerance wide enough for 0.5 accepts it.
  Result<BundledComparison> loose = bp->compare_outputs(*lb.method, 1, 0, 0.6);
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE(loose->passed);
  // verify_outputs gives the official error code and names the element.
  char why[512];
  ErrorCapture capture(why, sizeof(why));
  EXPECT_EQ(bp->verify_outputs(*lb.method, 1, 1e-5, 1e-6), Error::NotFound);
  EXPECT_NE(std::string(why).find("case 1: 1 elements differ; worst output 0 element 5"),
            std::string::npos)
      << why;
}

TEST_F(BundledProgramTest, CaseAndMethodMismatchesNameTheCase) {
  const AlignedBytes mlp = read_fixture("mlp.bpte");
  const AlignedBytes ib = read_fixture("int_bool.bpte");
  Result<BundledProgram> bp = BundledProgram::load(mlp.data(), mlp.size());
  Result<BundledProgram> other = BundledProgram::load(ib.data(), ib.size());
  ASSERT_TRUE(bp.ok() && other.ok());
  LoadedBundle lb;
  ASSERT_EQ(lb.load_program(*bp), Error::Ok);
  ASSERT_EQ(lb.load_method("forward"), Error::Ok);
  char why[512];
  {
    ErrorCapture capture(why, sizeof(why));
    EXPECT_EQ(bp->load_inputs(*lb.method, 3), Error::InvalidArgument);
    EXPECT_NE(std::string(why).find("method 'forward': test case 3 does not exist (3 cases)"),
              std::string::npos)
        << why;
  }
  {
    ErrorCapture capture(why, sizeof(why));
    EXPECT_EQ(other->load_inputs(*lb.method, 0), Error::InvalidArgument);
    EXPECT_NE(
        std::string(why).find("method 'forward' case 0: 3 bundled inputs, the method takes 1"),
        std::string::npos)
        << why;
  }
  {
    ErrorCapture capture(why, sizeof(why));
    ASSERT_EQ(bp->load_inputs(*lb.method, 0), Error::Ok);
    ASSERT_EQ(lb.method->execute(), Error::Ok);
    EXPECT_EQ(other->compare_outputs(*lb.method, 0).error(), Error::InvalidArgument);
    EXPECT_NE(std::string(why).find("3 expected outputs, the method has 1"), std::string::npos)
        << why;
    EXPECT_EQ(bp->compare_outputs(*lb.method, 0, -1, 0).error(), Error::InvalidArgument);
  }
}

// ---- crafted files (built with the generated schema code) -----------------

struct TensorSpec {
  int8_t dtype = 6;  // Float
  std::vector<int32_t> sizes;
  std::vector<uint8_t> data;
  bool with_dim_order = true;
  std::vector<uint8_t> dim_order;
};

TensorSpec float_tensor(std::vector<int32_t> sizes, float fill) {
  TensorSpec t;
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  std::vector<float> v(n, fill);
  t.sizes = sizes;
  t.data.resize(n * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  for (size_t d = 0; d < sizes.size(); ++d) t.dim_order.push_back(static_cast<uint8_t>(d));
  return t;
}

flatbuffers::Offset<etr_bp::Value> make_value(flatbuffers::FlatBufferBuilder& b,
                                              const TensorSpec& t) {
  auto tensor = etr_bp::CreateTensorDirect(b, static_cast<etr_bp::ScalarType>(t.dtype), &t.sizes,
                                           &t.data, t.with_dim_order ? &t.dim_order : nullptr);
  return etr_bp::CreateValue(b, etr_bp::ValueUnion::Tensor, tensor.Union());
}

// A .bpte around mlp.bpte's program with one "forward" case.
AlignedBytes craft(const std::vector<TensorSpec>& inputs, const std::vector<TensorSpec>& outputs) {
  const AlignedBytes mlp = read_fixture("mlp.bpte");
  Result<BundledProgram> bp = BundledProgram::load(mlp.data(), mlp.size());
  if (!bp.ok()) return AlignedBytes();
  const std::vector<uint8_t> pte(bp->program_data().begin(), bp->program_data().end());
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<etr_bp::Value>> in;
  std::vector<flatbuffers::Offset<etr_bp::Value>> out;
  for (const TensorSpec& t : inputs) in.push_back(make_value(b, t));
  for (const TensorSpec& t : outputs) out.push_back(make_value(b, t));
  std::vector<flatbuffers::Offset<etr_bp::BundledMethodTestCase>> cases = {
      etr_bp::CreateBundledMethodTestCaseDirect(b, &in, &out)};
  std::vector<flatbuffers::Offset<etr_bp::BundledMethodTestSuite>> suites = {
      etr_bp::CreateBundledMethodTestSuiteDirect(b, "forward", &cases)};
  etr_bp::FinishBundledProgramBuffer(b, etr_bp::CreateBundledProgramDirect(b, 2, &suites, &pte));
  return AlignedBytes(b.GetBufferPointer(), b.GetSize());
}

// Loads `bytes`; returns the error and the logged message.
Error load_crafted(const AlignedBytes& bytes, std::string* message) {
  char why[512];
  ErrorCapture capture(why, sizeof(why));
  Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
  *message = why;
  return bp.ok() ? Error::Ok : bp.error();
}

TEST_F(BundledProgramTest, CraftedFileRunsLikeTheOfficialOne) {
  // Input 0.5 everywhere; the expected output is deliberately wrong (zeros).
  const AlignedBytes bytes = craft({float_tensor({2, 4}, 0.5f)}, {float_tensor({2, 3}, 0.0f)});
  size_t cases = 0;
  size_t passed = 0;
  EXPECT_EQ(bundled_test::run_everything(bytes, &cases, &passed), Error::Ok);
  EXPECT_EQ(cases, 1u);
  EXPECT_EQ(passed, 0u);
}

TEST_F(BundledProgramTest, MalformedTensorsAreRefusedAtLoad) {
  struct Bad {
    const char* what;
    TensorSpec t;
    const char* message;
  };
  std::vector<Bad> bad;
  TensorSpec t = float_tensor({2, 4}, 1.0f);
  t.data.pop_back();
  bad.push_back({"short data", t, "input 0: data holds 31 bytes; 8 Float elements need 32"});
  t = float_tensor({2, 4}, 1.0f);
  t.sizes[1] = -4;
  bad.push_back({"negative size", t, "input 0: size 1 is negative (-4)"});
  t = float_tensor({2, 4}, 1.0f);
  t.dtype = 99;
  bad.push_back({"dtype", t, "input 0: unknown scalar type 99"});
  t = float_tensor({2, 4}, 1.0f);
  t.dim_order = {1, 1};
  bad.push_back({"dim order", t, "input 0: dim_order is not a permutation of 0..1"});
  t = float_tensor({2, 4}, 1.0f);
  t.dim_order = {0};
  bad.push_back({"dim order length", t, "dim_order has 1 entries for a rank-2 tensor"});
  t = float_tensor({}, 1.0f);
  t.sizes.assign(17, 1);
  bad.push_back({"rank", t, "input 0: rank 17 exceeds the maximum 16"});
  t = float_tensor({}, 1.0f);
  t.sizes = {65536, 65536, 65536, 65536, 65536};
  bad.push_back({"overflow", t, "element count overflows"});
  t = float_tensor({2, 2}, 0.0f);  // found by the fuzzer: kernels read Bool bytes as bool
  t.dtype = 11;
  t.data = {1, 0, 0, 1, 0, 0, 44, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  t.sizes = {4, 4};
  t.dim_order = {0, 1};
  bad.push_back({"bool byte", t, "input 0: Bool element 6 is 44 (must be 0 or 1)"});
  for (const Bad& b : bad) {
    std::string message;
    EXPECT_EQ(load_crafted(craft({b.t}, {}), &message), Error::InvalidProgram) << b.what;
    EXPECT_NE(message.find(b.message), std::string::npos) << b.what << ": " << message;
    EXPECT_NE(message.find("suite 0 (method 'forward') case 0"), std::string::npos) << message;
  }
}

TEST_F(BundledProgramTest, InputsThatDoNotFitTheMethodAreRefused) {
  struct Bad {
    TensorSpec t;
    Error error;
    const char* message;
  };
  TensorSpec as_int = float_tensor({2, 4}, 1.0f);
  as_int.dtype = 3;  // Int: same byte size
  TensorSpec no_dim_order = float_tensor({2, 4}, 1.0f);
  no_dim_order.with_dim_order = false;  // absent: contiguous
  TensorSpec transposed = float_tensor({2, 4}, 1.0f);
  transposed.dim_order = {1, 0};
  const std::vector<Bad> bad = {
      {as_int, Error::InvalidType, "case 0 input 0: bundled Int tensor, the method takes Float"},
      {float_tensor({8}, 1.0f), Error::InvalidArgument,
       "case 0 input 0: bundled rank 1, the method takes rank 2"},
      {float_tensor({4, 2}, 1.0f), Error::NotSupported,  // Method::set_input's code
       "case 0 input 0: the bundled tensor was refused"},
      {transposed, Error::NotSupported, "case 0 input 0: only contiguous dim orders"},
  };
  testing::register_all_kernels();
  for (const Bad& b : bad) {
    const AlignedBytes bytes = craft({b.t}, {float_tensor({2, 3}, 0)});
    Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
    ASSERT_TRUE(bp.ok()) << b.message;
    LoadedBundle lb;
    ASSERT_EQ(lb.load_program(*bp), Error::Ok);
    ASSERT_EQ(lb.load_method("forward"), Error::Ok);
    char why[1024];
    ErrorCapture capture(why, sizeof(why));
    EXPECT_EQ(bp->load_inputs(*lb.method, 0), b.error) << b.message;
    EXPECT_NE(std::string(why).find(b.message), std::string::npos) << why;
    EXPECT_NE(std::string(why).find("method 'forward'"), std::string::npos) << why;
  }
  const AlignedBytes ok = craft({no_dim_order}, {float_tensor({2, 3}, 0)});
  EXPECT_EQ(bundled_test::run_everything(ok), Error::Ok);
}

TEST_F(BundledProgramTest, HeaderProblemsAreNamed) {
  const AlignedBytes mlp = read_fixture("mlp.bpte");
  std::string message;
  EXPECT_EQ(load_crafted(AlignedBytes(mlp.data(), 7), &message), Error::InvalidProgram);
  std::vector<uint8_t> v = mlp.vec();
  v[7] = '7';
  EXPECT_EQ(load_crafted(AlignedBytes(v), &message), Error::NotSupported);
  EXPECT_NE(message.find("unsupported version"), std::string::npos) << message;
  v[4] = 'X';
  EXPECT_EQ(load_crafted(AlignedBytes(v), &message), Error::InvalidProgram);
  EXPECT_NE(message.find("no 'BP08' identifier"), std::string::npos) << message;
  // Misaligned bytes are refused before anything is read.
  std::vector<uint8_t> shifted(mlp.size() + 16);
  AlignedBytes holder(shifted);
  std::memcpy(holder.data() + 1, mlp.data(), mlp.size() - 1);
  EXPECT_EQ(BundledProgram::load(holder.data() + 1, mlp.size()).error(), Error::InvalidArgument);
  EXPECT_EQ(BundledProgram::load(nullptr, 100).error(), Error::InvalidArgument);
}

}  // namespace
}  // namespace etr
