#include <gtest/gtest.h>

#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace etr {
namespace {

TEST(ErrorTest, NamesAndStableValues) {
  EXPECT_STREQ(to_string(Error::Ok), "Ok");
  EXPECT_STREQ(to_string(Error::InvalidProgram), "InvalidProgram");
  EXPECT_STREQ(to_string(Error::OperatorMissing), "OperatorMissing");
  EXPECT_EQ(static_cast<int>(Error::InvalidProgram), 0x23);
  EXPECT_EQ(static_cast<int>(Error::OperatorMissing), 0x14);
  EXPECT_STREQ(to_string(static_cast<Error>(0x7f)), "Unknown");
}

TEST(ResultTest, ValueAndError) {
  Result<int> ok(5);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 5);
  Result<int> bad(Error::NotFound);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::NotFound);
  Result<int> ok_as_error(Error::Ok);  // an Ok "error" is a bug and becomes Internal
  EXPECT_EQ(ok_as_error.error(), Error::Internal);
}

TEST(ScalarTypeTest, ElementSizesMatchTheFormat) {
  EXPECT_EQ(element_size(ScalarType::Byte), 1u);
  EXPECT_EQ(element_size(ScalarType::Int), 4u);
  EXPECT_EQ(element_size(ScalarType::Long), 8u);
  EXPECT_EQ(element_size(ScalarType::Half), 2u);
  EXPECT_EQ(element_size(ScalarType::ComplexHalf), 4u);
  EXPECT_EQ(element_size(ScalarType::ComplexFloat), 8u);
  EXPECT_EQ(element_size(ScalarType::ComplexDouble), 16u);
  EXPECT_EQ(tensor_data_alignment(ScalarType::ComplexDouble), 8u);
  EXPECT_TRUE(is_complex(ScalarType::ComplexHalf));
  EXPECT_TRUE(is_complex(ScalarType::ComplexDouble));
  EXPECT_FALSE(is_complex(ScalarType::Double));
  EXPECT_FALSE(is_floating(ScalarType::ComplexFloat));
  EXPECT_EQ(element_size(ScalarType::Bool), 1u);
  EXPECT_EQ(element_size(ScalarType::BFloat16), 2u);
  EXPECT_EQ(element_size(ScalarType::UInt64), 8u);
  EXPECT_EQ(element_size(static_cast<ScalarType>(30)), 0u);
  EXPECT_EQ(element_size(static_cast<ScalarType>(-1)), 0u);
  EXPECT_FALSE(is_valid(static_cast<ScalarType>(42)));
}

TEST(TensorTest, StridesFollowDimOrder) {
  int32_t sizes[] = {2, 3, 4, 5};
  uint8_t order[] = {0, 2, 3, 1};
  int64_t strides[4];
  float data[120];
  Tensor t(ScalarType::Float, 4, sizes, order, strides, data);
  EXPECT_EQ(t.stride(0), 60);
  EXPECT_EQ(t.stride(1), 1);
  EXPECT_EQ(t.stride(2), 15);
  EXPECT_EQ(t.stride(3), 3);
  EXPECT_EQ(t.numel(), 120);
  EXPECT_EQ(t.nbytes(), 480u);
  EXPECT_FALSE(t.is_contiguous_order());
}

TEST(TensorTest, ZeroSizedDimKeepsStride) {
  int32_t sizes[] = {2, 0, 3};
  uint8_t order[] = {0, 1, 2};
  int64_t strides[3];
  Tensor t(ScalarType::Float, 3, sizes, order, strides, nullptr);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.stride(2), 1);
  EXPECT_EQ(t.stride(1), 3);
  EXPECT_EQ(t.stride(0), 3);
}

TEST(TensorTest, OfficialOrderConstructorViewsGivenStrides) {
  // Sizes {2, 3, 4} laid out with dim 1 innermost: order {0, 2, 1}.
  int32_t sizes[] = {2, 3, 4};
  uint8_t order[] = {0, 2, 1};
  int64_t strides[] = {12, 1, 3};
  float data[24];
  Tensor t(ScalarType::Float, 3, sizes, data, order, strides, ShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.capacity_bytes(), 96u);
  EXPECT_EQ(t.strides().data(), strides);  // viewed, not copied
  EXPECT_EQ(t.sizes().data(), sizes);
  EXPECT_EQ(t.mutable_data(), data);
  EXPECT_EQ(t.shape_dynamism(), ShapeDynamism::DynamicBound);

  // Strides that are not the order's dense strides leave the tensor empty.
  int64_t wrong[] = {12, 4, 1};
  Tensor bad(ScalarType::Float, 3, sizes, data, order, wrong);
  EXPECT_EQ(bad.dim(), 0u);
  EXPECT_EQ(bad.numel(), 0);
  EXPECT_EQ(bad.capacity_bytes(), 0u);
  EXPECT_EQ(bad.mutable_data(), nullptr);
  // As do a missing dim order and a rank beyond the limit.
  Tensor no_order(ScalarType::Float, 3, sizes, data, nullptr, strides);
  EXPECT_EQ(no_order.numel(), 0);
  Tensor too_big(ScalarType::Float, static_cast<ptrdiff_t>(kTensorMaxDim) + 1, sizes, data, order,
                 strides);
  EXPECT_EQ(too_big.numel(), 0);
  // A rank-0 tensor needs no arrays and holds one element.
  Tensor scalar(ScalarType::Float, 0, nullptr, data);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.nbytes(), 4u);
}

