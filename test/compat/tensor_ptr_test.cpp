// The official TensorPtr API (extension/compat) as a client sees it: owned
// and borrowed data, views, clones, casts, resizing, the builder, and the
// aborts on contract violations (with their messages).
#include <gtest/gtest.h>

#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::TensorShapeDynamism;
using executorch::extension::clone_tensor_ptr;
using executorch::extension::for_blob;
using executorch::extension::from_blob;
using executorch::extension::make_tensor_ptr;
using executorch::extension::resize_tensor_ptr;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;

namespace {

class CompatTensorPtrTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
};

TEST_F(CompatTensorPtrTest, BorrowedDataKeepsPointerAndComputesStrides) {
  float data[24] = {};
  data[0] = 5.0f;
  auto t = make_tensor_ptr({2, 3, 4}, data);
  EXPECT_EQ(t->const_data_ptr<float>(), data);
  EXPECT_EQ(t->numel(), 24);
  EXPECT_EQ(t->nbytes(), 96u);
  EXPECT_EQ(t->strides()[0], 12);
  EXPECT_EQ(t->strides()[1], 4);
  EXPECT_EQ(t->strides()[2], 1);
  EXPECT_EQ(t->const_data_ptr<float>()[0], 5.0f);
  EXPECT_EQ(t->device().type(), executorch::aten::DeviceType::CPU);
}

TEST_F(CompatTensorPtrTest, DimOrderIsInferredFromStrides) {
  float data[12] = {};
  auto t = make_tensor_ptr({3, 4}, data, {}, {1, 3});
  ASSERT_EQ(t->dim_order().size(), 2u);
  EXPECT_EQ(t->dim_order()[0], 1);
  EXPECT_EQ(t->dim_order()[1], 0);
  // A size-1 dimension's stride is free; the stored one is recomputed.
  auto u = make_tensor_ptr({1, 2, 2}, data, {}, {10, 2, 1});
  EXPECT_EQ(u->strides()[0], 4);
}

TEST_F(CompatTensorPtrTest, OwnedVectorIsMovedNotCopied) {
  std::vector<int32_t> values = {1, 2, 3, 4, 5, 6};
  const int32_t* before = values.data();
  auto t = make_tensor_ptr({2, 3}, std::move(values));
  EXPECT_EQ(t->const_data_ptr<int32_t>(), before);
  EXPECT_EQ(t->scalar_type(), ScalarType::Int);
  EXPECT_EQ(t->const_data_ptr<int32_t>()[5], 6);
}

TEST_F(CompatTensorPtrTest, EmptyVectorGivesNullData) {
  auto t = make_tensor_ptr({0, 5}, std::vector<float>());
  EXPECT_EQ(t->numel(), 0);
  EXPECT_EQ(t->const_data_ptr(), nullptr);
  EXPECT_EQ(t->strides()[0], 5);
}

