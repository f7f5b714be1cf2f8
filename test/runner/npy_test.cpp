// Tests for the .npy reader/writer and HostTensor (extension/tensor).
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"
#include "test/support/fixtures.h"

namespace etr {
namespace {

// A .npy image with `dict` as header text, padded like numpy does.
std::string npy_image(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t b = 0; b < prefix - 8; ++b)
    out += static_cast<char>((header.size() >> (8 * b)) & 0xff);
  return out + header + data;
}

template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

HostResult<HostTensor> parse(const std::string& image) {
  return parse_npy(image.data(), image.size());
}

class NpyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/etr_npy_testXXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string path(const std::string& name) {
    files_.push_back(dir_ + "/" + name);
    return files_.back();
  }
  void write_raw(const std::string& p, const std::string& bytes) {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
  }

  std::string dir_;
  std::vector<std::string> files_;
};

TEST(NpyParseTest, ReadsFloatMatrix) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  auto t =
      parse(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", bytes_of(v)));
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->dtype(), ScalarType::Float);
  EXPECT_EQ(shape_string(t->sizes()), "[2, 3]");
  EXPECT_EQ(std::memcmp(t->data(), v.data(), 24), 0);
  EXPECT_EQ(t->tensor().stride(0), 3);
}

TEST(NpyParseTest, ReadsZeroDimAndEmptyArrays) {
  auto s = parse(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                           bytes_of(std::vector<int64_t>{-42})));
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->tensor().dim(), 0u);
  EXPECT_EQ(s->tensor().numel(), 1);
  int64_t v = 0;
  std::memcpy(&v, s->data(), 8);
  EXPECT_EQ(v, -42);
  auto e = parse(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", ""));
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->tensor().numel(), 0);
  EXPECT_NE(e->tensor().const_data(), nullptr);
}

TEST(NpyParseTest, AcceptsEveryListedDtype) {
  const struct {
    const char* descr;
    ScalarType dtype;
  } cases[] = {{"<f2", ScalarType::Half},  {"<f4", ScalarType::Float},  {"<f8", ScalarType::Double},
               {"<i1", ScalarType::Char},  {"|i1", ScalarType::Char},   {"<i2", ScalarType::Short},
               {"<i4", ScalarType::Int},   {"<i8", ScalarType::Long},   {"|u1", ScalarType::Byte},
               {"|b1", ScalarType::Bool},  {"<u2", ScalarType::UInt16}, {"<u4", ScalarType::UInt32},
               {"<u8", ScalarType::UInt64}};
  for (const auto& c : cases) {
    const std::string data(element_size(c.dtype) * 3, '\0');
    auto t = parse(npy_image(
        std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (3,), }",
        data));
    ASSERT_TRUE(t.ok()) << c.descr << ": " << t.error();
    EXPECT_EQ(t->dtype(), c.dtype) << c.descr;
  }
}

TEST(NpyParseTest, AcceptsVersions2And3AndKeyOrder) {
  const std::string data = bytes_of(std::vector<int32_t>{7, 8});
  for (int major : {2, 3}) {
    auto t =
        parse(npy_image("{'shape': (2,), 'fortran_order': False, 'descr': '<i4'}", data, major));
    ASSERT_TRUE(t.ok()) << "v" << major << ": " << t.error();
    EXPECT_EQ(t->tensor().numel(), 2);
  }
}

TEST(NpyParseTest, RejectsUnsupportedContent) {
  const std::string f4 = bytes_of(std::vector<float>{1, 2, 3, 4});
  const struct {
    std::string image;
    const char* needle;
  } cases[] = {
      {npy_image("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", f4), "fortran"},
      {npy_image("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", f4), "big-endian"},
      {npy_image("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", f4),
       "unsupported dtype"},
      {npy_image("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", f4),
       "descr"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", f4), "data size"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4), "data size"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", f4), "shape"},
      {npy_image("{'descr': '<f4', 'fortran_order': False}", f4), "lacks"},
      {npy_image("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", f4),
       "duplicate"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } x", f4), "after"},
      {npy_image("['descr']", f4), "not a dict"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': "
                 "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }",
                 f4),
       "16"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,), }", f4),
       "large"},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647, "
                 "2147483647, 2147483647), }",
                 f4),
       "overflow"},
      {std::string("\x93NUMPX\x01\x00\x00\x00", 10), "magic"},
      {std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version"},
      {std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "truncated"},
      {std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12), "limit"},
  };
  for (const auto& c : cases) {
    auto t = parse(c.image);
    ASSERT_FALSE(t.ok()) << "accepted: " << c.image.substr(10);
    EXPECT_NE(t.error().find(c.needle), std::string::npos) << t.error();
  }
}