TEST(TensorTest, ComputeStridesRejectsBadInput) {
  int32_t sizes[] = {2, 3};
  uint8_t dup[] = {0, 0};
  int64_t strides[2];
  int64_t numel = 0;
  EXPECT_FALSE(compute_strides({sizes, 2}, {dup, 2}, strides, &numel));
  int32_t neg[] = {2, -1};
  uint8_t order[] = {0, 1};
  EXPECT_FALSE(compute_strides({neg, 2}, {order, 2}, strides, &numel));
  int32_t huge[] = {INT32_MAX, INT32_MAX, INT32_MAX};
  uint8_t o3[] = {0, 1, 2};
  int64_t s3[3];
  EXPECT_FALSE(compute_strides({huge, 3}, {o3, 3}, s3, &numel));
}

TEST(TensorTest, ResizeStaticAndBounded) {
  int32_t sizes[] = {4, 3};
  uint8_t order[] = {0, 1};
  int64_t strides[2];
  float data[12];
  Tensor fixed(ScalarType::Float, 2, sizes, order, strides, data);
  const int64_t same[] = {4, 3};
  const int64_t smaller[] = {2, 3};
  EXPECT_EQ(resize_tensor(fixed, Span<const int64_t>(same)), Error::Ok);
  EXPECT_EQ(resize_tensor(fixed, Span<const int64_t>(smaller)), Error::NotSupported);

  Tensor dyn(ScalarType::Float, 2, sizes, order, strides, data, ShapeDynamism::DynamicBound);
  EXPECT_EQ(resize_tensor(dyn, Span<const int64_t>(smaller)), Error::Ok);
  EXPECT_EQ(dyn.numel(), 6);
  EXPECT_EQ(dyn.size(0), 2);
  const int64_t bigger[] = {5, 3};
  EXPECT_EQ(resize_tensor(dyn, Span<const int64_t>(bigger)), Error::InvalidArgument);
  const int64_t wrong_rank[] = {6};
  EXPECT_EQ(resize_tensor(dyn, Span<const int64_t>(wrong_rank)), Error::InvalidArgument);
  const int64_t negative[] = {-1, 3};
  EXPECT_EQ(resize_tensor(dyn, Span<const int64_t>(negative)), Error::InvalidArgument);
}

TEST(MemoryAllocatorTest, AlignsAndRunsOut) {
  alignas(64) uint8_t pool[256];
  MemoryAllocator a(pool + 1, 200);
  void* p = a.allocate(10, 16);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
  EXPECT_EQ(a.allocate(1000), nullptr);
  EXPECT_EQ(a.allocate(8, 3), nullptr);                          // not a power of two
  EXPECT_EQ(a.allocate_array<uint64_t>(SIZE_MAX / 4), nullptr);  // overflow
  a.reset();
  EXPECT_EQ(a.used(), 0u);
  EXPECT_NE(a.allocate(150, 1), nullptr);
  MemoryAllocator empty(nullptr, 100);
  EXPECT_EQ(empty.allocate(1), nullptr);
}

TEST(HierarchicalAllocatorTest, BoundsChecked) {
  uint8_t b0[64];
  uint8_t b1[32];
  Span<uint8_t> spans[] = {{b0, sizeof(b0)}, {b1, sizeof(b1)}};
  HierarchicalAllocator h(Span<Span<uint8_t>>(spans, 2));
  EXPECT_EQ(h.offset_address(0, 16, 48), b0 + 16);
  EXPECT_EQ(h.offset_address(0, 16, 49), nullptr);
  EXPECT_EQ(h.offset_address(1, 0, 32), b1);
  EXPECT_EQ(h.offset_address(2, 0, 1), nullptr);
  EXPECT_EQ(h.offset_address(0, UINT64_MAX, 2), nullptr);
}

TEST(CheckedMathTest, DetectsOverflow) {
  size_t out = 0;
  EXPECT_FALSE(checked_mul(SIZE_MAX, 2, &out));
  EXPECT_TRUE(checked_mul(3, 4, &out));
  EXPECT_EQ(out, 12u);
  EXPECT_FALSE(checked_add(SIZE_MAX, 1, &out));
  EXPECT_TRUE(range_within(10, 5, 15));
  EXPECT_FALSE(range_within(10, 6, 15));
  EXPECT_FALSE(range_within(UINT64_MAX, 2, 15));
}

TEST(EValueTest, BoxedListsReadCurrentValues) {
  EValue a(int64_t{3});
  EValue b(int64_t{4});
  EValue* items[] = {&a, &b};
  int64_t scratch[2];
  EValue list(BoxedIntList(items, scratch, 2));
  ASSERT_TRUE(list.is_int_list());
  EXPECT_EQ(list.to_int_list()[1], 4);
  b.set_int(9);  // a value computed at run time flows into the list
  EXPECT_EQ(list.to_int_list()[1], 9);

  int32_t sizes[] = {1};
  uint8_t order[] = {0};
  int64_t strides[1];
  float x = 1.f;
  Tensor t(ScalarType::Float, 1, sizes, order, strides, &x);
  EValue tv(&t);
  EValue none;
  EValue* titems[] = {&tv, &none};
  EValue opt(BoxedTensorList(titems, 2), true);
  EXPECT_TRUE(opt.is_optional_tensor_list());
  EXPECT_EQ(opt.to_tensor_list().at(0), &t);
  EXPECT_EQ(opt.to_tensor_list().at(1), nullptr);
  EXPECT_STREQ(to_string(Tag::OptionalTensorList), "OptionalTensorList");
}

}  // namespace
}  // namespace etr
