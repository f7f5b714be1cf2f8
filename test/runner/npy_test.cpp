// Tests for the .npy reader/writer and HostTensor (extension/tensor).
#include "extension/tensor/npy.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"
#include "test/support/temp_files.h"

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

Result<HostTensor> parse(const std::string& image) { return parse_npy(image.data(), image.size()); }

// The messages logged while a failing call ran (ErrorCapture), for checks
// that the message names the problem.
class Messages {
 public:
  Messages() : capture_(buffer_, sizeof(buffer_)) {}
  std::string text() const { return capture_.message(); }
  bool mention(const std::string& needle) const { return text().find(needle) != std::string::npos; }
  void clear() { capture_.clear(); }

 private:
  char buffer_[2048];
  ErrorCapture capture_;
};

class NpyFileTest : public testing::TempFilesTest {
 protected:
  void write_raw(const std::string& p, const std::string& bytes) {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
  }
};

TEST(NpyParseTest, ReadsFloatMatrix) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  auto t =
      parse(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", bytes_of(v)));
  ASSERT_TRUE(t.ok()) << to_string(t.error());
  EXPECT_EQ(t->dtype(), ScalarType::Float);
  EXPECT_EQ(shape_string(t->sizes()), "[2, 3]");
  EXPECT_EQ(std::memcmp(t->data(), v.data(), 24), 0);
  EXPECT_EQ(t->tensor().stride(0), 3);
}

TEST(NpyParseTest, ReadsZeroDimAndEmptyArrays) {
  auto s = parse(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                           bytes_of(std::vector<int64_t>{-42})));
  ASSERT_TRUE(s.ok()) << to_string(s.error());
  EXPECT_EQ(s->tensor().dim(), 0u);
  EXPECT_EQ(s->tensor().numel(), 1);
  int64_t v = 0;
  std::memcpy(&v, s->data(), 8);
  EXPECT_EQ(v, -42);
  auto e = parse(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", ""));
  ASSERT_TRUE(e.ok()) << to_string(e.error());
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
    ASSERT_TRUE(t.ok()) << c.descr << ": " << to_string(t.error());
    EXPECT_EQ(t->dtype(), c.dtype) << c.descr;
  }
}

TEST(NpyParseTest, AcceptsVersions2And3AndKeyOrder) {
  const std::string data = bytes_of(std::vector<int32_t>{7, 8});
  for (int major : {2, 3}) {
    auto t =
        parse(npy_image("{'shape': (2,), 'fortran_order': False, 'descr': '<i4'}", data, major));
    ASSERT_TRUE(t.ok()) << "v" << major << ": " << to_string(t.error());
    EXPECT_EQ(t->tensor().numel(), 2);
  }
}

TEST(NpyParseTest, RejectsUnsupportedContent) {
  const std::string f4 = bytes_of(std::vector<float>{1, 2, 3, 4});
  constexpr Error kBad = Error::InvalidArgument;
  constexpr Error kUnsupported = Error::NotSupported;
  const struct {
    std::string image;
    const char* needle;
    Error error;
  } cases[] = {
      {npy_image("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", f4), "fortran",
       kUnsupported},
      {npy_image("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", f4), "big-endian",
       kUnsupported},
      {npy_image("{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }", f4),
       "unsupported dtype '<c32'", kUnsupported},
      {npy_image("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", f4), "descr",
       kUnsupported},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", f4),
       "data size mismatch: the header implies 20 bytes of data, the file holds 16", kBad},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4), "data size",
       kBad},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", f4), "shape", kBad},
      {npy_image("{'descr': '<f4', 'fortran_order': False}", f4), "lacks", kBad},
      {npy_image("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", f4),
       "duplicate", kBad},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } x", f4), "after", kBad},
      {npy_image("['descr']", f4), "not a dict", kBad},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': "
                 "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }",
                 f4),
       "16", kUnsupported},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,), }", f4),
       "large", kBad},
      {npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647, "
                 "2147483647, 2147483647), }",
                 f4),
       "overflow", kBad},
      {std::string("\x93NUMPX\x01\x00\x00\x00", 10), "magic", kBad},
      {std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version", kUnsupported},
      {std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "truncated", kBad},
      {std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12), "limit", kBad},
  };
  for (const auto& c : cases) {
    Messages messages;
    auto t = parse(c.image);
    ASSERT_FALSE(t.ok()) << "accepted: " << c.image.substr(10);
    EXPECT_EQ(t.error(), c.error) << c.needle << ": " << to_string(t.error());
    EXPECT_TRUE(messages.mention(c.needle)) << messages.text();
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
    ASSERT_TRUE(t.ok()) << to_string(t.error());
    for (size_t i = 0; i < t->nbytes(); ++i)
      t->data()[i] = static_cast<uint8_t>(dt == ScalarType::Bool ? i % 2 : i);
    const std::string p = path(std::string(to_string(dt)) + ".npy");
    ASSERT_EQ(write_npy(p, t->tensor()), Error::Ok);
    auto back = read_npy(p);
    ASSERT_TRUE(back.ok()) << to_string(back.error());
    EXPECT_EQ(back->dtype(), dt);
    EXPECT_EQ(testing::compare_tensors(back->tensor(), t->tensor(), 0, 0), Error::Ok);
    auto raw = testing::read_file(p);
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ((raw->size() - t->nbytes()) % 64, 0u) << "header is padded to 64 bytes";
  }
}

