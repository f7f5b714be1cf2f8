// The official TensorImpl constructor (extension/compat) and the official
// tensor utilities added with it (tensor_util.h), through the official API
// only: tensors built the way upstream's TensorFactory builds them run
// test/models/add_mul.pte and give PyTorch's outputs.
#include <gtest/gtest.h>

#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "extension/tensor/npy.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/add_mul/";

// The arrays a TensorImpl views, owned by the test as upstream's
// TensorFactory owns them: the impl copies none of them.
struct Owned {
  std::vector<int32_t> sizes;
  std::vector<float> data;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::unique_ptr<TensorImpl> impl;
};

// A contiguous float TensorImpl over `sizes` and `data`, with the strides
// computed here in 32 bits as the official callers do.
std::unique_ptr<Owned> make_impl(std::vector<int32_t> sizes, std::vector<float> data) {
  auto o = std::make_unique<Owned>();
  o->sizes = std::move(sizes);
  o->data = std::move(data);
  const size_t dim = o->sizes.size();
  o->dim_order.resize(dim);
  o->strides.resize(dim);
  int32_t running = 1;
  for (size_t i = dim; i-- > 0;) {
    o->dim_order[i] = static_cast<uint8_t>(i);
    o->strides[i] = running;
    running *= o->sizes[i];
  }
  o->impl = std::make_unique<TensorImpl>(ScalarType::Float, static_cast<ssize_t>(dim),
                                         o->sizes.data(), o->data.data(), o->dim_order.data(),
                                         o->strides.data(), TensorShapeDynamism::STATIC);
  return o;
}

std::unique_ptr<Owned> load(const std::string& name) {
  auto t = etr::read_npy(kDir + name);
  EXPECT_TRUE(t.ok()) << name;
  if (!t.ok()) return nullptr;
  const etr::Tensor& v = t->tensor();
  const float* p = v.const_data_ptr<float>();
  return make_impl(std::vector<int32_t>(v.sizes().begin(), v.sizes().end()),
                   std::vector<float>(p, p + v.numel()));
}

class CompatTensorImplTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
};

TEST_F(CompatTensorImplTest, OfficiallyBuiltInputsGivePyTorchOutputs) {
  std::vector<std::unique_ptr<Owned>> in;
  std::vector<EValue> inputs;
  for (int i = 0; i < 4; ++i) {
    in.push_back(load("a_in" + std::to_string(i) + ".npy"));
    ASSERT_NE(in.back(), nullptr);
    inputs.emplace_back(Tensor(in.back()->impl.get()));
  }
  Module module(std::string(ETR_SOURCE_DIR) + "/test/models/add_mul.pte");
  auto out = module.forward(inputs);
  ASSERT_EQ(out.error(), Error::Ok);
  ASSERT_EQ(out->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    auto want = load("a_out" + std::to_string(i) + ".npy");
    ASSERT_NE(want, nullptr);
    const Tensor& got = (*out)[i].toTensor();
    ASSERT_EQ(got.numel(), static_cast<ptrdiff_t>(want->data.size()));
    for (ptrdiff_t k = 0; k < got.numel(); ++k) {
      EXPECT_NEAR(got.const_data_ptr<float>()[k], want->data[k], 1e-5) << "output " << i;
    }
  }
}

