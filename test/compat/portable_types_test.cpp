// The official portable types and small utilities of extension/compat:
// Scalar, the dtype helpers, safe_numel, MergedDataMap and NoThreadPoolGuard.
#include <gtest/gtest.h>

#include <executorch/extension/named_data_map/merged_data_map.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/portable_type/scalar.h>
#include <executorch/runtime/executor/merged_data_map.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Result;
using executorch::runtime::TensorLayout;

namespace {

class CompatTypesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
};

// One type, one definition: the official names are etr's own types.
static_assert(std::is_same<executorch::aten::ScalarType, etr::ScalarType>::value, "");
// TensorImpl is an etr::Tensor (adding only the official constructor).
static_assert(std::is_base_of<etr::Tensor, executorch::aten::TensorImpl>::value, "");
static_assert(std::is_same<executorch::aten::TensorShapeDynamism, etr::ShapeDynamism>::value, "");
static_assert(std::is_same<exec_aten::Half, etr::Half>::value, "");
static_assert(std::is_same<executorch::runtime::etensor::BFloat16, etr::BFloat16>::value, "");
static_assert(std::is_same<torch::executor::ScalarType, etr::ScalarType>::value, "");

TEST_F(CompatTypesTest, ScalarHoldsOneKindAndAbortsOnAnother) {
  executorch::aten::Scalar i(int32_t{-3});
  EXPECT_TRUE(i.isIntegral(false));
  EXPECT_EQ(i.to<int64_t>(), -3);
  executorch::aten::Scalar d(0.25);
  EXPECT_TRUE(d.isFloatingPoint());
  EXPECT_EQ(d.to<double>(), 0.25);
  executorch::aten::Scalar b(true);
  EXPECT_TRUE(b.isBoolean());
  EXPECT_EQ(b.to<int64_t>(), 1);  // a Bool reads as an integer
  executorch::aten::Scalar h(etr::Half(1.5f));
  EXPECT_EQ(h.to<double>(), 1.5);
  EXPECT_DEATH({ (void)i.to<double>(); }, "Scalar is not a Double");
}

TEST_F(CompatTypesTest, DtypeHelpersFollowATen) {
  using executorch::runtime::canCast;
  EXPECT_TRUE(canCast(ScalarType::Int, ScalarType::Float));
  EXPECT_FALSE(canCast(ScalarType::Float, ScalarType::Long));
  EXPECT_TRUE(canCast(ScalarType::Float, ScalarType::UInt32));  // unsigned: not "integral"
  EXPECT_FALSE(canCast(ScalarType::Int, ScalarType::Bool));
  EXPECT_FALSE(canCast(ScalarType::ComplexFloat, ScalarType::Float));
  EXPECT_EQ(executorch::aten::elementSize(ScalarType::UInt64), 8u);
  EXPECT_EQ(executorch::runtime::CppTypeToScalarType<uint32_t>::value, ScalarType::UInt32);
  EXPECT_EQ(executorch::runtime::CppTypeToScalarType<exec_aten::BFloat16>::value,
            ScalarType::BFloat16);
  EXPECT_STREQ(executorch::runtime::toString(ScalarType::QUInt4x2), "QUInt4x2");
}