TEST_F(NpyFileTest, WriteGathersNonContiguousDimOrder) {
  // Logical [[0, 1, 2], [3, 4, 5]] stored column-major (dim order 1, 0).
  const std::vector<int32_t> stored = {0, 3, 1, 4, 2, 5};
  auto t = HostTensor::from_bytes(ScalarType::Int, {2, 3}, stored.data(), 24, {1, 0});
  ASSERT_TRUE(t.ok()) << to_string(t.error());
  const std::string p = path("cm.npy");
  ASSERT_EQ(write_npy(p, t->tensor()), Error::Ok);
  auto back = read_npy(p);
  ASSERT_TRUE(back.ok()) << to_string(back.error());
  EXPECT_EQ(back->values<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(testing::compare_tensors(back->tensor(), t->tensor(), 0, 0), Error::Ok);
}

TEST_F(NpyFileTest, WriteScalars) {
  const std::string pi = path("i.npy"), pd = path("d.npy"), pb = path("b.npy");
  ASSERT_EQ(write_npy_scalar(pi, EValue(int64_t{-5})), Error::Ok);
  ASSERT_EQ(write_npy_scalar(pd, EValue(0.25)), Error::Ok);
  ASSERT_EQ(write_npy_scalar(pb, EValue(true)), Error::Ok);
  {
    Messages messages;
    const std::string ps = path("s.npy");
    EXPECT_EQ(write_npy_scalar(ps, EValue(StringView("x"))), Error::InvalidType);
    EXPECT_TRUE(messages.mention(ps)) << messages.text();
    EXPECT_TRUE(messages.mention("String")) << messages.text();
  }
  auto i = read_npy(pi);
  ASSERT_TRUE(i.ok()) << to_string(i.error());
  EXPECT_EQ(i->dtype(), ScalarType::Long);
  EXPECT_EQ(i->tensor().dim(), 0u);
  EXPECT_EQ(i->values<int64_t>(), std::vector<int64_t>{-5});
  EXPECT_EQ(testing::compare_value(EValue(int64_t{-5}), pi, 0, 0), Error::Ok);
  EXPECT_NE(testing::compare_value(EValue(int64_t{5}), pi, 0, 0), Error::Ok);
  EXPECT_EQ(testing::compare_value(EValue(0.25 + 1e-9), pd, 0, 1e-6), Error::Ok);
  EXPECT_NE(testing::compare_value(EValue(0.5), pd, 0, 1e-6), Error::Ok);
  EXPECT_EQ(testing::compare_value(EValue(true), pb, 0, 0), Error::Ok);
  Messages messages;
  EXPECT_EQ(testing::compare_value(EValue(int64_t{1}), pb, 0, 0), Error::InvalidType);
  EXPECT_TRUE(messages.mention("output is Int but the expected file holds a Bool array"))
      << messages.text();
}

TEST_F(NpyFileTest, ReadFileErrors) {
  Messages messages;
  const std::string missing_path = dir_ + "/nope.npy";
  auto missing = read_npy(missing_path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), Error::AccessFailed) << to_string(missing.error());
  EXPECT_TRUE(messages.mention("cannot open " + missing_path)) << messages.text();
  messages.clear();
  const std::string p = path("short.npy");
  write_raw(
      p, npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }", "abcd"));
  auto huge = read_npy(p);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error(), Error::InvalidArgument) << to_string(huge.error());
  EXPECT_TRUE(messages.mention(p + ": data size mismatch")) << messages.text();
  messages.clear();
  const std::string fortran = path("fortran.npy");
  write_raw(fortran, npy_image("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
                               bytes_of(std::vector<float>{1})));
  auto f = read_npy(fortran);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), Error::NotSupported) << to_string(f.error());
  EXPECT_TRUE(messages.mention(fortran + ": malformed .npy header: fortran_order"))
      << messages.text();
}