TEST(NpyParseTest, EveryTruncationFailsCleanly) {
  const std::string image = npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                                      bytes_of(std::vector<double>{1, 2, 3, 4}));
  ASSERT_TRUE(parse(image).ok());
  for (size_t n = 0; n < image.size(); ++n) {
    EXPECT_FALSE(parse_npy(image.data(), n).ok()) << "prefix of " << n << " bytes";
  }
  // Corrupting any single header byte never crashes (it may still parse).
  for (size_t i = 0; i < image.size() - 32; ++i) {
    std::string bad = image;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    (void)parse(bad);
  }
}

TEST_F(NpyFileTest, WriteThenReadEveryDtype) {
  const ScalarType dtypes[] = {ScalarType::Half,   ScalarType::Float,  ScalarType::Double,
                               ScalarType::Char,   ScalarType::Short,  ScalarType::Int,
                               ScalarType::Long,   ScalarType::Byte,   ScalarType::Bool,
                               ScalarType::UInt16, ScalarType::UInt32, ScalarType::UInt64};
  for (ScalarType dt : dtypes) {
    auto t = HostTensor::zeros(dt, {2, 3});
    ASSERT_TRUE(t.ok()) << t.error();
    for (size_t i = 0; i < t->nbytes(); ++i)
      t->data()[i] = static_cast<uint8_t>(dt == ScalarType::Bool ? i % 2 : i);
    const std::string p = path(std::string(to_string(dt)) + ".npy");
    ASSERT_TRUE(write_npy(p, t->tensor()).ok());
    auto back = read_npy(p);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->dtype(), dt);
    EXPECT_TRUE(testing::compare_tensors(back->tensor(), t->tensor(), 0, 0).ok());
    auto raw = testing::read_file(p);
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ((raw->size() - t->nbytes()) % 64, 0u) << "header is padded to 64 bytes";
  }
}

TEST_F(NpyFileTest, WriteGathersNonContiguousDimOrder) {
  // Logical [[0, 1, 2], [3, 4, 5]] stored column-major (dim order 1, 0).
  const std::vector<int32_t> stored = {0, 3, 1, 4, 2, 5};
  auto t = HostTensor::from_bytes(ScalarType::Int, {2, 3}, stored.data(), 24, {1, 0});
  ASSERT_TRUE(t.ok()) << t.error();
  const std::string p = path("cm.npy");
  ASSERT_TRUE(write_npy(p, t->tensor()).ok());
  auto back = read_npy(p);
  ASSERT_TRUE(back.ok()) << back.error();
  std::vector<int32_t> got(6);
  std::memcpy(got.data(), back->data(), 24);
  EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(testing::compare_tensors(back->tensor(), t->tensor(), 0, 0).ok());
}

TEST_F(NpyFileTest, WriteScalars) {
  const std::string pi = path("i.npy"), pd = path("d.npy"), pb = path("b.npy");
  ASSERT_TRUE(write_npy_scalar(pi, EValue(int64_t{-5})).ok());
  ASSERT_TRUE(write_npy_scalar(pd, EValue(0.25)).ok());
  ASSERT_TRUE(write_npy_scalar(pb, EValue(true)).ok());
  EXPECT_FALSE(write_npy_scalar(path("s.npy"), EValue(StringView("x"))).ok());
  auto i = read_npy(pi);
  ASSERT_TRUE(i.ok()) << i.error();
  EXPECT_EQ(i->dtype(), ScalarType::Long);
  EXPECT_EQ(i->tensor().dim(), 0u);
  EXPECT_TRUE(testing::compare_value(EValue(int64_t{-5}), pi, 0, 0).ok());
  EXPECT_FALSE(testing::compare_value(EValue(int64_t{5}), pi, 0, 0).ok());
  EXPECT_TRUE(testing::compare_value(EValue(0.25 + 1e-9), pd, 0, 1e-6).ok());
  EXPECT_FALSE(testing::compare_value(EValue(0.5), pd, 0, 1e-6).ok());
  EXPECT_TRUE(testing::compare_value(EValue(true), pb, 0, 0).ok());
  EXPECT_FALSE(testing::compare_value(EValue(int64_t{1}), pb, 0, 0).ok());
}

