// Method::set_output_data_ptr on memory-planned outputs: the output moves to
// the caller's buffer (checked for size and alignment), kernels write it
// there, a program's state survives the move, and outputs that cannot move
// (an input returned as an output) say why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "test/runtime/runtime_test_util.h"

namespace etr {
namespace {

using testing::AlignedBytes;
using testing::model_path;
using testing::read_aligned_file;
using testing::TestMemory;

void register_once() {
  if (default_kernel_registry().num_kernels() == 0) {
    ASSERT_EQ(register_kernels(portable_kernel_library()), Error::Ok);
    ASSERT_EQ(register_kernels(prim_ops_library()), Error::Ok);
  }
}

// A program, its memory and its loaded "forward".
struct Loaded {
  AlignedBytes bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::unique_ptr<Program> program;
  std::unique_ptr<TestMemory> memory;
  std::unique_ptr<Method> method;
};

std::unique_ptr<Loaded> load_forward(const std::string& name) {
  register_once();
  auto l = std::make_unique<Loaded>();
  l->bytes = read_aligned_file(model_path(name));
  l->loader = std::make_unique<BufferDataLoader>(l->bytes.data(), l->bytes.size());
  Result<Program> p = Program::load(l->loader.get());
  EXPECT_TRUE(p.ok()) << name;
  if (!p.ok()) return nullptr;
  l->program = std::make_unique<Program>(std::move(*p));
  Result<MethodMeta> meta = l->program->method_meta("forward");
  EXPECT_TRUE(meta.ok());
  if (!meta.ok()) return nullptr;
  l->memory = std::make_unique<TestMemory>(*meta);
  Result<Method> m = l->program->load_method("forward", l->memory->manager());
  EXPECT_TRUE(m.ok()) << name << ": " << to_string(m.error());
  if (!m.ok()) return nullptr;
  l->method = std::make_unique<Method>(std::move(*m));
  return l;
}

HostTensor filled(const std::vector<int32_t>& sizes, float fill) {
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  Result<HostTensor> t = HostTensor::from_values<float>(sizes, std::vector<float>(n, fill));
  EXPECT_TRUE(t.ok());
  return std::move(*t);
}

// no_constants.pte computes x * y + x on [3, 4] inputs (test/models/INFO.md).
TEST(SetOutputTest, PlannedOutputMovesToTheCallersBuffer) {
  auto l = load_forward("no_constants.pte");
  ASSERT_NE(l, nullptr);
  Method& m = *l->method;
  std::vector<float> buffer(12, std::nanf(""));
  const void* planned = m.get_output(0).to_tensor().const_data();
  ASSERT_NE(planned, nullptr);

  // Too small, null and misaligned buffers are refused; nothing moves.
  EXPECT_EQ(m.set_output_data_ptr(buffer.data(), 47, 0), Error::InvalidArgument);
  EXPECT_EQ(m.set_output_data_ptr(nullptr, 48, 0), Error::InvalidArgument);
  std::vector<uint8_t> bytes(64);
  EXPECT_EQ(m.set_output_data_ptr(bytes.data() + 1, 48, 0), Error::InvalidArgument);
  EXPECT_EQ(m.set_output_data_ptr(buffer.data(), 48, 1), Error::InvalidArgument);
  EXPECT_EQ(m.get_output(0).to_tensor().const_data(), planned);

  ASSERT_EQ(m.set_output_data_ptr(buffer.data(), buffer.size() * sizeof(float), 0), Error::Ok);
  EXPECT_EQ(m.get_output(0).to_tensor().const_data(), buffer.data());
  HostTensor x = filled({3, 4}, 2.0f);
  HostTensor y = filled({3, 4}, 3.0f);
  ASSERT_EQ(m.set_input(x.tensor(), 0), Error::Ok);
  ASSERT_EQ(m.set_input(y.tensor(), 1), Error::Ok);
  ASSERT_EQ(m.execute(), Error::Ok);
  for (float v : buffer) EXPECT_FLOAT_EQ(v, 2.0f * 3.0f + 2.0f);

  // The next run writes the same buffer.
  HostTensor x2 = filled({3, 4}, -1.5f);
  ASSERT_EQ(m.set_input(x2.tensor(), 0), Error::Ok);
  ASSERT_EQ(m.set_input(y.tensor(), 1), Error::Ok);
  ASSERT_EQ(m.execute(), Error::Ok);
  for (float v : buffer) EXPECT_FLOAT_EQ(v, -1.5f * 3.0f - 1.5f);

  // A moved output may be given another buffer; the first one is left alone.
  std::vector<float> other(12, std::nanf(""));
  ASSERT_EQ(m.set_output_data_ptr(other.data(), other.size() * sizeof(float), 0), Error::Ok);
  ASSERT_EQ(m.set_input(x.tensor(), 0), Error::Ok);
  ASSERT_EQ(m.set_input(y.tensor(), 1), Error::Ok);
  ASSERT_EQ(m.execute(), Error::Ok);
  for (float v : other) EXPECT_FLOAT_EQ(v, 2.0f * 3.0f + 2.0f);
  for (float v : buffer) EXPECT_FLOAT_EQ(v, -1.5f * 3.0f - 1.5f);
}

// mutable_buffer.pte keeps a buffer across runs (count += x; return count * 2):
// with its output in the caller's buffer, the third run still gives PyTorch's
// third output.
TEST(SetOutputTest, ProgramStateSurvivesTheMove) {
  auto l = load_forward("mutable_buffer.pte");
  ASSERT_NE(l, nullptr);
  Method& m = *l->method;
  Result<HostTensor> in = read_npy(model_path("mutable_buffer/run3_in0.npy"));
  Result<HostTensor> want = read_npy(model_path("mutable_buffer/run3_out0.npy"));
  ASSERT_TRUE(in.ok() && want.ok());
  std::vector<float> buffer(6, std::nanf(""));
  ASSERT_EQ(m.set_output_data_ptr(buffer.data(), buffer.size() * sizeof(float), 0), Error::Ok);
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(m.set_input(in->tensor(), 0), Error::Ok);
    ASSERT_EQ(m.execute(), Error::Ok);
  }
  const float* expected = want->tensor().const_data_ptr<float>();
  ASSERT_EQ(want->tensor().numel(), 6);
  float max_err = 0.0f;
  for (size_t i = 0; i < buffer.size(); ++i) {
    max_err = std::fmax(max_err, std::fabs(buffer[i] - expected[i]));
  }
  EXPECT_LE(max_err, 1e-5f) << "max error " << max_err;
}

// ReturnsInput.pte returns (x, x + y): output 0 is input 0 itself and stays
// where it is; output 1 moves.
TEST(SetOutputTest, AnInputReturnedAsOutputCannotMove) {
  auto l = load_forward("official_module/ReturnsInput.pte");
  ASSERT_NE(l, nullptr);
  Method& m = *l->method;
  ASSERT_EQ(m.outputs_size(), 2u);
  std::vector<float> out0(6), out1(6, std::nanf(""));
  EXPECT_EQ(m.set_output_data_ptr(out0.data(), 24, 0), Error::InvalidState);
  ASSERT_EQ(m.set_output_data_ptr(out1.data(), 24, 1), Error::Ok);
  HostTensor x = filled({2, 3}, 1.5f);
  HostTensor y = filled({2, 3}, 2.25f);
  ASSERT_EQ(m.set_input(x.tensor(), 0), Error::Ok);
  ASSERT_EQ(m.set_input(y.tensor(), 1), Error::Ok);
  ASSERT_EQ(m.execute(), Error::Ok);
  for (float v : out1) EXPECT_FLOAT_EQ(v, 3.75f);
  const Tensor& first = m.get_output(0).to_tensor();
  ASSERT_EQ(first.numel(), 6);
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(first.const_data_ptr<float>()[i], 1.5f);
}

}  // namespace
}  // namespace etr