TEST_F(CompatTensorPtrTest, CastsFollowTheConversionRules) {
  // IEEE binary16 nearest values: 2.7 -> 2.69921875, 3.14 -> 3.140625.
  auto h = make_tensor_ptr<double>({1.5, 2.7, 3.14}, ScalarType::Half);
  const auto* hp = h->const_data_ptr<executorch::aten::Half>();
  EXPECT_EQ(static_cast<float>(hp[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(hp[1]), 2.69921875f);
  EXPECT_EQ(static_cast<float>(hp[2]), 3.140625f);
  // bfloat16 keeps 8 mantissa bits: 3.3 -> 3.296875.
  auto b = make_tensor_ptr(std::vector<float>{3.3f}, ScalarType::BFloat16);
  EXPECT_EQ(static_cast<float>(b->const_data_ptr<executorch::aten::BFloat16>()[0]), 3.296875f);
  // Integer narrowing wraps modulo 2^16.
  auto u = make_tensor_ptr(std::vector<int32_t>{-1, 65536, 70000}, ScalarType::UInt16);
  EXPECT_EQ(u->const_data_ptr<uint16_t>()[0], 65535u);
  EXPECT_EQ(u->const_data_ptr<uint16_t>()[1], 0u);
  EXPECT_EQ(u->const_data_ptr<uint16_t>()[2], 4464u);
  auto f = make_tensor_ptr(std::vector<uint64_t>{9000000000000000000ull}, ScalarType::Double);
  EXPECT_EQ(f->const_data_ptr<double>()[0], 9e18);
}

TEST_F(CompatTensorPtrTest, ViewsShareDataAndKeepTheSourceAlive) {
  bool freed = false;
  auto* data = new float[6]{1, 2, 3, 4, 5, 6};
  auto source = make_tensor_ptr({2, 3}, data, {}, {}, ScalarType::Float,
                                TensorShapeDynamism::DYNAMIC_BOUND, [&freed](void* p) {
                                  freed = true;
                                  delete[] static_cast<float*>(p);
                                });
  auto view = make_tensor_ptr(source, {3, 2});
  EXPECT_NE(view->unsafeGetTensorImpl(), source->unsafeGetTensorImpl());
  EXPECT_EQ(view->strides()[0], 2);
  source.reset();
  EXPECT_FALSE(freed);
  EXPECT_EQ(view->const_data_ptr<float>()[5], 6.0f);
  view.reset();
  EXPECT_TRUE(freed);
}

TEST_F(CompatTensorPtrTest, CloneCopiesAndConverts) {
  auto t = make_tensor_ptr({2, 2}, std::vector<int64_t>{1, -2, 3, -4});
  auto c = clone_tensor_ptr(t, ScalarType::Float);
  EXPECT_NE(c->const_data_ptr(), t->const_data_ptr());
  EXPECT_EQ(c->const_data_ptr<float>()[1], -2.0f);
  EXPECT_EQ(c->const_data_ptr<float>()[3], -4.0f);
  auto same = clone_tensor_ptr(*t);
  EXPECT_EQ(same->const_data_ptr<int64_t>()[2], 3);
}

TEST_F(CompatTensorPtrTest, ResizeFollowsDynamismAndCapacity) {
  auto t = make_tensor_ptr({3, 4}, std::vector<float>(12, 1.0f));
  EXPECT_EQ(resize_tensor_ptr(t, {2, 6}), Error::Ok);
  EXPECT_EQ(t->size(1), 6);
  EXPECT_EQ(t->strides()[0], 6);
  EXPECT_EQ(resize_tensor_ptr(t, {2, 2}), Error::Ok);
  EXPECT_EQ(t->numel(), 4);
  EXPECT_EQ(resize_tensor_ptr(t, {4, 4}), Error::NotSupported);  // above capacity
  EXPECT_EQ(resize_tensor_ptr(t, {12}), Error::NotSupported);    // rank change
  float data[4] = {};
  auto fixed =
      make_tensor_ptr({2, 2}, data, {}, {}, ScalarType::Float, TensorShapeDynamism::STATIC);
  EXPECT_EQ(resize_tensor_ptr(fixed, {2, 2}), Error::Ok);
  EXPECT_EQ(resize_tensor_ptr(fixed, {1, 4}), Error::NotSupported);
}

TEST_F(CompatTensorPtrTest, BuilderDeducesTypeAndCarriesDevice) {
  std::vector<uint16_t> values = {1, 2, 3, 4};
  auto t = for_blob(values.data(), {2, 2})
               .device(executorch::aten::Device(executorch::aten::DeviceType::CUDA, 2))
               .make_tensor_ptr();
  EXPECT_EQ(t->scalar_type(), ScalarType::UInt16);
  EXPECT_EQ(t->device().index(), 2);
  auto b = from_blob(values.data(), {4});
  EXPECT_EQ(b->scalar_type(), ScalarType::UInt16);
  EXPECT_EQ(b->const_data_ptr<uint16_t>()[3], 4u);
}

TEST_F(CompatTensorPtrTest, AllocatingMakers) {
  auto h = executorch::extension::full({2, 2}, 2.5, ScalarType::Half);
  EXPECT_EQ(static_cast<float>(h->const_data_ptr<executorch::aten::Half>()[3]), 2.5f);
  auto o = executorch::extension::ones({3}, ScalarType::Long);
  EXPECT_EQ(o->const_data_ptr<int64_t>()[2], 1);
  auto z = executorch::extension::zeros_like(o);
  EXPECT_EQ(z->scalar_type(), ScalarType::Long);
  EXPECT_EQ(z->const_data_ptr<int64_t>()[0], 0);
  auto r = executorch::extension::randint(3, 5, {64}, ScalarType::Char);
  for (int i = 0; i < 64; ++i) {
    EXPECT_GE(r->const_data_ptr<int8_t>()[i], 3);
    EXPECT_LT(r->const_data_ptr<int8_t>()[i], 5);
  }
  auto s = executorch::extension::scalar_tensor(7, ScalarType::Int);
  EXPECT_EQ(s->dim(), 0);
  EXPECT_EQ(s->const_data_ptr<int32_t>()[0], 7);
}

using CompatTensorPtrDeathTest = CompatTensorPtrTest;

TEST_F(CompatTensorPtrDeathTest, ContractViolationsAbortWithAMessage) {
  float data[12] = {};
  EXPECT_DEATH(
      {
        auto t = make_tensor_ptr({2, 5}, std::vector<float>(9));
      },
      "9 values given for a shape of 10 elements");
  EXPECT_DEATH(
      {
        auto t = make_tensor_ptr({3, 4}, data, {1, 0}, {1, 4});
      },
      "stride 1 is 4, but the dim order gives 3");
  EXPECT_DEATH(
      {
        auto t = make_tensor_ptr({3, 4}, data, {2, 1}, {});
      },
      "dim_order is not a permutation");
  EXPECT_DEATH(
      {
        auto t = make_tensor_ptr({3, 4}, data, {}, {1});
      },
      "strides has 1 entries for a tensor of rank 2");
  EXPECT_DEATH({ auto t = make_tensor_ptr(std::vector<float>{1.0f}, ScalarType::Int); },
               "cannot cast Float values to Int");
  EXPECT_DEATH({ auto t = make_tensor_ptr({2}, std::vector<uint8_t>(7)); },
               "7 bytes given for 2 Float elements");
  auto small = make_tensor_ptr({2, 2}, data);
  EXPECT_DEATH({ auto v = make_tensor_ptr(small, {5}); }, "the view has 5 elements");
}

}  // namespace