TEST_F(NpyFileTest, ReadFileErrors) {
  auto missing = read_npy(dir_ + "/nope.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("nope.npy"), std::string::npos);
  const std::string p = path("short.npy");
  write_raw(
      p, npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }", "abcd"));
  auto huge = read_npy(p);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("data size"), std::string::npos) << huge.error();
}

TEST(HostTensorTest, OnesAndMoves) {
  auto t = HostTensor::zeros(ScalarType::Half, {2});
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(t->fill_ones().ok());
  double v = 0;
  ASSERT_TRUE(element_to_double(ScalarType::Half, t->data() + 2, &v));
  EXPECT_EQ(v, 1.0);
  HostTensor moved = std::move(*t);
  EXPECT_EQ(moved.tensor().const_data(), moved.data());
  EXPECT_EQ(moved.tensor().size(0), 2);
  EXPECT_FALSE(HostTensor::zeros(ScalarType::Float, {2, 2}, {0, 0}).ok());
  EXPECT_FALSE(HostTensor::zeros(ScalarType::Float, {-1}).ok());
  EXPECT_FALSE(HostTensor::zeros(static_cast<ScalarType>(99), {1}).ok());
  auto q = HostTensor::zeros(ScalarType::QInt8, {1});
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->fill_ones().ok());
}

TEST(CompareTest, TolerancesAndMismatches) {
  const std::vector<float> a = {1.0f, 2.0f, 100.0f};
  const std::vector<float> b = {1.0f, 2.00001f, 100.001f};
  auto ta = HostTensor::from_bytes(ScalarType::Float, {3}, a.data(), 12);
  auto tb = HostTensor::from_bytes(ScalarType::Float, {3}, b.data(), 12);
  EXPECT_TRUE(testing::compare_tensors(ta->tensor(), tb->tensor(), 1e-5, 1e-6).ok());
  const HostStatus s = testing::compare_tensors(ta->tensor(), tb->tensor(), 0, 1e-6);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("element 1"), std::string::npos) << s.error();
  auto tc = HostTensor::from_bytes(ScalarType::Float, {1, 3}, a.data(), 12);
  EXPECT_FALSE(testing::compare_tensors(ta->tensor(), tc->tensor(), 1, 1).ok());
  const std::vector<int32_t> ia = {1, 2, 3};
  auto ti = HostTensor::from_bytes(ScalarType::Int, {3}, ia.data(), 12);
  EXPECT_FALSE(testing::compare_tensors(ta->tensor(), ti->tensor(), 1, 1).ok());
}

TEST(ManifestTest, ParsesLinesAndResolvesPaths) {
  const std::string text =
      "# comment\n\n"
      "pte=a.pte method=forward inputs=a/x.npy,a/y.npy expected=a/o.npy executions=3 rtol=1e-4 "
      "atol=0\n"
      "pte=b.pte method=get inputs=- expected=b/s.txt executions=1 rtol=1e-05 atol=1e-06 "
      "expect_error=missing_backend future=1\n";
  auto m = testing::parse_manifest_text(text, "/models");
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m->size(), 2u);
  const testing::ManifestEntry& a = (*m)[0];
  EXPECT_EQ(a.pte, "/models/a.pte");
  EXPECT_EQ(a.inputs, (std::vector<std::string>{"/models/a/x.npy", "/models/a/y.npy"}));
  EXPECT_EQ(a.executions, 3);
  EXPECT_DOUBLE_EQ(a.rtol, 1e-4);
  EXPECT_EQ(a.line, 3);
  const testing::ManifestEntry& b = (*m)[1];
  EXPECT_TRUE(b.inputs.empty());
  EXPECT_EQ(b.expect_error, "missing_backend");
  EXPECT_EQ(b.extra.at("future"), "1");
  EXPECT_EQ(b.describe(), "b.pte:get (manifest line 4)");
  EXPECT_FALSE(testing::parse_manifest_text("pte=a.pte method=f executions=0\n", "").ok());
  EXPECT_FALSE(testing::parse_manifest_text("method=f\n", "").ok());
  EXPECT_FALSE(testing::parse_manifest_text("pte=a.pte method=f junk\n", "").ok());
}

}  // namespace
}  // namespace etr
