// MethodMeta::attribute_value_index and Method::input_set on
// official_module/ModuleStateful.pte (test/models/export_official_module.py):
// forward(x) = x + state after state += 1, where "state" is an int32 [1]
// buffer the program names and does not plan, so the caller binds it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/tensor/host_tensor.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "test/runtime/runtime_test_util.h"

namespace etr {
namespace {

using testing::model_path;
using testing::read_aligned_file;
using testing::TestMemory;

TEST(AttributeTest, NamedStateIsFoundBoundAndUpdated) {
  if (default_kernel_registry().num_kernels() == 0) {
    ASSERT_EQ(register_kernels(portable_kernel_library()), Error::Ok);
    ASSERT_EQ(register_kernels(prim_ops_library()), Error::Ok);
  }
  auto bytes = read_aligned_file(model_path("official_module/ModuleStateful.pte"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());

  EXPECT_EQ(meta->attribute_value_index("stat", 4).error(), Error::NotFound);
  EXPECT_EQ(meta->attribute_value_index("states", 6).error(), Error::NotFound);
  EXPECT_EQ(meta->attribute_value_index(nullptr, 0).error(), Error::NotFound);
  EXPECT_EQ(meta->attribute_value_index(nullptr, 5).error(), Error::InvalidArgument);
  Result<size_t> index = meta->attribute_value_index("state", 5);
  ASSERT_TRUE(index.ok());

  TestMemory mem(*meta);
  Result<Method> method = program->load_method("forward", mem.manager());
  ASSERT_TRUE(method.ok());
  ASSERT_LT(*index, method->num_values());
  const EValue& state = method->value(*index);
  ASSERT_TRUE(state.is_tensor());
  EXPECT_EQ(state.to_tensor().dtype(), ScalarType::Int);
  EXPECT_EQ(state.to_tensor().const_data(), nullptr);

  // input_set: false until the tensor input is set, false out of range.
  EXPECT_FALSE(method->input_set(0));
  EXPECT_FALSE(method->input_set(1));
  int32_t data = 41;
  const_cast<Tensor&>(state.to_tensor()).set_data(&data, sizeof(data));
  Result<HostTensor> x = HostTensor::from_values<float>({1}, {0.25f});
  ASSERT_TRUE(x.ok());
  ASSERT_EQ(method->set_input(x->tensor(), 0), Error::Ok);
  EXPECT_TRUE(method->input_set(0));
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(data, 42);
  EXPECT_FLOAT_EQ(method->get_output(0).to_tensor().const_data_ptr<float>()[0], 42.25f);
}

}  // namespace
}  // namespace etr