TEST_F(CompatTensorImplTest, ViewsTheCallersArraysWithoutCopying) {
  auto o = make_impl({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor t(o->impl.get());
  EXPECT_EQ(t.sizes().data(), o->sizes.data());
  EXPECT_EQ(t.dim_order().data(), o->dim_order.data());
  EXPECT_EQ(t.const_data_ptr<float>(), o->data.data());
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  ASSERT_EQ(t.strides().size(), 2u);
  EXPECT_EQ(t.strides()[0], 3);
  EXPECT_EQ(t.strides()[1], 1);
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::STATIC);
}

TEST_F(CompatTensorImplTest, ChannelsLastStridesAreKept) {
  // Sizes {1, 2, 2, 3} in NHWC order: strides {12, 1, 6, 2}.
  std::vector<int32_t> sizes = {1, 2, 2, 3};
  std::vector<uint8_t> order = {0, 2, 3, 1};
  std::vector<int32_t> strides = {12, 1, 6, 2};
  std::vector<float> data(12, 0.f);
  TensorImpl impl(ScalarType::Float, 4, sizes.data(), data.data(), order.data(), strides.data());
  Tensor t(&impl);
  EXPECT_EQ(t.numel(), 12);
  EXPECT_EQ(std::vector<int32_t>(t.strides().begin(), t.strides().end()), strides);
  EXPECT_FALSE(executorch::runtime::tensor_is_contiguous(t));
  EXPECT_FALSE(executorch::runtime::tensor_is_default_dim_order(t));
}

TEST_F(CompatTensorImplTest, StridesThatAreNotTheDimOrdersAreRefused) {
  std::vector<int32_t> sizes = {2, 3};
  std::vector<uint8_t> order = {0, 1};
  std::vector<int32_t> strides = {1, 2};  // column-major, but the order says row-major
  std::vector<float> data(6, 0.f);
  TensorImpl impl(ScalarType::Float, 2, sizes.data(), data.data(), order.data(), strides.data());
  EXPECT_EQ(impl.numel(), 0);
  EXPECT_EQ(impl.dim(), 0u);
  EXPECT_EQ(impl.capacity_bytes(), 0u);
  // A rank above the limit, or a missing dim order, is refused the same way.
  std::vector<int32_t> many(20, 1);
  TensorImpl too_many(ScalarType::Float, 20, many.data(), data.data());
  EXPECT_EQ(too_many.numel(), 0);
  TensorImpl no_order(ScalarType::Float, 2, sizes.data(), data.data());
  EXPECT_EQ(no_order.numel(), 0);
}

TEST_F(CompatTensorImplTest, ZeroDimTensorNeedsNoArrays) {
  float value = 2.5f;
  TensorImpl impl(ScalarType::Float, 0, nullptr, &value);
  Tensor t(&impl);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  double out = 0;
  EXPECT_TRUE(executorch::runtime::extract_scalar_tensor(t, &out));
  EXPECT_EQ(out, 2.5);
  int64_t as_int = 0;
  EXPECT_FALSE(executorch::runtime::extract_scalar_tensor(t, &as_int));  // float into int
}

TEST_F(CompatTensorImplTest, ExtractScalarChecksRange) {
  std::vector<int32_t> sizes = {1};
  std::vector<uint8_t> order = {0};
  std::vector<int32_t> strides = {1};
  int32_t big = 300;
  TensorImpl impl(ScalarType::Int, 1, sizes.data(), &big, order.data(), strides.data());
  Tensor t(&impl);
  int8_t small = 0;
  EXPECT_FALSE(executorch::runtime::extract_scalar_tensor(t, &small));
  int16_t wide = 0;
  EXPECT_TRUE(executorch::runtime::extract_scalar_tensor(t, &wide));
  EXPECT_EQ(wide, 300);
  float f = 0;
  EXPECT_TRUE(executorch::runtime::extract_scalar_tensor(t, &f));
  EXPECT_EQ(f, 300.f);
  bool b = false;
  EXPECT_FALSE(executorch::runtime::extract_scalar_tensor(t, &b));  // Int is not Bool

  double huge = 1e300;
  TensorImpl dimpl(ScalarType::Double, 1, sizes.data(), &huge, order.data(), strides.data());
  EXPECT_FALSE(executorch::runtime::extract_scalar_tensor(Tensor(&dimpl), &f));
  double inf = INFINITY;
  TensorImpl iimpl(ScalarType::Double, 1, sizes.data(), &inf, order.data(), strides.data());
  EXPECT_TRUE(executorch::runtime::extract_scalar_tensor(Tensor(&iimpl), &f));
  EXPECT_TRUE(std::isinf(f));
}

TEST_F(CompatTensorImplTest, ShapeDtypeAndStrideComparisons) {
  auto a = make_impl({2, 3}, std::vector<float>(6, 1.f));
  auto b = make_impl({2, 3}, std::vector<float>(6, 2.f));
  auto c = make_impl({3, 2}, std::vector<float>(6, 3.f));
  Tensor ta(a->impl.get()), tb(b->impl.get()), tc(c->impl.get());
  using namespace executorch::runtime;
  EXPECT_TRUE(tensors_have_same_shape_and_dtype(ta, tb));
  EXPECT_FALSE(tensors_have_same_shape_and_dtype(ta, tb, tc));
  EXPECT_TRUE(tensors_have_same_strides(ta, tb));
  EXPECT_FALSE(tensors_have_same_strides(ta, tc));  // {3, 1} against {2, 1}
  EXPECT_TRUE(tensors_have_same_size_at_dims(ta, 0, tc, 1));
  EXPECT_FALSE(tensors_have_same_size_at_dims(ta, 0, tc, 0));
  EXPECT_FALSE(tensors_have_same_size_at_dims(ta, 2, tc, 0));  // no dim 2
  EXPECT_TRUE(tensor_is_rank(ta, 2));
  EXPECT_FALSE(tensor_is_rank(ta, 3));
  ET_CHECK_SAME_SHAPE_AND_DTYPE2(ta, tb);
  ET_CHECK_SAME_STRIDES2(ta, tb);
  ET_CHECK_CONTIGUOUS(ta);
  EXPECT_DEATH(ET_CHECK_SAME_SHAPE2(ta, tc), "");
  EXPECT_DEATH(ET_CHECK_SAME_STRIDES3(ta, tb, tc), "");
}

TEST_F(CompatTensorImplTest, ScalarTypeTablesMatchTheDtypes) {
  using executorch::runtime::ScalarTypeToCppType;
  static_assert(std::is_same<ScalarTypeToCppType<ScalarType::Long>::type, int64_t>::value, "");
  static_assert(std::is_same<ScalarTypeToCppType<ScalarType::Bool>::type, bool>::value, "");
  static_assert(
      std::is_same<ScalarTypeToCppType<ScalarType::QInt8>::type::underlying, int8_t>::value, "");
  int count = 0;
  size_t bytes = 0;
#define ETR_TEST_COUNT(ctype, dtype) \
  ++count;                           \
  bytes += sizeof(ctype);            \
  EXPECT_EQ(executorch::runtime::elementSize(ScalarType::dtype), sizeof(ctype));
  ET_FORALL_REAL_TYPES(ETR_TEST_COUNT)
#undef ETR_TEST_COUNT
  EXPECT_EQ(count, 7);
  EXPECT_EQ(bytes, 1u + 1 + 2 + 4 + 8 + 4 + 8);
}

// Sums a tensor's elements as double through ET_SWITCH_REALHBF16_TYPES.
double sum_as_double(const Tensor& t, executorch::runtime::KernelRuntimeContext& ctx, int* calls) {
  double sum = 0;
  ET_SWITCH_REALHBF16_TYPES(t.scalar_type(), ctx, "sum_as_double", CTYPE, [&]() {
    ++*calls;
    const CTYPE* p = t.const_data_ptr<CTYPE>();
    for (ptrdiff_t i = 0; i < t.numel(); ++i) sum += static_cast<double>(p[i]);
  });
  return sum;
}

TEST_F(CompatTensorImplTest, SwitchMacrosDispatchOnTheDtype) {
  std::vector<int32_t> sizes = {3};
  std::vector<uint8_t> order = {0};
  std::vector<int32_t> strides = {1};
  executorch::runtime::KernelRuntimeContext ctx;
  int calls = 0;

  std::vector<int64_t> longs = {1, -2, 40};
  TensorImpl li(ScalarType::Long, 1, sizes.data(), longs.data(), order.data(), strides.data());
  EXPECT_EQ(sum_as_double(Tensor(&li), ctx, &calls), 39.0);
  std::vector<executorch::aten::Half> halves = {
      executorch::aten::Half(0.5f), executorch::aten::Half(1.5f), executorch::aten::Half(-4.f)};
  TensorImpl hi(ScalarType::Half, 1, sizes.data(), halves.data(), order.data(), strides.data());
  EXPECT_EQ(sum_as_double(Tensor(&hi), ctx, &calls), -2.0);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(ctx.failure_state(), Error::Ok);

  // Bool is outside REALHBF16: the context fails and the lambda is not called.
  bool flags[3] = {true, false, true};
  TensorImpl bi(ScalarType::Bool, 1, sizes.data(), flags, order.data(), strides.data());
  EXPECT_EQ(sum_as_double(Tensor(&bi), ctx, &calls), 0.0);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);

  // The switch returns what the lambda returns.
  executorch::runtime::KernelRuntimeContext ctx2;
  const size_t bytes = ET_SWITCH_TWO_TYPES(Int, Double, ScalarType::Double, ctx2, "size", T,
                                           [&]() { return sizeof(T); });
  EXPECT_EQ(bytes, 8u);
  const bool is_signed = ET_SWITCH_INT_TYPES(ScalarType::Byte, ctx2, "sign", T,
                                             [&]() { return std::is_signed<T>::value; });
  EXPECT_FALSE(is_signed);
  EXPECT_EQ(ctx2.failure_state(), Error::Ok);
  int seen = 0;
  ET_SWITCH_ALL_TYPES(ScalarType::QUInt8, ctx2, "all", T, [&]() {
    seen = std::is_same<T, executorch::runtime::etensor::quint8>::value ? 1 : 2;
  });
  EXPECT_EQ(seen, 1);
  ET_SWITCH_SCALAR_OBJ_TYPES(ScalarType::Float, ctx2, "obj", T, [&]() { seen = 3; });
  EXPECT_EQ(seen, 1);  // Float is not a Scalar's dtype
  EXPECT_EQ(ctx2.failure_state(), Error::InvalidArgument);
}

}  // namespace
