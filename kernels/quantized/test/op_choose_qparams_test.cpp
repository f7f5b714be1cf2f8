// quantized_decomposed::choose_qparams.Tensor_out and
// choose_qparams_per_token_asymmetric.out. Expected values: torch 2.15.0,
// torch.ops.quantized_decomposed.choose_qparams.tensor(x, qmin, qmax, eps, dtype)
// and .choose_qparams_per_token_asymmetric(x, torch.int8).
#include <cmath>
#include <limits>

#include "kernels/quantized/test/quantized_test_util.h"

namespace etr {
namespace testing {
namespace {

const char* const kChoose = "quantized_decomposed::choose_qparams.Tensor_out";
const char* const kPerToken = "quantized_decomposed::choose_qparams_per_token_asymmetric.out";
const double kEps = std::numeric_limits<float>::epsilon();

struct ChooseCase {
  std::vector<float> x;
  int64_t qmin, qmax, dtype;
  double eps;
  double scale;
  int64_t zero_point;
};

TEST(ChooseQparamsTest, MatchesTorch) {
  const ChooseCase cases[] = {
      {{-1.5f, 0.3f, 2.25f, 0.7f}, -128, 127, kChar, kEps, 0.014705882407724857, -26},
      {{0.5f, 1.0f, 3.0f}, -128, 127, kChar, kEps, 0.0117647061124444, -128},
      {{0.0f, 0.0f, 0.0f}, -128, 127, kChar, kEps, 1.1920928955078125e-07, -128},  // eps wins
      {{-2.0f, -0.1f}, -128, 127, kChar, kEps, 0.007843137718737125, 127},
      {{-1.5f, 0.3f, 2.25f, 0.7f}, 0, 255, kByte, 1e-5, 0.014705882407724857, 102},
  };
  for (const ChooseCase& c : cases) {
    HostTensor x = make_tensor<float>({static_cast<int32_t>(c.x.size())}, c.x);
    HostTensor scale = zeros_tensor(ScalarType::Double, {1});
    HostTensor zp = zeros_tensor(ScalarType::Long, {1});
    KernelRunner r(quantized_test_registry());
    ASSERT_EQ(r.run(kChoose, {r.tensor(x), r.i(c.qmin), r.i(c.qmax), r.d(c.eps), r.i(c.dtype),
                              r.tensor(scale), r.tensor(zp)}),
              Error::Ok);
    EXPECT_EQ(scale.values<double>(), std::vector<double>{c.scale}) << c.x[0];
    EXPECT_EQ(zp.values<int64_t>(), std::vector<int64_t>{c.zero_point}) << c.x[0];
  }
}

TEST(ChooseQparamsTest, BadArgumentsAreRefused) {
  HostTensor x = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor scale = zeros_tensor(ScalarType::Double, {1});
  HostTensor zp = zeros_tensor(ScalarType::Long, {1});
  auto prep = [&](int64_t qmin, int64_t qmax, double eps, HostTensor& s) {
    KernelRunner r(quantized_test_registry());
    return r.prepare(kChoose, {r.tensor(x), r.i(qmin), r.i(qmax), r.d(eps), r.i(kChar), r.tensor(s),
                               r.tensor(zp)});
  };
  EXPECT_EQ(prep(-128, 127, kEps, scale), Error::Ok);
  EXPECT_EQ(prep(1, 127, kEps, scale), Error::InvalidArgument);  // range must include 0
  EXPECT_EQ(prep(-128, 127, -1.0, scale), Error::InvalidArgument);
  HostTensor fscale = zeros_tensor(ScalarType::Float, {1});
  EXPECT_EQ(prep(-128, 127, kEps, fscale), Error::InvalidType);  // scale_out must be Double
  HostTensor empty = zeros_tensor(ScalarType::Float, {0});
  KernelRunner r(quantized_test_registry());
  EXPECT_EQ(r.run(kChoose, {r.tensor(empty), r.i(-128), r.i(127), r.d(kEps), r.i(kChar),
                            r.tensor(scale), r.tensor(zp)}),
            Error::InvalidArgument);
}

TEST(ChooseQparamsPerTokenTest, MatchesTorch) {
  HostTensor x = make_tensor<float>(
      {3, 4}, {-1.5f, 0.3f, 2.25f, 0.7f, 0.5f, 1.0f, 3.0f, 0.25f, 0.0f, 0.0f, 0.0f, 0.0f});
  HostTensor scale = zeros_tensor(ScalarType::Double, {3, 1});
  HostTensor zp = zeros_tensor(ScalarType::Long, {3, 1});
  KernelRunner r(quantized_test_registry());
  ASSERT_EQ(r.run(kPerToken, {r.tensor(x), r.i(kChar), r.tensor(scale), r.tensor(zp)}), Error::Ok);
  EXPECT_EQ(scale.values<double>(), (std::vector<double>{0.014705882407724857, 0.0117647061124444,
                                                         1.1920928955078125e-07}));
  EXPECT_EQ(zp.values<int64_t>(), (std::vector<int64_t>{-26, -128, 127}));
  // Outs of the wrong rank are refused at load.
  HostTensor flat = zeros_tensor(ScalarType::Double, {3});
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.prepare(kPerToken, {r2.tensor(x), r2.i(kChar), r2.tensor(flat), r2.tensor(zp)}),
            Error::InvalidArgument);
}

// Rows of 20: min and max found by the vector loop (quant_vec.h); a NaN in
// the second row's vector part makes its scale NaN and its zero point
// INT64_MIN, as torch.
TEST(ChooseQparamsPerTokenTest, LongRowsAndNaN) {
  std::vector<float> v;
  for (int i = 0; i < 20; ++i) v.push_back(static_cast<float>((i % 7) - 2.5 + 0.1 * i));
  for (int i = 0; i < 20; ++i) v.push_back(static_cast<float>(0.5 * i - 3));
  v[20 + 12] = std::numeric_limits<float>::quiet_NaN();
  HostTensor x = make_tensor<float>({2, 20}, v);
  HostTensor scale = zeros_tensor(ScalarType::Double, {2, 1});
  HostTensor zp = zeros_tensor(ScalarType::Long, {2, 1});
  KernelRunner r(quantized_test_registry());
  ASSERT_EQ(r.run(kPerToken, {r.tensor(x), r.i(kChar), r.tensor(scale), r.tensor(zp)}), Error::Ok);
  EXPECT_EQ(scale.values<double>()[0], 0.02862745150923729);
  EXPECT_TRUE(std::isnan(scale.values<double>()[1]));
  EXPECT_EQ(zp.values<int64_t>(), (std::vector<int64_t>{-41, std::numeric_limits<int64_t>::min()}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
