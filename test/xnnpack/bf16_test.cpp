// bf16 subgraphs on an XNNPACK without bf16 (backends/xnnpack/narrow_float.h):
// bf16_linear.pte (test/models/xnnpack/export_bf16_linear.py) delegates a
// bf16 linear layer with an fp32 bias and a residual add in one XNNPACK
// payload. Its output must equal the official runtime's (which equals
// PyTorch eager in bf16 there), with the linear layer on our GEMM and in
// XNNPACK.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/narrow_float.h"
#include "backends/xnnpack/xnnpack_backend.h"
#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"
#include "extension/threadpool/pthread_pool.h"
#include "runtime/core/half.h"
#include "runtime/executor/method.h"
#include "runtime/platform/error_capture.h"
#include "test/support/in_process.h"

namespace etr {
namespace testing {
namespace {

const std::string kDir = "xnnpack/bf16_linear/";

std::vector<float> npy_floats(const std::string& name) {
  Result<HostTensor> t = read_npy(models_dir() + kDir + name);
  EXPECT_TRUE(t.ok()) << name;
  return t.ok() ? t->values<float>() : std::vector<float>{};
}

// A bf16 tensor of `sizes` holding `values` (each exact in bf16).
HostTensor bf16_tensor(const std::vector<float>& values, std::vector<int32_t> sizes) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    bits[i] = BFloat16(values[i]).bits;
    EXPECT_EQ(static_cast<float>(BFloat16::from_bits(bits[i])), values[i]) << "not bf16: " << i;
  }
  Result<HostTensor> t =
      HostTensor::from_bytes(ScalarType::BFloat16, std::move(sizes), bits.data(), bits.size() * 2);
  EXPECT_TRUE(t.ok());
  return std::move(*t);
}

const BackendRegistry& registry() {
  static const BackendRegistry r = [] {
    BackendRegistry reg;
    EXPECT_EQ(register_xnnpack_backend(&reg), Error::Ok);
    return reg;
  }();
  return r;
}

struct Loaded {
  LoadedMethod lm;
  std::string log;
};

// Loads bf16_linear.pte with the delegate option native_fp32.
void load(Loaded* l, bool native_fp32, ThreadPool* pool) {
  register_all_kernels();
  FixtureCase c;
  c.line = "xnnpack/bf16_linear.pte";
  c.pte = models_dir() + "xnnpack/bf16_linear.pte";
  c.method = "forward";
  MethodLoadOptions options;
  options.backends = &registry();
  options.thread_pool = pool;
  const BackendOption gemm_option = BackendOption::of("native_fp32", native_fp32);
  const DelegateOptions per_backend[] = {{"XnnpackBackend", {&gemm_option, 1}}};
  options.delegate_options = {per_backend, 1};
  char message[1024];
  ErrorCapture capture(message, sizeof(message));
  ASSERT_TRUE(load_fixture_method(c, &l->lm, &options)) << l->lm.error << ": " << message;
}

// Runs the method on the fixture's inputs and returns its bf16 output as floats.
std::vector<float> run(Method& m) {
  HostTensor x = bf16_tensor(npy_floats("x.npy"), {3, 24});
  HostTensor r = bf16_tensor(npy_floats("r.npy"), {3, 16});
  EXPECT_EQ(m.set_input(x.tensor(), 0), Error::Ok);
  EXPECT_EQ(m.set_input(r.tensor(), 1), Error::Ok);
  char message[1024];
  ErrorCapture capture(message, sizeof(message));
  EXPECT_EQ(m.execute(), Error::Ok) << message;
  const Tensor& y = m.get_output(0).to_tensor();
  EXPECT_EQ(y.scalar_type(), ScalarType::BFloat16);
  EXPECT_EQ(y.numel(), 48);
  std::vector<float> out(static_cast<size_t>(y.numel()));
  const uint16_t* bits = static_cast<const uint16_t*>(y.const_data());
  for (size_t i = 0; i < out.size(); ++i) out[i] = BFloat16::from_bits(bits[i]);
  return out;
}

TEST(Bf16DelegateTest, LinearOnOurGemmEqualsTheOfficialRuntime) {
  const std::vector<float> official = npy_floats("official.npy");
  ASSERT_EQ(official.size(), 48u);
  // The official runtime matches eager in bf16 exactly here.
  EXPECT_EQ(official, npy_floats("eager.npy"));
  std::unique_ptr<PthreadPool> two = PthreadPool::create(2);
  for (ThreadPool* pool :
       {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(two.get())}) {
    Loaded l;
    load(&l, true, pool);
    ASSERT_NE(l.lm.method, nullptr);
    for (int i = 0; i < 2; ++i) {  // the second run reuses the runtimes
      // The linear layer's bf16 output is rounded before the add reads it,
      // as the official runtime does: every element equal.
      EXPECT_EQ(run(*l.lm.method), official) << "run " << i;
    }
  }
}

TEST(Bf16DelegateTest, LinearInXnnpackEqualsTheOfficialRuntime) {
  const std::vector<float> official = npy_floats("official.npy");
  ASSERT_EQ(official.size(), 48u);
  Loaded l;
  load(&l, false, nullptr);
  ASSERT_NE(l.lm.method, nullptr);
  // Linear and add both in XNNPACK: the linear layer's bf16 output ends
  // the XNNPACK run and is rounded before the add reads it. Kept in fp32
  // until the add, 11 of the 48 elements differed, some by more than a step.
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run(*l.lm.method), official) << "run " << i;
}

TEST(Bf16DelegateTest, ConversionsRoundToNearestEven) {
  const float in[] = {1.0f,
                      1.0f + 1.0f / 256,                 // a tie: to the even 1.0
                      1.0f + 3.0f / 256,                 // a tie: to the even 1 + 4/256
                      1.0f + 1.0f / 256 + 1.0f / 65536,  // above the tie: up
                      -2.5f,
                      std::ldexp(1.0f, -130)};  // subnormal, exact in bf16
  const uint16_t want[] = {0x3f80, 0x3f80, 0x3f82, 0x3f81, 0xc020, 0x0008};
  uint16_t got[6];
  xnnpack::fp32_to_bf16(in, got, 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], want[i]) << i;
  float back[6];
  xnnpack::bf16_to_fp32(want, back, 6);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[2], 1.0f + 2.0f / 128);
  EXPECT_EQ(back[4], -2.5f);
  EXPECT_EQ(back[5], std::ldexp(1.0f, -130));
  float r[2] = {1.0f + 3.0f / 256, -(1.0f + 1.0f / 256)};
  xnnpack::round_to_bf16(r, 2);
  EXPECT_EQ(r[0], 1.0f + 4.0f / 256);
  EXPECT_EQ(r[1], -1.0f);
}

}  // namespace
}  // namespace testing
}  // namespace etr