TEST_F(NpyFileTest, WriteErrorsNameTheFile) {
  auto t = HostTensor::from_values<float>({2}, {1, 2});
  ASSERT_TRUE(t.ok());
  Messages messages;
  const std::string unwritable = dir_ + "/no_such_dir/out.npy";
  EXPECT_EQ(write_npy(unwritable, t->tensor()), Error::AccessFailed);
  EXPECT_TRUE(messages.mention("cannot create " + unwritable)) << messages.text();
  messages.clear();
  auto q = HostTensor::zeros(ScalarType::QInt8, {1});
  ASSERT_TRUE(q.ok());
  const std::string qpath = dir_ + "/q.npy";
  EXPECT_EQ(write_npy(qpath, q->tensor()), Error::InvalidType);
  EXPECT_TRUE(messages.mention(qpath)) << messages.text();
  EXPECT_TRUE(messages.mention("dtype QInt8 cannot be stored")) << messages.text();
}

TEST(HostTensorTest, OnesAndMoves) {
  auto t = HostTensor::zeros(ScalarType::Half, {2});
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->fill_ones(), Error::Ok);
  double v = 0;
  ASSERT_TRUE(element_to_double(ScalarType::Half, t->data() + 2, &v));
  EXPECT_EQ(v, 1.0);
  HostTensor moved = std::move(*t);
  EXPECT_EQ(moved.tensor().const_data(), moved.data());
  EXPECT_EQ(moved.tensor().size(0), 2);
  EXPECT_EQ(HostTensor::zeros(ScalarType::Float, {2, 2}, {0, 0}).error(), Error::InvalidArgument);
  EXPECT_EQ(HostTensor::zeros(ScalarType::Float, {-1}).error(), Error::InvalidArgument);
  EXPECT_EQ(HostTensor::zeros(static_cast<ScalarType>(99), {1}).error(), Error::InvalidType);
  auto q = HostTensor::zeros(ScalarType::QInt8, {1});
  ASSERT_TRUE(q.ok());
  Messages messages;
  EXPECT_EQ(q->fill_ones(), Error::NotSupported);
  EXPECT_TRUE(messages.mention("cannot fill a QInt8 tensor with ones")) << messages.text();
}

TEST(HostTensorTest, FailuresAreLoggedForErrorCapture) {
  Messages messages;
  EXPECT_EQ(HostTensor::zeros(ScalarType::Float, std::vector<int32_t>(17, 1)).error(),
            Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("rank 17 exceeds the limit of 16")) << messages.text();
  messages.clear();
  EXPECT_EQ(HostTensor::zeros(ScalarType::Float, {2, 2}, {0, 0}).error(), Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("invalid shape [2, 2] or dim order")) << messages.text();
  messages.clear();
  EXPECT_EQ(HostTensor::zeros(static_cast<ScalarType>(99), {1}).error(), Error::InvalidType);
  EXPECT_TRUE(messages.mention("invalid dtype code 99")) << messages.text();
  messages.clear();
  const float four[4] = {};
  EXPECT_EQ(HostTensor::from_bytes(ScalarType::Float, {2, 3}, four, sizeof(four)).error(),
            Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("expected 24 bytes for a Float tensor of shape [2, 3], got 16"))
      << messages.text();
  messages.clear();
  EXPECT_EQ(HostTensor::from_values<int32_t>({2, 2}, {1, 2, 3}).error(), Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("expected 4 values for a Int tensor of shape [2, 2], got 3"))
      << messages.text();
}

