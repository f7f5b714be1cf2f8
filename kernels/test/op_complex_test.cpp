// Complex dtypes in the portable kernels: aten::complex.out (Half, Float,
// Double parts; broadcasting; strided inputs and outs), view_as_real_copy.out
// of ComplexHalf and of a strided input, and the byte-moving ops that take
// complex tensors (_to_dim_order_copy, permute_copy, cat). Expected values:
// torch 2.15.0 eager, compared bit for bit (every op here only moves parts).
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/test/elementwise_test_util.h"
#include "runtime/platform/error_capture.h"

namespace etr {
namespace testing {
namespace {

// A tensor of `dtype` whose storage holds `parts` (of type T) in order.
template <typename T>
HostTensor parts_tensor(ScalarType dtype, std::vector<int32_t> sizes, const std::vector<T>& parts,
                        std::vector<uint8_t> dim_order = {}) {
  Result<HostTensor> t = HostTensor::from_bytes(dtype, std::move(sizes), parts.data(),
                                                parts.size() * sizeof(T), std::move(dim_order));
  if (!t.ok()) {
    ADD_FAILURE() << "cannot build the test tensor: " << to_string(t.error());
    return *HostTensor::zeros(ScalarType::Float, {0});
  }
  return *std::move(t);
}

// The storage of `t` read as T (any dtype whose element size is a multiple of T's).
template <typename T>
std::vector<T> storage_as(const HostTensor& t) {
  std::vector<T> v(t.nbytes() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * sizeof(T));
  return v;
}

TEST(OpComplexTest, ComplexFloatBroadcastsBitExact) {
  // real = torch.tensor([[[1., -0., inf]], [[-2.5, nan, 3.25]]]) (2, 1, 3)
  // imag = torch.tensor([[7.], [-1e-3]]) (2, 1)
  HostTensor real = parts_tensor<uint32_t>(
      ScalarType::Float, {2, 1, 3},
      {0x3f800000, 0x80000000, 0x7f800000, 0xc0200000, 0x7fc00000, 0x40500000});
  HostTensor imag = parts_tensor<uint32_t>(ScalarType::Float, {2, 1}, {0x40e00000, 0xba83126f});
  HostTensor out = zeros_tensor(ScalarType::ComplexFloat, {2, 2, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::complex.out", {r.tensor(real), r.tensor(imag), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2, 3}));
  // torch.view_as_real(torch.complex(real, imag)).view(torch.int32)
  EXPECT_EQ(storage_as<uint32_t>(out),
            (std::vector<uint32_t>{0x3f800000, 0x40e00000, 0x80000000, 0x40e00000, 0x7f800000,
                                   0x40e00000, 0x3f800000, 0xba83126f, 0x80000000, 0xba83126f,
                                   0x7f800000, 0xba83126f, 0xc0200000, 0x40e00000, 0x7fc00000,
                                   0x40e00000, 0x40500000, 0x40e00000, 0xc0200000, 0xba83126f,
                                   0x7fc00000, 0xba83126f, 0x40500000, 0xba83126f}));
}

TEST(OpComplexTest, ComplexDoubleThroughStrides) {
  // real = torch.tensor([0.25, -1., 2., 1e300, -0., 5.5], dtype=torch.float64)
  //            .reshape(3, 2).t()   (sizes (2, 3), dim order (1, 0))
  // imag = torch.tensor([10., -20., 30.5], dtype=torch.float64)
  HostTensor real =
      parts_tensor<double>(ScalarType::Double, {2, 3}, {0.25, -1.0, 2.0, 1e300, -0.0, 5.5}, {1, 0});
  HostTensor imag = make_tensor<double>({3}, {10.0, -20.0, 30.5});
  // A contiguous out: torch.view_as_real(torch.complex(real, imag)).flatten()
  HostTensor out = zeros_tensor(ScalarType::ComplexDouble, {2, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::complex.out", {r.tensor(real), r.tensor(imag), r.tensor(out)}), Error::Ok);
  const std::vector<double> logical = {0.25, 10.0, 2.0,   -20.0, -0.0, 30.5,
                                       -1.0, 10.0, 1e300, -20.0, 5.5,  30.5};
  EXPECT_EQ(storage_as<double>(out), logical);
  EXPECT_TRUE(std::signbit(storage_as<double>(out)[4]));
  // An out in dim order (1, 0): its storage is
  // torch.view_as_real(torch.complex(real, imag).t().contiguous()).flatten()
  HostTensor out_t = *HostTensor::zeros(ScalarType::ComplexDouble, {2, 3}, {1, 0});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::complex.out", {r2.tensor(real), r2.tensor(imag), r2.tensor(out_t)}),
            Error::Ok);
  EXPECT_EQ(storage_as<double>(out_t), (std::vector<double>{0.25, 10.0, -1.0, 10.0, 2.0, -20.0,
                                                            1e300, -20.0, -0.0, 30.5, 5.5, 30.5}));
}

TEST(OpComplexTest, ComplexHalfAndViewAsRealBack) {
  // real = torch.tensor([1.5, 2., -0., 65504.], dtype=torch.float16)
  // imag = torch.tensor([3., -4., inf, 6e-5], dtype=torch.float16)
  HostTensor real = parts_tensor<uint16_t>(ScalarType::Half, {4}, {0x3e00, 0x4000, 0x8000, 0x7bff});
  HostTensor imag = parts_tensor<uint16_t>(ScalarType::Half, {4}, {0x4200, 0xc400, 0x7c00, 0x03ef});
  HostTensor c = zeros_tensor(ScalarType::ComplexHalf, {4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::complex.out", {r.tensor(real), r.tensor(imag), r.tensor(c)}), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable");
  // torch.view_as_real(torch.complex(real, imag)).view(torch.int16)
  const std::vector<uint16_t> expected = {0x3e00, 0x4200, 0x4000, 0xc400,
                                          0x8000, 0x7c00, 0x7bff, 0x03ef};
  EXPECT_EQ(storage_as<uint16_t>(c), expected);
  // torch.ops.aten.view_as_real_copy(c): the same parts, shape (4, 2).
  HostTensor parts = zeros_tensor(ScalarType::Half, {4, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::view_as_real_copy.out", {r2.tensor(c), r2.tensor(parts)}), Error::Ok);
  EXPECT_STREQ(r2.chosen_library(), "portable");
  EXPECT_EQ(parts.shape(), (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(storage_as<uint16_t>(parts), expected);
}

TEST(OpComplexTest, RankZeroAndEmpty) {
  // torch.complex(torch.tensor(2.), torch.tensor(-1.)) -> 2-1j, shape ()
  HostTensor a = make_tensor<float>({}, {2.0f});
  HostTensor b = make_tensor<float>({}, {-1.0f});
  HostTensor out = zeros_tensor(ScalarType::ComplexFloat, {});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::complex.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(storage_as<float>(out), (std::vector<float>{2.0f, -1.0f}));
  // torch.complex(torch.tensor(2.), torch.tensor([1., -3.])) -> [2+1j, 2-3j]
  HostTensor v = make_tensor<float>({2}, {1.0f, -3.0f});
  HostTensor out2 = zeros_tensor(ScalarType::ComplexFloat, {2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::complex.out", {r2.tensor(a), r2.tensor(v), r2.tensor(out2)}), Error::Ok);
  EXPECT_EQ(storage_as<float>(out2), (std::vector<float>{2.0f, 1.0f, 2.0f, -3.0f}));
  // torch.complex(torch.empty(0, 3), torch.tensor([1., 2., 3.])).shape == (0, 3)
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 3});
  HostTensor w = make_tensor<float>({3}, {1.0f, 2.0f, 3.0f});
  HostTensor out3 = zeros_tensor(ScalarType::ComplexFloat, {0, 3});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::complex.out", {r3.tensor(e), r3.tensor(w), r3.tensor(out3)}), Error::Ok);
  EXPECT_EQ(out3.shape(), (std::vector<int32_t>{0, 3}));
}

TEST(OpComplexTest, ComplexRefusesWhatPyTorchRefuses) {
  HostTensor f = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor h = zeros_tensor(ScalarType::Half, {2});
  HostTensor i = make_tensor<int32_t>({2}, {1, 2});
  HostTensor bf = zeros_tensor(ScalarType::BFloat16, {2});
  HostTensor out = zeros_tensor(ScalarType::ComplexFloat, {2});
  HostTensor out_cd = zeros_tensor(ScalarType::ComplexDouble, {2});
  HostTensor out_i = zeros_tensor(ScalarType::ComplexFloat, {2});
  char why[512];
  {
    // torch.complex(float, half): "Expected object of scalar type Float but got
    // scalar type Half for second argument"
    ErrorCapture capture(why, sizeof(why));
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::complex.out", {r.tensor(f), r.tensor(h), r.tensor(out)}),
              Error::InvalidType);
    EXPECT_NE(std::string(why).find("imag has dtype Half, expected Float"), std::string::npos)
        << why;
  }
  {
    // "Expected object of scalar type ComplexFloat but got scalar type
    // ComplexDouble for argument 'out'"
    ErrorCapture capture(why, sizeof(why));
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::complex.out", {r.tensor(f), r.tensor(f), r.tensor(out_cd)}),
              Error::InvalidType);
    EXPECT_NE(std::string(why).find("out has dtype ComplexDouble, expected ComplexFloat"),
              std::string::npos)
        << why;
  }
  // "Expected both inputs to be Half, Float or Double tensors but got Int and
  // Int" (and BFloat16): no kernel takes them.
  KernelRunner ri;
  EXPECT_NE(ri.prepare("aten::complex.out", {ri.tensor(i), ri.tensor(i), ri.tensor(out_i)}),
            Error::Ok);
  KernelRunner rb;
  EXPECT_NE(rb.prepare("aten::complex.out", {rb.tensor(bf), rb.tensor(bf), rb.tensor(out)}),
            Error::Ok);
  // A complex real part is not a part dtype either.
  KernelRunner rc;
  EXPECT_EQ(rc.prepare("aten::complex.out", {rc.tensor(out), rc.tensor(out), rc.tensor(out)}),
            Error::InvalidType);
  // out of another rank than the broadcast result: refused at load.
  HostTensor m = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner rr;
  EXPECT_EQ(rr.prepare("aten::complex.out", {rr.tensor(m), rr.tensor(f), rr.tensor(out)}),
            Error::InvalidArgument);
  {
    // "The size of tensor a (3) must match the size of tensor b (4) at
    // non-singleton dimension 1": refused when it runs.
    HostTensor a = zeros_tensor(ScalarType::Float, {2, 3});
    HostTensor b = zeros_tensor(ScalarType::Float, {4});
    HostTensor o = zeros_tensor(ScalarType::ComplexFloat, {2, 4});
    ErrorCapture capture(why, sizeof(why));
    KernelRunner r;
    EXPECT_EQ(r.run("aten::complex.out", {r.tensor(a), r.tensor(b), r.tensor(o)}),
              Error::InvalidArgument);
    EXPECT_NE(std::string(why).find("cannot broadcast"), std::string::npos) << why;
  }
  // A static out of another shape cannot be resized.
  HostTensor big = zeros_tensor(ScalarType::ComplexFloat, {3}, ShapeDynamism::Static);
  KernelRunner rs;
  EXPECT_NE(rs.run("aten::complex.out", {rs.tensor(f), rs.tensor(f), rs.tensor(big)}), Error::Ok);
}

TEST(OpComplexTest, ViewAsRealCopyOfAStridedInput) {
  // cs = torch.tensor([1+2j, 3-4j, -5+0.5j, -1j, 6+0j, 0.25-0.75j]); c = cs.reshape(3, 2).t()
  // (-1j has real part -0.)
  HostTensor c = parts_tensor<float>(
      ScalarType::ComplexFloat, {2, 3},
      {1.0f, 2.0f, 3.0f, -4.0f, -5.0f, 0.5f, -0.0f, -1.0f, 6.0f, 0.0f, 0.25f, -0.75f}, {1, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::view_as_real_copy.out", {r.tensor(c), r.tensor(out)}), Error::Ok);
  // torch.ops.aten.view_as_real_copy(c).flatten()
  const std::vector<float> got = out.values<float>();
  EXPECT_EQ(got, (std::vector<float>{1.0f, 2.0f, -5.0f, 0.5f, 6.0f, 0.0f, 3.0f, -4.0f, -0.0f, -1.0f,
                                     0.25f, -0.75f}));
  ASSERT_EQ(got.size(), 12u);
  EXPECT_TRUE(std::signbit(got[8]));
  // Half out for a ComplexFloat self: refused at load.
  HostTensor half_out = zeros_tensor(ScalarType::Half, {2, 3, 2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::view_as_real_copy.out", {r2.tensor(c), r2.tensor(half_out)}),
            Error::InvalidType);
}

// xs = torch.complex(torch.arange(12.), -0.5 * torch.arange(12.)) as complex128, (1, 3, 2, 2)
HostTensor complex_1x3x2x2() {
  std::vector<double> parts;
  for (int k = 0; k < 12; ++k) {
    parts.push_back(k);
    parts.push_back(-0.5 * k);
  }
  return parts_tensor<double>(ScalarType::ComplexDouble, {1, 3, 2, 2}, parts);
}

TEST(OpComplexTest, ToDimOrderCopyMovesComplexElements) {
  HostTensor x = complex_1x3x2x2();
  HostTensor out = *HostTensor::zeros(ScalarType::ComplexDouble, {1, 3, 2, 2}, {0, 2, 3, 1});
  KernelRunner r;
  ASSERT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(out)}),
            Error::Ok);
  // torch.view_as_real(xs.to(memory_format=torch.channels_last)
  //                    .permute(0, 2, 3, 1).contiguous()).flatten(): the storage
  EXPECT_EQ(
      storage_as<double>(out),
      (std::vector<double>{0.0, -0.0, 4.0, -2.0, 8.0,  -4.0, 1.0, -0.5, 5.0, -2.5, 9.0,  -4.5,
                           2.0, -1.0, 6.0, -3.0, 10.0, -5.0, 3.0, -1.5, 7.0, -3.5, 11.0, -5.5}));
  // The same through aten::_to_copy into a contiguous out: a plain copy.
  HostTensor same = zeros_tensor(ScalarType::ComplexDouble, {1, 3, 2, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::_to_copy.out", {r2.tensor(x), r2.b(false), r2.none(), r2.tensor(same)}),
            Error::Ok);
  EXPECT_EQ(storage_as<double>(same), storage_as<double>(x));
  // Converting to or from complex is not supported: refused at load.
  char why[512];
  ErrorCapture capture(why, sizeof(why));
  HostTensor real_out = zeros_tensor(ScalarType::Double, {1, 3, 2, 2});
  KernelRunner r3;
  EXPECT_NE(r3.prepare("dim_order_ops::_to_dim_order_copy.out",
                       {r3.tensor(x), r3.b(false), r3.none(), r3.tensor(real_out)}),
            Error::Ok);
  EXPECT_NE(std::string(why).find("converting ComplexDouble to Double is not supported"),
            std::string::npos)
      << why;
  HostTensor cf_out = zeros_tensor(ScalarType::ComplexFloat, {1, 3, 2, 2});
  KernelRunner r4;
  EXPECT_NE(
      r4.prepare("aten::_to_copy.out", {r4.tensor(x), r4.b(false), r4.none(), r4.tensor(cf_out)}),
      Error::Ok);
  HostTensor f = zeros_tensor(ScalarType::Float, {2});
  HostTensor c_out = zeros_tensor(ScalarType::ComplexFloat, {2});
  KernelRunner r5;
  EXPECT_NE(
      r5.prepare("aten::_to_copy.out", {r5.tensor(f), r5.b(false), r5.none(), r5.tensor(c_out)}),
      Error::Ok);
}

TEST(OpComplexTest, PermuteAndCatMoveComplexElements) {
  // h = torch.complex([[1., 2., 3.], [4., 5., 6.]], -[[1., 2., 3.], [4., 5., 6.]]) (complex128)
  HostTensor h =
      parts_tensor<double>(ScalarType::ComplexDouble, {2, 3},
                           {1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0, 5.0, -5.0, 6.0, -6.0});
  HostTensor out = zeros_tensor(ScalarType::ComplexDouble, {3, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::permute_copy.out", {r.tensor(h), r.int_list({1, 0}), r.tensor(out)}),
            Error::Ok);
  // torch.view_as_real(torch.ops.aten.permute_copy(h, [1, 0])).flatten()
  EXPECT_EQ(storage_as<double>(out), (std::vector<double>{1.0, -1.0, 4.0, -4.0, 2.0, -2.0, 5.0,
                                                          -5.0, 3.0, -3.0, 6.0, -6.0}));
  // torch.cat([tensor([1+1j]), tensor([2-2j, 3j])]) (complex64)
  HostTensor a = parts_tensor<float>(ScalarType::ComplexFloat, {1}, {1.0f, 1.0f});
  HostTensor b = parts_tensor<float>(ScalarType::ComplexFloat, {2}, {2.0f, -2.0f, 0.0f, 3.0f});
  HostTensor cat = zeros_tensor(ScalarType::ComplexFloat, {3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::cat.out", {r2.tensor_list({&a, &b}), r2.i(0), r2.tensor(cat)}),
            Error::Ok);
  EXPECT_EQ(storage_as<float>(cat), (std::vector<float>{1.0f, 1.0f, 2.0f, -2.0f, 0.0f, 3.0f}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
