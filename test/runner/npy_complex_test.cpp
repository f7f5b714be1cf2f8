// Complex dtypes in the .npy reader/writer and HostTensor::fill_ones
// (extension/tensor). The images are what numpy 2 (np.save) writes for
//   np.array([1+2j, -0.5+0j], dtype=np.complex64)
//   np.array([[3.25-1e300j], [complex(nan, inf)]], dtype=np.complex128)
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"
#include "runtime/platform/error_capture.h"
#include "test/support/temp_files.h"

namespace etr {
namespace {

// A version 1.0 image: magic, header length, the header padded with spaces to
// a multiple of 64 bytes and ended by a newline (as np.save pads it), data.
std::string npy_image(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string from_hex(const char* hex) {
  std::string out;
  for (size_t i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16));
  }
  return out;
}

const std::string kC8 = npy_image("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                                  from_hex("0000803f00000040000000bf00000000"));
const std::string kC16 =
    npy_image("{'descr': '<c16', 'fortran_order': False, 'shape': (2, 1), }",
              from_hex("0000000000000a409c7500883ce437fe000000000000f87f000000000000f07f"));

template <typename T>
std::vector<T> parts_of(const HostTensor& t) {
  std::vector<T> v(t.nbytes() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.data(), t.nbytes());
  return v;
}

TEST(NpyComplexTest, ReadsNumpyComplexArrays) {
  ASSERT_EQ(kC8.size(), 144u);  // np.save's file sizes
  ASSERT_EQ(kC16.size(), 160u);
  Result<HostTensor> c8 = parse_npy(kC8.data(), kC8.size());
  ASSERT_TRUE(c8.ok());
  EXPECT_EQ(c8->dtype(), ScalarType::ComplexFloat);
  EXPECT_EQ(c8->shape(), (std::vector<int32_t>{2}));
  EXPECT_EQ(parts_of<float>(*c8), (std::vector<float>{1.0f, 2.0f, -0.5f, 0.0f}));
  Result<HostTensor> c16 = parse_npy(kC16.data(), kC16.size());
  ASSERT_TRUE(c16.ok());
  EXPECT_EQ(c16->dtype(), ScalarType::ComplexDouble);
  EXPECT_EQ(c16->shape(), (std::vector<int32_t>{2, 1}));
  const std::vector<double> p = parts_of<double>(*c16);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], 3.25);
  EXPECT_EQ(p[1], -1e300);
  EXPECT_TRUE(std::isnan(p[2]));
  EXPECT_EQ(p[3], INFINITY);
}

TEST(NpyComplexTest, RefusesOtherComplexDescrs) {
  char why[512];
  struct Bad {
    const char* descr;
    const char* message;
  } bad[] = {
      {"'>c8'", "big-endian dtype '>c8' is not supported"},
      {"'<c32'", "unsupported dtype '<c32'"},  // complex256
      {"'<c4'", "unsupported dtype '<c4'"},
      {"'<c160'", "unsupported dtype '<c160'"},
  };
  for (const Bad& b : bad) {
    ErrorCapture capture(why, sizeof(why));
    const std::string image = npy_image(
        std::string("{'descr': ") + b.descr + ", 'fortran_order': False, 'shape': (1,), }",
        std::string(16, '\0'));
    Result<HostTensor> t = parse_npy(image.data(), image.size());
    EXPECT_EQ(t.error(), Error::NotSupported) << b.descr;
    EXPECT_NE(std::string(why).find(b.message), std::string::npos) << why;
  }
  // A ComplexFloat image whose data is one part short.
  const std::string short_image =
      npy_image("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", std::string(12, '\0'));
  EXPECT_FALSE(parse_npy(short_image.data(), short_image.size()).ok());
}

class NpyComplexFileTest : public testing::TempFilesTest {};

TEST_F(NpyComplexFileTest, WritesWhatNumpyWrites) {
  for (const std::string* image : {&kC8, &kC16}) {
    Result<HostTensor> t = parse_npy(image->data(), image->size());
    ASSERT_TRUE(t.ok());
    const std::string p = path(t->dtype() == ScalarType::ComplexFloat ? "c8.npy" : "c16.npy");
    ASSERT_EQ(write_npy(p, t->tensor()), Error::Ok);
    EXPECT_EQ(slurp(p), *image) << p;
    Result<HostTensor> back = read_npy(p);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->dtype(), t->dtype());
  }
  EXPECT_STREQ(npy_descr(ScalarType::ComplexFloat), "<c8");
  EXPECT_STREQ(npy_descr(ScalarType::ComplexDouble), "<c16");
  // numpy has no complex32.
  EXPECT_EQ(npy_descr(ScalarType::ComplexHalf), nullptr);
  Result<HostTensor> h = HostTensor::zeros(ScalarType::ComplexHalf, {1});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(write_npy(path("c4.npy"), h->tensor()), Error::InvalidType);
}

TEST_F(NpyComplexFileTest, WritesAStridedComplexTensorInLogicalOrder) {
  // Storage [[a, b], [c, d]] in dim order (1, 0) holds the logical
  // [[a, c], [b, d]]; the file lists a, c, b, d, as numpy gives for
  // np.ascontiguousarray(np.array([1+10j, 2+20j, 3+30j, 4+40j],
  //                               dtype=np.complex64).reshape(2, 2).T).
  const float parts[] = {1, 10, 2, 20, 3, 30, 4, 40};
  Result<HostTensor> t =
      HostTensor::from_bytes(ScalarType::ComplexFloat, {2, 2}, parts, sizeof(parts), {1, 0});
  ASSERT_TRUE(t.ok());
  const std::string p = path("strided.npy");
  ASSERT_EQ(write_npy(p, t->tensor()), Error::Ok);
  Result<HostTensor> back = read_npy(p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(parts_of<float>(*back), (std::vector<float>{1, 10, 3, 30, 2, 20, 4, 40}));
}

TEST(HostTensorComplexTest, OnesAreOnePlusZeroJ) {
  Result<HostTensor> h = HostTensor::zeros(ScalarType::ComplexHalf, {2});
  Result<HostTensor> f = HostTensor::zeros(ScalarType::ComplexFloat, {2});
  Result<HostTensor> d = HostTensor::zeros(ScalarType::ComplexDouble, {1, 2});
  ASSERT_TRUE(h.ok() && f.ok() && d.ok());
  ASSERT_EQ(h->fill_ones(), Error::Ok);
  ASSERT_EQ(f->fill_ones(), Error::Ok);
  ASSERT_EQ(d->fill_ones(), Error::Ok);
  // torch.ones(2, dtype=torch.complex32).view(torch.int16): [15360, 0, 15360, 0]
  EXPECT_EQ(parts_of<uint16_t>(*h), (std::vector<uint16_t>{0x3c00, 0, 0x3c00, 0}));
  EXPECT_EQ(parts_of<float>(*f), (std::vector<float>{1, 0, 1, 0}));
  EXPECT_EQ(parts_of<double>(*d), (std::vector<double>{1, 0, 1, 0}));
}

}  // namespace
}  // namespace etr