TEST(HostTensorTest, FromValuesMapsTypesAndKeepsStorageOrder) {
  auto f = HostTensor::from_values<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->dtype(), ScalarType::Float);
  EXPECT_EQ(f->shape(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(f->values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(HostTensor::from_values<double>({1}, {0.5})->dtype(), ScalarType::Double);
  EXPECT_EQ(HostTensor::from_values<int64_t>({1}, {7})->dtype(), ScalarType::Long);
  EXPECT_EQ(HostTensor::from_values<int32_t>({1}, {7})->dtype(), ScalarType::Int);
  EXPECT_EQ(HostTensor::from_values<int16_t>({1}, {7})->dtype(), ScalarType::Short);
  EXPECT_EQ(HostTensor::from_values<int8_t>({1}, {7})->dtype(), ScalarType::Char);
  EXPECT_EQ(HostTensor::from_values<uint8_t>({1}, {7})->dtype(), ScalarType::Byte);
  auto b = HostTensor::from_values<bool>({3}, {true, false, true});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->dtype(), ScalarType::Bool);
  EXPECT_EQ(b->values<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(b->values<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
  // Values are in storage order: column-major [[0, 1, 2], [3, 4, 5]].
  auto cm = HostTensor::from_values<int32_t>({2, 3}, {0, 3, 1, 4, 2, 5}, {1, 0});
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ(cm->tensor().stride(0), 1);
  EXPECT_EQ(cm->tensor().stride(1), 2);
  EXPECT_EQ(cm->values<int32_t>(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  auto copy = HostTensor::contiguous_copy(cm->tensor());
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(copy->values<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  // 0-d and empty tensors.
  auto scalar = HostTensor::from_values<double>({}, {2.5});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->tensor().dim(), 0u);
  EXPECT_EQ(scalar->values<double>(), std::vector<double>{2.5});
  auto empty = HostTensor::from_values<float>({0, 4}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->values<float>().empty());
  EXPECT_NE(empty->tensor().const_data(), nullptr);
  // A mismatched element type reads nothing rather than past the buffer.
  Messages messages;
  EXPECT_TRUE(f->values<double>().empty());
  EXPECT_TRUE(messages.mention("cannot read a Float tensor")) << messages.text();
}

TEST(HostTensorTest, MovesThroughResultKeepTheTensorBound) {
  // Built inside a function returning Result, moved out of the Result into
  // another Result, then into a plain HostTensor and into a vector.
  auto make = [](float first) -> Result<HostTensor> {
    Result<HostTensor> r = HostTensor::from_values<float>({2, 2}, {first, 2, 3, 4});
    if (!r.ok()) return r.error();
    return r;
  };
  Result<HostTensor> a = make(1.f);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->tensor().const_data(), a->data());
  Result<HostTensor> b(std::move(a));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->tensor().const_data(), b->data());
  EXPECT_EQ(b->shape(), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(b->tensor().stride(0), 2);
  HostTensor plain = std::move(*b);
  EXPECT_EQ(plain.tensor().const_data(), plain.data());
  EXPECT_EQ(plain.tensor().const_data_ptr<float>()[0], 1.f);
  std::vector<HostTensor> many;
  for (int i = 0; i < 10; ++i) {
    Result<HostTensor> r = make(static_cast<float>(i));
    ASSERT_TRUE(r.ok());
    many.push_back(std::move(*r));  // reallocations move earlier elements
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(many[i].tensor().const_data(), many[i].data());
    EXPECT_EQ(many[i].tensor().const_data_ptr<float>()[0], static_cast<float>(i));
    EXPECT_EQ(many[i].tensor().numel(), 4);
  }
  HostTensor assigned = std::move(many[3]);
  assigned = std::move(many[5]);
  EXPECT_EQ(assigned.tensor().const_data(), assigned.data());
  EXPECT_EQ(assigned.values<float>(), (std::vector<float>{5, 2, 3, 4}));
}

TEST(HostTensorTest, DynamicBoundTensorsResizeAndKeepTheirShapeWhenMoved) {
  auto z = HostTensor::zeros(ScalarType::Float, {2, 4}, {}, ShapeDynamism::DynamicBound);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->tensor().shape_dynamism(), ShapeDynamism::DynamicBound);
  EXPECT_EQ(z->tensor().capacity_bytes(), 32u);
  const int32_t smaller[] = {1, 3};
  ASSERT_EQ(resize_tensor(z->tensor(), Span<const int32_t>(smaller, 2)), Error::Ok);
  EXPECT_EQ(z->shape(), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(z->values<float>().size(), 3u);
  const int32_t larger[] = {3, 4};
  EXPECT_NE(resize_tensor(z->tensor(), Span<const int32_t>(larger, 2)), Error::Ok);
  Result<HostTensor> moved(std::move(z));
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->shape(), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(moved->tensor().numel(), 3);
  EXPECT_EQ(moved->tensor().capacity_bytes(), 32u);
  EXPECT_EQ(moved->tensor().shape_dynamism(), ShapeDynamism::DynamicBound);

  auto v = HostTensor::from_values<int32_t>({4}, {1, 2, 3, 4}, {}, ShapeDynamism::DynamicBound);
  ASSERT_TRUE(v.ok());
  const int32_t two[] = {2};
  ASSERT_EQ(resize_tensor(v->tensor(), Span<const int32_t>(two, 1)), Error::Ok);
  EXPECT_EQ(v->values<int32_t>(), (std::vector<int32_t>{1, 2}));
  const float data[] = {1, 2, 3, 4};
  auto fb = HostTensor::from_bytes(ScalarType::Float, {4}, data, sizeof(data), {},
                                   ShapeDynamism::DynamicBound);
  ASSERT_TRUE(fb.ok());
  EXPECT_EQ(fb->tensor().shape_dynamism(), ShapeDynamism::DynamicBound);
  // Static tensors refuse a new shape.
  auto s = HostTensor::zeros(ScalarType::Float, {4});
  ASSERT_TRUE(s.ok());
  EXPECT_NE(resize_tensor(s->tensor(), Span<const int32_t>(two, 1)), Error::Ok);
}

TEST(CompareTest, TolerancesAndMismatches) {
  const std::vector<float> a = {1.0f, 2.0f, 100.0f};
  const std::vector<float> b = {1.0f, 2.00001f, 100.001f};
  auto ta = HostTensor::from_bytes(ScalarType::Float, {3}, a.data(), 12);
  auto tb = HostTensor::from_bytes(ScalarType::Float, {3}, b.data(), 12);
  EXPECT_EQ(testing::compare_tensors(ta->tensor(), tb->tensor(), 1e-5, 1e-6), Error::Ok);
  Messages messages;
  EXPECT_EQ(testing::compare_tensors(ta->tensor(), tb->tensor(), 0, 1e-6), Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("element 1 is 2, expected 2.00001")) << messages.text();
  EXPECT_TRUE(messages.mention("2 of 3 elements differ (rtol 0, atol 1e-06)")) << messages.text();
  messages.clear();
  auto tc = HostTensor::from_bytes(ScalarType::Float, {1, 3}, a.data(), 12);
  EXPECT_EQ(testing::compare_tensors(ta->tensor(), tc->tensor(), 1, 1), Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("shape [3], expected [1, 3]")) << messages.text();
  messages.clear();
  auto ti = HostTensor::from_values<int32_t>({3}, {1, 2, 3});
  EXPECT_EQ(testing::compare_tensors(ta->tensor(), ti->tensor(), 1, 1), Error::InvalidType);
  EXPECT_TRUE(messages.mention("dtype Float, expected Int")) << messages.text();
}

TEST(ManifestTest, ParsesLinesAndResolvesPaths) {
  const std::string text =
      "# comment\n\n"
      "pte=a.pte method=forward inputs=a/x.npy,a/y.npy expected=a/o.npy executions=3 rtol=1e-4 "
      "atol=0\n"
      "pte=b.pte method=get inputs=- expected=b/s.txt executions=1 rtol=1e-05 atol=1e-06 "
      "expect_error=missing_backend future=1\n";
  auto m = testing::parse_manifest_text(text, "/models");
  ASSERT_TRUE(m.ok()) << to_string(m.error());
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
  Messages messages;
  EXPECT_EQ(testing::parse_manifest_text("pte=a.pte method=f executions=0\n", "").error(),
            Error::InvalidArgument);
  EXPECT_TRUE(messages.mention("manifest line 1: bad executions '0'")) << messages.text();
  EXPECT_FALSE(testing::parse_manifest_text("method=f\n", "").ok());
  messages.clear();
  EXPECT_FALSE(testing::parse_manifest_text("# c\npte=a.pte method=f junk\n", "").ok());
  EXPECT_TRUE(messages.mention("manifest line 2: token 'junk' is not key=value"))
      << messages.text();
  messages.clear();
  EXPECT_EQ(testing::parse_manifest("/nonexistent/manifest.txt").error(), Error::AccessFailed);
  EXPECT_TRUE(messages.mention("cannot open /nonexistent/manifest.txt")) << messages.text();
}

}  // namespace
}  // namespace etr