TEST_F(CompatTypesTest, ForAllScalarTypesListsEveryDtypeInOrder) {
  std::vector<std::string> names;
  std::vector<size_t> sizes;
#define COLLECT(ctype, name) \
  names.push_back(#name);    \
  sizes.push_back(sizeof(ctype));
  ET_FORALL_SCALAR_TYPES(COLLECT)
#undef COLLECT
  ASSERT_EQ(names.size(), 30u);
  for (size_t i = 0; i < names.size(); ++i) {
    const auto t = static_cast<ScalarType>(i);
    EXPECT_EQ(names[i], etr::to_string(t));
    EXPECT_EQ(sizes[i], etr::element_size(t)) << names[i];
  }
}

TEST_F(CompatTypesTest, SafeNumelReportsBadShapes) {
  const int32_t ok[] = {2, 3, 4};
  EXPECT_EQ(executorch::aten::safe_numel(ok, 3).get(), 24);
  const int32_t negative[] = {2, -1};
  EXPECT_EQ(executorch::aten::safe_numel(negative, 2).error(), Error::InvalidArgument);
  const int32_t huge[] = {1 << 30, 1 << 30, 1 << 30};
  EXPECT_EQ(executorch::aten::safe_numel(huge, 3).error(), Error::InvalidArgument);
}

// A NamedDataMap over a few byte blobs, each a 1-D Byte tensor.
class BlobMap final : public NamedDataMap {
 public:
  explicit BlobMap(std::map<std::string, std::string> blobs) : blobs_(std::move(blobs)) {
    for (const auto& kv : blobs_) {
      keys_.push_back(kv.first);
      sizes_[kv.first] = static_cast<int32_t>(kv.second.size());
    }
  }
  Result<const TensorLayout> get_tensor_layout(std::string_view key) const override {
    auto it = sizes_.find(std::string(key));
    if (it == sizes_.end()) return Error::NotFound;
    return TensorLayout::create({&it->second, 1}, {&kDimOrder, 1}, ScalarType::Byte);
  }
  Result<FreeableBuffer> get_data(std::string_view key) const override {
    auto it = blobs_.find(std::string(key));
    if (it == blobs_.end()) return Error::NotFound;
    return FreeableBuffer(it->second.data(), it->second.size(), nullptr);
  }
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override {
    auto it = blobs_.find(std::string(key));
    if (it == blobs_.end()) return Error::NotFound;
    if (size != it->second.size()) return Error::InvalidArgument;
    std::memcpy(buffer, it->second.data(), size);
    return Error::Ok;
  }
  Result<uint32_t> get_num_keys() const override { return static_cast<uint32_t>(keys_.size()); }
  Result<const char*> get_key(uint32_t index) const override {
    if (index >= keys_.size()) return Error::InvalidArgument;
    return keys_[index].c_str();
  }

 private:
  static constexpr uint8_t kDimOrder = 0;
  std::map<std::string, std::string> blobs_;
  std::map<std::string, int32_t> sizes_;
  std::vector<std::string> keys_;
};

TEST_F(CompatTypesTest, MergedDataMapServesEveryMapAndRejectsDuplicates) {
  using Blobs = std::map<std::string, std::string>;
  BlobMap a(Blobs{{"w1", "abc"}, {"w2", "de"}});
  BlobMap b(Blobs{{"w3", "fghi"}});
  const NamedDataMap* maps[] = {&a, &b};
  auto merged = executorch::extension::merged_data_map::MergedDataMap::load({maps, 2});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->get_num_keys().get(), 3u);
  EXPECT_STREQ(merged->get_key(2).get(), "w3");
  auto data = merged->get_data("w3");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(std::string(static_cast<const char*>(data->data()), data->size()), "fghi");
  char out[2];
  EXPECT_EQ(merged->load_data_into("w2", out, 2), Error::Ok);
  EXPECT_EQ(std::string(out, 2), "de");
  EXPECT_EQ(merged->get_data("nope").error(), Error::NotFound);
  auto layout = merged->get_tensor_layout("w1");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->sizes()[0], 3);

  BlobMap dup(Blobs{{"w1", "zzz"}});
  const NamedDataMap* clash[] = {&a, &dup};
  EXPECT_EQ(executorch::extension::merged_data_map::MergedDataMap::load({clash, 2}).error(),
            Error::InvalidArgument);
  EXPECT_EQ(executorch::runtime::internal::MergedDataMap::load(&a, &dup).error(),
            Error::InvalidArgument);
  auto pair = executorch::runtime::internal::MergedDataMap::load(&a, &b);
  ASSERT_TRUE(pair.ok());
  EXPECT_STREQ(pair->get_key(2).get(), "w3");
  EXPECT_EQ(pair->get_key(3).error(), Error::InvalidArgument);
}

TEST_F(CompatTypesTest, NoThreadPoolGuardNests) {
  using executorch::extension::threadpool::NoThreadPoolGuard;
  EXPECT_FALSE(NoThreadPoolGuard::is_enabled());
  {
    NoThreadPoolGuard outer;
    EXPECT_TRUE(NoThreadPoolGuard::is_enabled());
    {
      NoThreadPoolGuard inner;
      EXPECT_TRUE(NoThreadPoolGuard::is_enabled());
    }
    EXPECT_TRUE(NoThreadPoolGuard::is_enabled());
  }
  EXPECT_FALSE(NoThreadPoolGuard::is_enabled());
}

}  // namespace
