// The official EValue layout (extension/compat): code that reads or writes
// the tag and payload union directly, BoxedEvalueList as upstream builds it,
// and values this runtime makes sharing (not copying) what they point to.
#include <gtest/gtest.h>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/platform/runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

using executorch::aten::ArrayRef;
using executorch::aten::Tensor;
using executorch::extension::make_tensor_ptr;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::EValue;
using executorch::runtime::Tag;

namespace {

class CompatEValueTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { executorch::runtime::runtime_init(); }
};

TEST_F(CompatEValueTest, ScalarsLiveInThePayloadUnion) {
  EValue i(int64_t{-7});
  EXPECT_EQ(i.tag, Tag::Int);
  EXPECT_EQ(i.payload.copyable_union.as_int, -7);
  EValue d(2.5);
  EXPECT_EQ(d.payload.copyable_union.as_double, 2.5);

  // Code written for the official layout sets a value by hand.
  EValue e;
  e.tag = Tag::Double;
  e.payload.copyable_union.as_double = -1.25;
  EXPECT_TRUE(e.isDouble());
  EXPECT_EQ(e.toDouble(), -1.25);
  EValue copy = e;
  EXPECT_EQ(copy.toDouble(), -1.25);

  ArrayRef<char> chars("hello", 5);
  e.tag = Tag::String;
  e.payload.copyable_union.as_string_ptr = &chars;
  EXPECT_EQ(e.toString(), "hello");
}

TEST_F(CompatEValueTest, BoxedListReadsItsItemsWhenAsked) {
  EValue items[3] = {EValue(int64_t{4}), EValue(int64_t{5}), EValue(int64_t{6})};
  EValue* wrapped[3] = {&items[0], &items[1], &items[2]};
  int64_t unwrapped[3] = {0, 0, 0};
  BoxedEvalueList<int64_t> list(wrapped, unwrapped, 3);
  EValue v(&list);
  ASSERT_TRUE(v.isIntList());
  EXPECT_EQ(v.payload.copyable_union.as_int_list_ptr, &list);

  // An item changed after the list was built is seen by the next read.
  items[1] = EValue(int64_t{50});
  ArrayRef<int64_t> got = v.toIntList();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got.data(), unwrapped);
  EXPECT_EQ(got[0], 4);
  EXPECT_EQ(got[1], 50);
  EXPECT_EQ(got[2], 6);
}

TEST_F(CompatEValueTest, TensorListItemsViewTheCallersTensors) {
  auto a = make_tensor_ptr({2}, std::vector<float>{1.0f, 2.0f});
  auto b = make_tensor_ptr({3}, std::vector<float>{3.0f, 4.0f, 5.0f});
  EValue items[2] = {EValue(a), EValue(b)};
  EValue* wrapped[2] = {&items[0], &items[1]};
  Tensor unwrapped[2];
  BoxedEvalueList<Tensor> list(wrapped, unwrapped, 2);
  EValue v(&list);
  ArrayRef<Tensor> got = v.toTensorList();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].const_data_ptr(), a->const_data_ptr());
  EXPECT_EQ(got[1].const_data_ptr(), b->const_data_ptr());
  EXPECT_EQ(got[1].const_data_ptr<float>()[2], 5.0f);

  std::optional<Tensor> maybe[2];
  EValue opt_items[2] = {EValue(), EValue(a)};
  EValue* opt_wrapped[2] = {&opt_items[0], &opt_items[1]};
  BoxedEvalueList<std::optional<Tensor>> opt_list(opt_wrapped, maybe, 2);
  EValue o(&opt_list);
  auto opt = o.toListOptionalTensor();
  ASSERT_EQ(opt.size(), 2u);
  EXPECT_FALSE(opt[0].has_value());
  ASSERT_TRUE(opt[1].has_value());
  EXPECT_EQ(opt[1]->const_data_ptr(), a->const_data_ptr());
}

TEST_F(CompatEValueTest, CopiesShareWhatTheRuntimeMade) {
  // A string this runtime copies in is kept alive by every copy.
  std::unique_ptr<EValue> original = std::make_unique<EValue>("abc", 3);
  EValue copy = *original;
  const char* chars = original->toString().data();
  original.reset();
  EXPECT_EQ(copy.toString(), "abc");
  EXPECT_EQ(copy.toString().data(), chars);

  // A TensorPtr's tensor is shared by the EValue and its copies.
  auto t = make_tensor_ptr({2, 2}, std::vector<float>{1, 2, 3, 4});
  EValue tv(t);
  EValue moved = std::move(tv);
  EValue copied = moved;
  EXPECT_EQ(copied.toTensor().const_data_ptr(), t->const_data_ptr());
  EXPECT_EQ(copied.payload.as_tensor.const_data_ptr(), t->const_data_ptr());
  EXPECT_EQ(copied.toTensor().numel(), 4);
}

TEST_F(CompatEValueTest, ModuleOutputsShareOneTensor) {
  executorch::extension::Module module(std::string(ETR_SOURCE_DIR) + "/test/models/add_mul.pte");
  const std::vector<std::vector<int32_t>> shapes = {{2, 3, 4}, {3, 1}, {4}, {1, 3, 4}};
  std::vector<EValue> inputs;
  for (const auto& shape : shapes) {
    int32_t n = 1;
    for (int32_t s : shape) n *= s;
    inputs.emplace_back(make_tensor_ptr(shape, std::vector<float>(n, 1.5f)));
  }
  auto out = module.forward(inputs);
  ASSERT_TRUE(out.ok());
  ASSERT_FALSE(out->empty());
  const EValue& first = (*out)[0];
  ASSERT_TRUE(first.isTensor());
  EValue copy = first;
  EXPECT_EQ(copy.toTensor().unsafeGetTensorImpl(), first.toTensor().unsafeGetTensorImpl());
  EXPECT_EQ(copy.toTensor().const_data_ptr(), first.toTensor().const_data_ptr());
}

}  // namespace
