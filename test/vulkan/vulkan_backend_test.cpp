// The Vulkan delegate on Mesa's lavapipe (a CPU Vulkan driver), selected
// explicitly so a machine with a GPU driver tests the same thing, with the
// Khronos validation layer on when it is installed (any validation warning
// or error fails the test). To run the suite on a real GPU instead:
//   ETR_VULKAN_TEST_NATIVE=1 ETR_VULKAN_DEVICE=<index> build/test/etr_vulkan_tests
//
// Fixtures (test/models/vulkan, exported with the official VulkanPartitioner)
// must match PyTorch eager within 2e-3 of the output's scale; hand-built
// payloads check that bad input fails init with a message, never a crash.
#include "backends/vulkan/vulkan_backend.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/vulkan/schema_generated.h"
#include "extension/tensor/npy.h"
#include "kernels/portable/portable_kernels.h"
#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"
#include "test/support/in_process.h"
#include "test/vulkan/vulkan_test_util.h"

namespace etr {
namespace testing {
namespace {

std::vector<FixtureCase> vulkan_cases() { return load_manifest(models_dir() + "vulkan/"); }

void run_case(const FixtureCase& c) {
  SCOPED_TRACE(c.line);
  register_all_kernels();
  MethodLoadOptions options;
  options.backends = &vulkan_registry();
  LoadedMethod lm;
  char message[2048];
  ErrorCapture capture(message, sizeof(message));
  ASSERT_TRUE(load_fixture_method(c, &lm, &options)) << lm.error << ": " << capture.message();
  for (int i = 0; i < c.executions; ++i) {
    ASSERT_TRUE(set_fixture_inputs(c, &lm)) << lm.error;
    ASSERT_EQ(lm.method->execute(), Error::Ok) << capture.message();
  }
  EXPECT_EQ(compare_outputs(c, *lm.method), "");
}

TEST_F(VulkanTest, FixturesMatchPyTorch) {
  const std::vector<FixtureCase> cases = vulkan_cases();
  ASSERT_GE(cases.size(), 27u);
  for (const FixtureCase& c : cases) run_case(c);
}

// The largest |got - expected| of every output of `c` over the largest
// |expected| (PyTorch's output files).
double max_error_over_scale(const FixtureCase& c, const Method& m) {
  double worst = 0;
  for (size_t i = 0; i < c.expected.size() && i < m.outputs_size(); ++i) {
    Result<HostTensor> want = read_npy(c.expected[i]);
    const EValue& got = m.get_output(i);
    if (!want.ok() || !got.is_tensor() || got.to_tensor().dtype() != ScalarType::Float) return 1e9;
    const std::vector<float> w = want->values<float>();
    const Tensor& t = got.to_tensor();
    if (static_cast<size_t>(t.numel()) != w.size()) return 1e9;
    const float* g = static_cast<const float*>(t.const_data());
    double scale = 0, diff = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      scale = std::max(scale, std::abs(static_cast<double>(w[k])));
      diff = std::max(diff, std::abs(static_cast<double>(g[k]) - w[k]));
    }
    worst = std::max(worst, diff / std::max(scale, 1e-30));
  }
  return worst;
}

// The fp16 programs (force_fp16: every tensor float16) on a device with
// 16-bit storage buffers (lavapipe has them) keep their tensors in float16
// buffers; with ETR_VULKAN_FP16_STORAGE=0 the same programs run with
// float32 buffers. Both match PyTorch within 2e-2 of the output's scale.
TEST_F(VulkanTest, Fp16ProgramsUseFloat16BuffersOrFallBackToFloat32) {
  std::vector<FixtureCase> cases;
  for (const FixtureCase& c : vulkan_cases()) {
    if (c.pte.find("_fp16.pte") != std::string::npos) cases.push_back(c);
  }
  ASSERT_GE(cases.size(), 3u);
  register_all_kernels();
  MethodLoadOptions options;
  options.backends = &vulkan_registry();
  const bool lavapipe = std::getenv("ETR_VULKAN_TEST_NATIVE") == nullptr;
  for (const FixtureCase& c : cases) {
    for (bool fallback : {false, true}) {
      SCOPED_TRACE(c.line + (fallback ? ": ETR_VULKAN_FP16_STORAGE=0" : ": float16 buffers"));
      if (fallback) setenv("ETR_VULKAN_FP16_STORAGE", "0", 1);
      const size_t before = vulkan_fp16_storage_delegates();
      LoadedMethod lm;
      char message[2048];
      ErrorCapture capture(message, sizeof(message));
      const bool loaded = load_fixture_method(c, &lm, &options);
      unsetenv("ETR_VULKAN_FP16_STORAGE");
      ASSERT_TRUE(loaded) << lm.error << ": " << capture.message();
      if (fallback) {
        EXPECT_EQ(vulkan_fp16_storage_delegates(), before);
      } else if (lavapipe) {
        EXPECT_GT(vulkan_fp16_storage_delegates(), before);
      }
      for (int i = 0; i < c.executions; ++i) {
        ASSERT_TRUE(set_fixture_inputs(c, &lm)) << lm.error;
        ASSERT_EQ(lm.method->execute(), Error::Ok) << capture.message();
      }
      EXPECT_EQ(compare_outputs(c, *lm.method), "");
      const double err = max_error_over_scale(c, *lm.method);
      EXPECT_LE(err, 2e-2);
      std::printf("[ info ] %s with %s buffers: max error %.3g of the output's scale\n",
                  c.pte.substr(c.pte.rfind('/') + 1).c_str(), fallback ? "float32" : "float16",
                  err);
    }
  }
}

TEST_F(VulkanTest, TheFixturesCoverEveryCase) {
  std::string names;
  for (const FixtureCase& c : vulkan_cases()) names += c.pte + " ";
  for (const char* want : {"mlp.pte", "elementwise.pte", "softmax.pte", "matmul.pte", "partial.pte",
                           "resnet18.pte", "resnet18_fp16.pte", "decoder.pte", "group_norm.pte",
                           "dynamic_seq.pte", "dynamic_decoder.pte", "dynamic_cnn.pte"}) {
    EXPECT_NE(names.find(want), std::string::npos) << want;
  }
}

TEST_F(VulkanTest, PipelinesAreCreatedAtInitAndReusedByEveryExecuteAndLoad) {
  std::vector<FixtureCase> mlp;
  for (const FixtureCase& c : vulkan_cases()) {
    if (c.pte.find("/mlp.pte") != std::string::npos) mlp.push_back(c);
  }
  ASSERT_EQ(mlp.size(), 1u);
  register_all_kernels();
  MethodLoadOptions options;
  options.backends = &vulkan_registry();
  const size_t before_load = vulkan_pipeline_creations();
  LoadedMethod lm;
  ASSERT_TRUE(load_fixture_method(mlp[0], &lm, &options)) << lm.error;
  // linear (matmul shader) and relu (unary shader): at most two pipelines,
  // fewer when an earlier test's delegate made them (the device keeps them).
  EXPECT_LE(vulkan_pipeline_creations() - before_load, 2u);
  const size_t after_load = vulkan_pipeline_creations();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(set_fixture_inputs(mlp[0], &lm)) << lm.error;
    ASSERT_EQ(lm.method->execute(), Error::Ok);
  }
  EXPECT_EQ(vulkan_pipeline_creations(), after_load);
  EXPECT_EQ(compare_outputs(mlp[0], *lm.method), "");
  // A second load while the first lives shares the device's pipelines.
  LoadedMethod lm2;
  ASSERT_TRUE(load_fixture_method(mlp[0], &lm2, &options)) << lm2.error;
  ASSERT_TRUE(set_fixture_inputs(mlp[0], &lm2)) << lm2.error;
  ASSERT_EQ(lm2.method->execute(), Error::Ok);
  EXPECT_EQ(vulkan_pipeline_creations(), after_load);
  EXPECT_EQ(compare_outputs(mlp[0], *lm2.method), "");
}

// Every fixture through executor_runner (a child process: it inherits the
// lavapipe and validation settings); outputs compared with the same files.
TEST_F(VulkanTest, FixturesMatchPyTorchThroughExecutorRunner) {
  const std::vector<FixtureCase> cases = vulkan_cases();
  ASSERT_GE(cases.size(), 27u);
  for (const FixtureCase& c : cases) {
    SCOPED_TRACE(c.line);
    char dir[] = "/tmp/etr_vulkan_runnerXXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string cmd = std::string(ETR_RUNNER_PATH) + " --model_path=" + c.pte;
    for (const std::string& in : c.inputs) cmd += " --input=" + in;
    const std::string log = std::string(dir) + "/log";
    cmd += std::string(" --output_dir=") + dir + " > " + log + " 2>&1";
    const int status = std::system(cmd.c_str());
    Result<std::string> text = read_file(log);
    const std::string out = text.ok() ? *text : "";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    EXPECT_EQ(out.find("VulkanBackend: validation"), std::string::npos) << out;
    for (size_t i = 0; i < c.expected.size(); ++i) {
      const std::string got = std::string(dir) + "/output_" + std::to_string(i) + ".npy";
      EXPECT_EQ(compare_output_files(got, c.expected[i], c.rtol, c.atol), Error::Ok) << got;
      std::remove(got.c_str());
    }
    std::remove(log.c_str());
    ::rmdir(dir);
  }
}

// ---- hand-built payloads ----------------------------------------------------

namespace fb = etr_vkgraph;

// A payload computing out = relu(x) + c (x, c, out: float [2, 3]; c in the
// payload's byte region), with knobs that break one thing at a time.
struct PayloadSpec {
  const char* relu_name = "aten.relu.default";
  int32_t add_out_id = 4;
  int32_t constant_id = 0;
  uint64_t constant_offset = 0;
  uint64_t constant_length = 24;
  uint32_t out_dim1 = 3;
  const char* named_key = nullptr;
};

std::vector<uint8_t> make_payload(const PayloadSpec& s) {
  flatbuffers::FlatBufferBuilder b;
  auto tensor = [&](int32_t constant_id, uint32_t d1) {
    const std::vector<uint32_t> dims = {2, d1};
    auto t = fb::CreateVkTensorDirect(b, fb::VkDataType::FLOAT32, &dims, constant_id, -1);
    return fb::CreateVkValue(b, fb::GraphTypes::VkTensor, t.Union());
  };
  std::vector<flatbuffers::Offset<fb::VkValue>> values;
  values.push_back(tensor(-1, 3));                               // 0: x
  values.push_back(tensor(-1, 3));                               // 1: relu(x)
  values.push_back(tensor(s.constant_id, 3));                    // 2: c
  values.push_back(fb::CreateVkValue(b, fb::GraphTypes::Double,  // 3: alpha
                                     fb::CreateDouble(b, 1.0).Union()));
  values.push_back(tensor(-1, s.out_dim1));  // 4: out
  const std::vector<int32_t> relu_args = {0, 1};
  const std::vector<int32_t> add_args = {1, 2, 3, s.add_out_id};
  std::vector<flatbuffers::Offset<fb::OperatorCall>> chain = {
      fb::CreateOperatorCallDirect(b, 0, s.relu_name, &relu_args),
      fb::CreateOperatorCallDirect(b, 1, "aten.add.Tensor", &add_args)};
  std::vector<flatbuffers::Offset<fb::VkBytes>> constants = {
      fb::CreateVkBytesDirect(b, s.constant_offset, s.constant_length, s.named_key)};
  const std::vector<uint32_t> inputs = {0};
  const std::vector<uint32_t> outputs = {4};
  b.Finish(fb::CreateVkGraphDirect(b, "0", &chain, &values, &inputs, &outputs, &constants),
           fb::VkGraphIdentifier());
  const float c[6] = {0.5f, -1.0f, 2.0f, 0.25f, 0.0f, -3.0f};
  return vh00_payload(b.GetBufferPointer(), b.GetSize(), c, sizeof(c));
}

// A payload whose one operator copies input [2, 3] to the output
// (aten.clone.default(self, memory_format, out)), both of datatype `dt`.
std::vector<uint8_t> make_clone_payload(fb::VkDataType dt) {
  flatbuffers::FlatBufferBuilder b;
  const std::vector<uint32_t> dims = {2, 3};
  auto tensor = [&]() {
    auto t = fb::CreateVkTensorDirect(b, dt, &dims, -1, -1, fb::VkStorageType::TEXTURE_3D,
                                      fb::VkMemoryLayout::TENSOR_CHANNELS_PACKED, dt);
    return fb::CreateVkValue(b, fb::GraphTypes::VkTensor, t.Union());
  };
  std::vector<flatbuffers::Offset<fb::VkValue>> values = {
      tensor(), fb::CreateVkValue(b, fb::GraphTypes::Null, fb::CreateNull(b).Union()), tensor()};
  const std::vector<int32_t> args = {0, 1, 2};
  std::vector<flatbuffers::Offset<fb::OperatorCall>> chain = {
      fb::CreateOperatorCallDirect(b, 0, "aten.clone.default", &args)};
  const std::vector<uint32_t> inputs = {0};
  const std::vector<uint32_t> outputs = {2};
  b.Finish(fb::CreateVkGraphDirect(b, "0", &chain, &values, &inputs, &outputs),
           fb::VkGraphIdentifier());
  return vh00_payload(b.GetBufferPointer(), b.GetSize());
}

// A payload with one operator `name` whose arguments are float tensors of
// the given dims (the last one the output; the others the inputs).
// dtypes: per tensor (float32 when empty); float16 tensors are staged as
// float32 (as force_fp16 programs are).
std::vector<uint8_t> make_op_payload(const char* name,
                                     const std::vector<std::vector<uint32_t>>& dims,
                                     const std::vector<fb::VkDataType>& dtypes = {}) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::VkValue>> values;
  std::vector<int32_t> args;
  std::vector<uint32_t> inputs, outputs;
  for (size_t i = 0; i < dims.size(); ++i) {
    const fb::VkDataType dt = i < dtypes.size() ? dtypes[i] : fb::VkDataType::FLOAT32;
    auto t = fb::CreateVkTensorDirect(
        b, dt, &dims[i], -1, -1, fb::VkStorageType::DEFAULT_STORAGE,
        fb::VkMemoryLayout::DEFAULT_LAYOUT,
        dt == fb::VkDataType::FLOAT16 ? fb::VkDataType::FLOAT32 : fb::VkDataType::UNSET);
    values.push_back(fb::CreateVkValue(b, fb::GraphTypes::VkTensor, t.Union()));
    args.push_back(static_cast<int32_t>(i));
    (i + 1 == dims.size() ? outputs : inputs).push_back(static_cast<uint32_t>(i));
  }
  std::vector<flatbuffers::Offset<fb::OperatorCall>> chain = {
      fb::CreateOperatorCallDirect(b, 0, name, &args)};
  b.Finish(fb::CreateVkGraphDirect(b, "0", &chain, &values, &inputs, &outputs),
           fb::VkGraphIdentifier());
  return vh00_payload(b.GetBufferPointer(), b.GetSize());
}

// Named data with no keys at all.
class EmptyData final : public NamedDataMap {
 public:
  Result<FreeableBuffer> get_data(StringView) const override { return Error::NotFound; }
  Result<TensorLayout> get_layout(StringView) const override { return Error::NotFound; }
  size_t num_keys() const override { return 0; }
  Result<const char*> key_at(size_t) const override { return Error::NotFound; }
};

// Inits the payload (an aligned copy); returns the error and the message.
Error init_payload(const std::vector<uint8_t>& bytes, std::string* message,
                   DelegateHandle** handle = nullptr) {
  std::vector<uint64_t> copy((bytes.size() + 7) / 8 + 1);
  if (!bytes.empty()) std::memcpy(copy.data(), bytes.data(), bytes.size());
  FreeableBuffer processed(copy.data(), bytes.size());
  static EmptyData empty;
  std::vector<uint8_t> pool(1 << 16);
  MemoryAllocator alloc(pool.data(), pool.size());
  BackendInitContext ctx{&alloc, &empty, "forward", 0, nullptr, {}};
  char buf[2048];
  ErrorCapture capture(buf, sizeof(buf));
  Result<DelegateHandle*> h = vulkan_backend().init(ctx, &processed, {});
  *message = capture.message();
  if (!h.ok()) return h.error();
  if (handle != nullptr) {
    *handle = *h;
  } else {
    vulkan_backend().destroy(*h);
  }
  return Error::Ok;
}

// A dispatch that would bind float16 and float32 tensors together (maximum
// of a float16 and a float32 input) has no float16-storage shader: the
// delegate keeps its float16 tensors in float32 buffers instead, and inits.
// The same operator on float16 tensors alone gets float16 buffers.
TEST_F(VulkanTest, MixedFloat16AndFloat32DispatchFallsBackToFloat32Buffers) {
  const fb::VkDataType h = fb::VkDataType::FLOAT16, f = fb::VkDataType::FLOAT32;
  std::string msg;
  size_t before = vulkan_fp16_storage_delegates();
  ASSERT_EQ(init_payload(
                make_op_payload("aten.maximum.default", {{2, 3}, {2, 3}, {2, 3}}, {h, f, h}), &msg),
            Error::Ok)
      << msg;
  EXPECT_EQ(vulkan_fp16_storage_delegates(), before);
  EXPECT_NE(msg.find("operator 0 (aten.maximum.default): shader 'binary' binds float16 and "
                     "float32 tensors together"),
            std::string::npos)
      << msg;
  if (std::getenv("ETR_VULKAN_TEST_NATIVE") != nullptr) return;  // lavapipe has 16-bit storage
  before = vulkan_fp16_storage_delegates();
  ASSERT_EQ(init_payload(
                make_op_payload("aten.maximum.default", {{2, 3}, {2, 3}, {2, 3}}, {h, h, h}), &msg),
            Error::Ok)
      << msg;
  EXPECT_EQ(vulkan_fp16_storage_delegates(), before + 1);
}

// Bool tensors (float32 0/1 on the device, bool on the host): where.self
// with a [2, 1] condition, a [2, 3] and a [1] operand (three-way
// broadcasting), and lt.Tensor of [2, 3] and [3] into a bool output.
TEST_F(VulkanTest, WhereAndComparisonsBroadcastWithBoolTensors) {
  const fb::VkDataType f = fb::VkDataType::FLOAT32, b = fb::VkDataType::BOOL;
  BackendExecutionContext ctx{nullptr, "forward", nullptr};
  std::string msg;
  {
    DelegateHandle* h = nullptr;
    ASSERT_EQ(init_payload(
                  make_op_payload("aten.where.self", {{2, 1}, {2, 3}, {1}, {2, 3}}, {b, f, f, f}),
                  &msg, &h),
              Error::Ok)
        << msg;
    bool cond[2] = {true, false};
    float a[6] = {1, 2, 3, 4, 5, 6};
    float other[1] = {-7};
    float out[6] = {};
    int32_t s21[2] = {2, 1}, s23[2] = {2, 3}, s1[1] = {1}, o23[2] = {2, 3};
    uint8_t order2[2] = {0, 1}, order2b[2] = {0, 1}, order2c[2] = {0, 1}, order1[1] = {0};
    int64_t st[2] = {}, st2[2] = {}, st3[2] = {}, st1[1] = {};
    Tensor tc(ScalarType::Bool, 2, s21, order2, st, cond);
    Tensor ta(ScalarType::Float, 2, s23, order2b, st2, a);
    Tensor tb(ScalarType::Float, 1, s1, order1, st1, other);
    Tensor to(ScalarType::Float, 2, o23, order2c, st3, out);
    EValue ec(&tc), ea(&ta), eb(&tb), eo(&to);
    EValue* args[4] = {&ec, &ea, &eb, &eo};
    ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 4)), Error::Ok);
    const float want[6] = {1, 2, 3, -7, -7, -7};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
    vulkan_backend().destroy(h);
  }
  {
    DelegateHandle* h = nullptr;
    ASSERT_EQ(
        init_payload(make_op_payload("aten.lt.Tensor", {{2, 3}, {3}, {2, 3}}, {f, f, b}), &msg, &h),
        Error::Ok)
        << msg;
    float x[6] = {1, 5, -2, 0, 3, 9};
    float y[3] = {2, 5, -3};
    bool out[6] = {};
    int32_t s23[2] = {2, 3}, s3[1] = {3}, o23[2] = {2, 3};
    uint8_t order2[2] = {0, 1}, order2b[2] = {0, 1}, order1[1] = {0};
    int64_t st[2] = {}, st2[2] = {}, st1[1] = {};
    Tensor tx(ScalarType::Float, 2, s23, order2, st, x);
    Tensor ty(ScalarType::Float, 1, s3, order1, st1, y);
    Tensor to(ScalarType::Bool, 2, o23, order2b, st2, out);
    EValue ex(&tx), ey(&ty), eo(&to);
    EValue* args[3] = {&ex, &ey, &eo};
    ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 3)), Error::Ok);
    const bool want[6] = {true, false, false, true, true, false};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
    vulkan_backend().destroy(h);
  }
  // A comparison into a float output is refused.
  EXPECT_EQ(init_payload(make_op_payload("aten.lt.Tensor", {{2, 3}, {3}, {2, 3}}), &msg),
            Error::NotSupported);
  EXPECT_NE(msg.find("operator 0 (aten.lt.Tensor): the output is float32, not bool"),
            std::string::npos)
      << msg;
}

TEST_F(VulkanTest, HandBuiltPayloadRunsWithConstantsFromThePayload) {
  std::string msg;
  DelegateHandle* h = nullptr;
  ASSERT_EQ(init_payload(make_payload(PayloadSpec{}), &msg, &h), Error::Ok) << msg;
  float x[6] = {1.0f, -2.0f, 3.0f, -0.5f, 0.75f, 4.0f};
  float y[6] = {};
  int32_t sizes[2] = {2, 3};
  uint8_t order[2] = {0, 1};
  int64_t strides[2] = {3, 1};
  int32_t osizes[2] = {2, 3};
  uint8_t oorder[2] = {0, 1};
  int64_t ostrides[2] = {3, 1};
  Tensor tx(ScalarType::Float, 2, sizes, order, strides, x);
  Tensor ty(ScalarType::Float, 2, osizes, oorder, ostrides, y);
  EValue ex(&tx), ey(&ty);
  EValue* args[2] = {&ex, &ey};
  BackendExecutionContext ctx{nullptr, "forward", nullptr};
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 2)), Error::Ok);
    // relu(x) + c, exact in fp32.
    const float want[6] = {1.5f, -1.0f, 5.0f, 0.25f, 0.75f, 1.0f};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
  }
  vulkan_backend().destroy(h);
}

// The exporter narrows int64 inputs/outputs to int32 on the device (and
// asks for a 3-D texture here, which we store as a buffer): the host side
// converts while staging.
TEST_F(VulkanTest, Int64TensorsAreStagedAsInt32) {
  std::string msg;
  DelegateHandle* h = nullptr;
  ASSERT_EQ(init_payload(make_clone_payload(fb::VkDataType::INT32), &msg, &h), Error::Ok) << msg;
  int64_t x[6] = {1, -2, 300000, -4, 5, 2147483647};
  int64_t y[6] = {};
  int32_t sizes[2] = {2, 3};
  uint8_t order[2] = {0, 1};
  int64_t strides[2] = {3, 1};
  int32_t osizes[2] = {2, 3};
  uint8_t oorder[2] = {0, 1};
  int64_t ostrides[2] = {3, 1};
  Tensor tx(ScalarType::Long, 2, sizes, order, strides, x);
  Tensor ty(ScalarType::Long, 2, osizes, oorder, ostrides, y);
  EValue ex(&tx), ey(&ty);
  EValue* args[2] = {&ex, &ey};
  BackendExecutionContext ctx{nullptr, "forward", nullptr};
  ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 2)), Error::Ok);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], x[i]) << i;
  // A float tensor where the program says int32 is refused, naming the input.
  float f[6] = {};
  Tensor tf(ScalarType::Float, 2, sizes, order, strides, f);
  EValue ef(&tf);
  EValue* bad[2] = {&ef, &ey};
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  EXPECT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(bad, 2)), Error::InvalidArgument);
  EXPECT_NE(std::string(capture.message()).find("input 0 has dtype"), std::string::npos)
      << capture.message();
  vulkan_backend().destroy(h);
}

// Two delegates executing at the same time on two threads share the one
// queue (submissions are serialized by vk_device's queue lock): each gets
// the right answer every time.
TEST_F(VulkanTest, TwoDelegatesExecuteConcurrently) {
  std::string msg;
  DelegateHandle* h[2] = {};
  for (DelegateHandle*& d : h) {
    ASSERT_EQ(init_payload(make_payload(PayloadSpec{}), &msg, &d), Error::Ok) << msg;
  }
  Error errors[2] = {Error::Ok, Error::Ok};
  auto worker = [&](int w) {
    for (int run = 0; run < 50 && errors[w] == Error::Ok; ++run) {
      float x[6] = {1.0f, -2.0f, 3.0f, -0.5f, 0.75f, static_cast<float>(run)};
      float y[6] = {};
      int32_t sizes[2] = {2, 3};
      uint8_t order[2] = {0, 1};
      int64_t strides[2] = {3, 1};
      int32_t osizes[2] = {2, 3};
      uint8_t oorder[2] = {0, 1};
      int64_t ostrides[2] = {3, 1};
      Tensor tx(ScalarType::Float, 2, sizes, order, strides, x);
      Tensor ty(ScalarType::Float, 2, osizes, oorder, ostrides, y);
      EValue ex(&tx), ey(&ty);
      EValue* args[2] = {&ex, &ey};
      BackendExecutionContext ctx{nullptr, "forward", nullptr};
      errors[w] = vulkan_backend().execute(ctx, h[w], Span<EValue*>(args, 2));
      // relu(x) + c with c = {0.5, -1, 2, 0.25, 0, -3}: exact in fp32.
      const float want[6] = {1.5f, -1.0f, 5.0f, 0.25f, 0.75f, static_cast<float>(run) - 3.0f};
      for (int i = 0; i < 6 && errors[w] == Error::Ok; ++i) {
        if (y[i] != want[i]) errors[w] = Error::Internal;
      }
    }
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(errors[0], Error::Ok);
  EXPECT_EQ(errors[1], Error::Ok);
  for (DelegateHandle* d : h) vulkan_backend().destroy(d);
}

TEST_F(VulkanTest, UnknownOperatorFailsInitNamingIt) {
  PayloadSpec s;
  s.relu_name = "aten.frobnicate.default";
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::NotSupported);
  EXPECT_NE(msg.find("VulkanBackend: delegate 0: operator 0 (aten.frobnicate.default) is not "
                     "supported"),
            std::string::npos)
      << msg;
}

TEST_F(VulkanTest, OutOfRangeValueIdFailsInitNamingOperatorAndArgument) {
  PayloadSpec s;
  s.add_out_id = 99;
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::InvalidProgram);
  EXPECT_NE(msg.find("operator 1 (aten.add.Tensor): arg 3: value id 99 out of range (5 values)"),
            std::string::npos)
      << msg;
}

TEST_F(VulkanTest, ConstantOutsideThePayloadFailsInit) {
  PayloadSpec s;
  s.constant_offset = 8;  // 8 + 24 > the 24 bytes of the region
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::InvalidProgram);
  EXPECT_NE(msg.find("constant 0: bytes [8, +24) outside the payload's constant region (24 bytes)"),
            std::string::npos)
      << msg;
}

TEST_F(VulkanTest, ConstantOfTheWrongSizeFailsInit) {
  PayloadSpec s;
  s.constant_length = 20;
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::InvalidProgram);
  EXPECT_NE(msg.find("value 2: constant 0 holds 20 bytes"), std::string::npos) << msg;
}

TEST_F(VulkanTest, ConstantIdOutOfRangeFailsInit) {
  PayloadSpec s;
  s.constant_id = 3;
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::InvalidProgram);
  EXPECT_NE(msg.find("value 2: constant_id 3 out of range (1 constants)"), std::string::npos)
      << msg;
}

TEST_F(VulkanTest, MissingNamedDataKeyFailsInitNamingTheKey) {
  PayloadSpec s;
  s.constant_offset = ~uint64_t{0};
  s.named_key = "abc123";
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::NotFound);
  EXPECT_NE(msg.find("constant 0: named data key 'abc123' not found"), std::string::npos) << msg;
}

TEST_F(VulkanTest, ShapesThatDisagreeFailInit) {
  PayloadSpec s;
  s.out_dim1 = 4;  // [2, 3] + [2, 3] cannot give [2, 4]
  std::string msg;
  EXPECT_EQ(init_payload(make_payload(s), &msg), Error::InvalidProgram);
  EXPECT_NE(msg.find("operator 1 (aten.add.Tensor):"), std::string::npos) << msg;
}

TEST_F(VulkanTest, ADispatchBeyondTheDeviceLimitsFailsInit) {
  // 70000 batches of 1x1 products: 70000 workgroups along z, above the
  // 65535 every device guarantees (and lavapipe's limit).
  std::string msg;
  EXPECT_EQ(
      init_payload(
          make_op_payload("aten.bmm.default", {{70000, 1, 1}, {70000, 1, 1}, {70000, 1, 1}}), &msg),
      Error::NotSupported);
  EXPECT_NE(msg.find("operator 0 (aten.bmm.default): dispatch of 70000 workgroups along axis 2 "
                     "exceeds the device's limit"),
            std::string::npos)
      << msg;
  // The same product within the limit initializes.
  EXPECT_EQ(
      init_payload(
          make_op_payload("aten.bmm.default", {{60000, 1, 1}, {60000, 1, 1}, {60000, 1, 1}}), &msg),
      Error::Ok)
      << msg;
}

// dynamic_seq (batch Dim(1..4), sequence Dim(2..6)), dynamic_decoder
// (causal attention, sequence Dim(2..7)) and dynamic_cnn (height and width
// 2*Dim(2..8): convolutions, pooling, upsampling, cat, expand, mean): each
// one's three input shapes alternate on one loaded method, each matching
// PyTorch; resizing creates no pipeline.
TEST_F(VulkanTest, BoundedDynamicShapesAlternateOnOneMethod) {
  for (const char* name : {"/dynamic_seq.pte", "/dynamic_decoder.pte", "/dynamic_cnn.pte"}) {
    SCOPED_TRACE(name);
    std::vector<FixtureCase> cases;
    for (const FixtureCase& c : vulkan_cases()) {
      if (c.pte.find(name) != std::string::npos) cases.push_back(c);
    }
    ASSERT_EQ(cases.size(), 3u);
    register_all_kernels();
    MethodLoadOptions options;
    options.backends = &vulkan_registry();
    LoadedMethod lm;
    char message[2048];
    ErrorCapture capture(message, sizeof(message));
    ASSERT_TRUE(load_fixture_method(cases[0], &lm, &options)) << lm.error << capture.message();
    const size_t after_load = vulkan_pipeline_creations();
    // Every execute after the first round changes the shape (re-plan and
    // re-record); the last ones repeat one shape. Times are printed, not
    // asserted (a shared host).
    double changed_us = 1e30, repeated_us = 1e30;
    auto timed_execute = [&](const FixtureCase& c, double* best) {
      ASSERT_TRUE(set_fixture_inputs(c, &lm)) << lm.error;
      const auto t0 = std::chrono::steady_clock::now();
      ASSERT_EQ(lm.method->execute(), Error::Ok) << capture.message();
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      *best = std::min(*best, us);
      EXPECT_EQ(compare_outputs(c, *lm.method), "");
    };
    double first_round = 1e30;
    for (int round = 0; round < 3; ++round) {
      for (size_t k = 0; k < cases.size(); ++k) {
        const FixtureCase& c = cases[(k + round) % cases.size()];
        SCOPED_TRACE(c.line);
        timed_execute(c, round == 0 ? &first_round : &changed_us);
      }
    }
    for (int i = 0; i < 4; ++i) timed_execute(cases[1], &repeated_us);
    EXPECT_EQ(vulkan_pipeline_creations(), after_load);
    std::printf(
        "[ INFO     ] %s: execute at a changed shape (re-plan, re-record) %.1f us, at a "
        "repeated shape %.1f us (minimums)\n",
        name + 1, changed_us, repeated_us);
  }
}

// Through executor_runner: dynamic_seq's bounds are [4, 6, 16]; an input of
// [2, 7, 16] fits the method's input memory (224 of 384 elements) but not
// the sequence bound, which the delegate reports naming the input and bound.
TEST_F(VulkanTest, AnInputAboveItsExportedBoundFailsThroughExecutorRunner) {
  const std::string dir = models_dir() + "vulkan/";
  const std::string log = ::testing::TempDir() + "etr_vulkan_bound.log";
  const std::string cmd = std::string(ETR_RUNNER_PATH) + " --model_path=" + dir +
                          "dynamic_seq.pte --input=" + dir + "dynamic_decoder/b_in0.npy > " + log +
                          " 2>&1";
  const int status = std::system(cmd.c_str());
  Result<std::string> text = read_file(log);
  const std::string out = text.ok() ? *text : "";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << out;
  EXPECT_NE(out.find("VulkanBackend: delegate 0: input 0: dim 1 is 7, outside the exported "
                     "bounds 1..6"),
            std::string::npos)
      << out;
  std::remove(log.c_str());
}

// A dynamic payload: out = relu(x) (or `op`(x)), x and out float [4, 3] at
// their bounds, with a sym_size.int(x, 0) (what makes the exporter's programs
// dynamic). A nonzero `group` adds aten.native_group_norm.default(x, None,
// None, 4, 3, 1, group, 1e-5) -> [gn, mean, rstd] as a second output.
std::vector<uint8_t> make_dynamic_payload(int64_t group = 0, const char* op = "aten.relu.default") {
  flatbuffers::FlatBufferBuilder b;
  auto tensor = [&](std::vector<uint32_t> dims) {
    auto t = fb::CreateVkTensorDirect(b, fb::VkDataType::FLOAT32, &dims, -1, -1);
    return fb::CreateVkValue(b, fb::GraphTypes::VkTensor, t.Union());
  };
  auto integer = [&](int64_t v) {
    return fb::CreateVkValue(b, fb::GraphTypes::Int, fb::CreateInt(b, v).Union());
  };
  std::vector<flatbuffers::Offset<fb::VkValue>> values = {
      tensor({4, 3}),                                                                // 0: x
      integer(0),                                                                    // 1: dim
      fb::CreateVkValue(b, fb::GraphTypes::SymInt, fb::CreateSymInt(b, 0).Union()),  // 2
      tensor({4, 3}),                                                                // 3: relu(x)
  };
  const std::vector<int32_t> size_args = {0, 1, 2};
  std::vector<int32_t> relu_args = {0, 3};
  if (std::strcmp(op, "aten.view_copy.default") == 0) {
    // view_copy(x, [SymInt rows, 4], out): 4 columns where x has 3.
    const std::vector<int32_t> items = {2, static_cast<int32_t>(values.size() + 1)};
    values.push_back(fb::CreateVkValue(b, fb::GraphTypes::ValueList,
                                       fb::CreateValueListDirect(b, &items).Union()));
    values.push_back(integer(4));
    relu_args = {0, static_cast<int32_t>(values.size() - 2), 3};
  }
  std::vector<flatbuffers::Offset<fb::OperatorCall>> chain = {
      fb::CreateOperatorCallDirect(b, 0, "sym_size.int", &size_args),
      fb::CreateOperatorCallDirect(b, 1, op, &relu_args)};
  std::vector<uint32_t> outputs = {3};
  std::vector<int32_t> gn_args;
  if (group != 0) {  // value ids 4..13 (not combined with the view above)
    values.push_back(fb::CreateVkValue(b, fb::GraphTypes::Null, fb::CreateNull(b).Union()));  // 4
    values.push_back(integer(4));                                                             // 5
    values.push_back(integer(3));                                                             // 6
    values.push_back(integer(1));                                                             // 7
    values.push_back(integer(group));                                                         // 8
    values.push_back(
        fb::CreateVkValue(b, fb::GraphTypes::Double, fb::CreateDouble(b, 1e-5).Union()));  // 9
    values.push_back(tensor({4, 3}));                                                      // 10
    values.push_back(tensor({4, 1}));                                                      // 11
    values.push_back(tensor({4, 1}));                                                      // 12
    const std::vector<int32_t> items = {10, 11, 12};
    values.push_back(fb::CreateVkValue(b, fb::GraphTypes::ValueList,
                                       fb::CreateValueListDirect(b, &items).Union()));  // 13
    gn_args = {0, 4, 4, 5, 6, 7, 8, 9, 13};
    chain.push_back(fb::CreateOperatorCallDirect(b, 2, "aten.native_group_norm.default", &gn_args));
    outputs.push_back(10);
  }
  const std::vector<uint32_t> inputs = {0};
  b.Finish(fb::CreateVkGraphDirect(b, "0", &chain, &values, &inputs, &outputs),
           fb::VkGraphIdentifier());
  return vh00_payload(b.GetBufferPointer(), b.GetSize());
}

TEST_F(VulkanTest, DynamicPayloadResizesItsOutputAndRefusesShapesOutsideTheBounds) {
  std::string msg;
  DelegateHandle* h = nullptr;
  ASSERT_EQ(init_payload(make_dynamic_payload(), &msg, &h), Error::Ok) << msg;
  float x[12] = {1.0f, -2.0f, 3.0f, -0.5f, 0.75f, 4.0f, -1.0f, 2.0f, -3.0f, 5.0f, 0.0f, -6.0f};
  float y[12] = {};
  int32_t sizes[2] = {4, 3};  // the tensor's own sizes (resize_tensor updates them)
  uint8_t order[2] = {0, 1};
  int64_t strides[2] = {};
  int32_t osizes[2] = {4, 3};
  uint8_t oorder[2] = {0, 1};
  int64_t ostrides[2] = {};
  Tensor tx(ScalarType::Float, 2, sizes, order, strides, x, ShapeDynamism::DynamicBound);
  Tensor ty(ScalarType::Float, 2, osizes, oorder, ostrides, y, ShapeDynamism::DynamicBound);
  EValue ex(&tx), ey(&ty);
  EValue* args[2] = {&ex, &ey};
  BackendExecutionContext ctx{nullptr, "forward", nullptr};
  // Rows 2, 4 (the bound), 1 and 3: the output takes each shape.
  for (int32_t rows : {2, 4, 1, 3}) {
    SCOPED_TRACE(rows);
    const int32_t want[2] = {rows, 3};
    ASSERT_EQ(resize_tensor(tx, Span<const int32_t>(want, 2)), Error::Ok);
    std::memset(y, 0xff, sizeof(y));
    ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 2)), Error::Ok);
    ASSERT_EQ(ty.size(0), rows);
    ASSERT_EQ(ty.size(1), 3);
    for (int i = 0; i < rows * 3; ++i) EXPECT_EQ(y[i], x[i] > 0.0f ? x[i] : 0.0f) << i;
  }
  // Above the bound (a tensor of 5 rows), and a different rank: refused,
  // naming the input, the dim and the bound.
  float big[15] = {};
  int32_t bsizes[2] = {5, 3};
  int64_t bstrides[2] = {};
  Tensor tb(ScalarType::Float, 2, bsizes, order, bstrides, big);
  EValue eb(&tb);
  EValue* bad[2] = {&eb, &ey};
  char buf[512];
  {
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(bad, 2)), Error::InvalidArgument);
    EXPECT_NE(std::string(capture.message())
                  .find("delegate 0: input 0: dim 0 is 5, outside the exported bounds 1..4"),
              std::string::npos)
        << capture.message();
  }
  int32_t rsizes[1] = {6};
  uint8_t rorder[1] = {0};
  int64_t rstrides[1] = {};
  Tensor tr(ScalarType::Float, 1, rsizes, rorder, rstrides, big);
  EValue er(&tr);
  bad[0] = &er;
  {
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(bad, 2)), Error::InvalidArgument);
    EXPECT_NE(std::string(capture.message()).find("input 0 has 1 dims, the program has 2"),
              std::string::npos)
        << capture.message();
  }
  // Still usable after the refusals.
  const int32_t two[2] = {2, 3};
  ASSERT_EQ(resize_tensor(tx, Span<const int32_t>(two, 2)), Error::Ok);
  ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 2)), Error::Ok);
  EXPECT_EQ(ty.size(0), 2);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], x[i] > 0.0f ? x[i] : 0.0f) << i;
  vulkan_backend().destroy(h);
}

// An operator without a shape function keeps its exported shape: a smaller
// input is refused at execute naming it, and the delegate still runs at the
// exported shape afterwards.
TEST_F(VulkanTest, AnOperatorThatCannotResizeIsNamedAtExecute) {
  std::string msg;
  DelegateHandle* h = nullptr;
  ASSERT_EQ(init_payload(make_dynamic_payload(0, "aten.squeeze_copy.default"), &msg, &h), Error::Ok)
      << msg;
  float x[12] = {1.0f, -2.0f, 3.0f, -0.5f, 0.75f, 4.0f, -1.0f, 2.0f, -3.0f, 5.0f, 0.0f, -6.0f};
  float y[12] = {};
  int32_t sizes[2] = {4, 3};
  uint8_t order[2] = {0, 1};
  int64_t strides[2] = {};
  int32_t osizes[2] = {4, 3};
  int64_t ostrides[2] = {};
  Tensor tx(ScalarType::Float, 2, sizes, order, strides, x, ShapeDynamism::DynamicBound);
  Tensor ty(ScalarType::Float, 2, osizes, order, ostrides, y, ShapeDynamism::DynamicBound);
  EValue ex(&tx), ey(&ty);
  EValue* args[2] = {&ex, &ey};
  BackendExecutionContext ctx{nullptr, "forward", nullptr};
  const int32_t two[2] = {2, 3};
  ASSERT_EQ(resize_tensor(tx, Span<const int32_t>(two, 2)), Error::Ok);
  {
    char buf[512];
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 2)), Error::NotSupported);
    EXPECT_NE(std::string(capture.message())
                  .find("operator 1 (aten.squeeze_copy.default): argument 0 (value 0) changed "
                        "shape, and this operator cannot be resized"),
              std::string::npos)
        << capture.message();
  }
  const int32_t four[2] = {4, 3};
  ASSERT_EQ(resize_tensor(tx, Span<const int32_t>(four, 2)), Error::Ok);
  ASSERT_EQ(vulkan_backend().execute(ctx, h, Span<EValue*>(args, 2)), Error::Ok);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(y[i], x[i]) << i;
  vulkan_backend().destroy(h);
}

// A view whose sizes (a SymInt and an Int) disagree with its input fails
// init in the shape propagation, naming the operator and the argument.
TEST_F(VulkanTest, ADynamicViewWhoseSizesDisagreeFailsInit) {
  std::string msg;
  EXPECT_EQ(init_payload(make_dynamic_payload(0, "aten.view_copy.default"), &msg),
            Error::InvalidProgram);
  EXPECT_NE(msg.find("delegate 0: operator 1 (aten.view_copy.default): argument 1 (size) has 16 "
                     "elements, the input 12"),
            std::string::npos)
      << msg;
}

TEST_F(VulkanTest, GroupNormWhoseGroupsDoNotDivideTheChannelsFailsInit) {
  std::string msg;
  EXPECT_EQ(init_payload(make_dynamic_payload(2), &msg), Error::InvalidProgram);
  EXPECT_NE(msg.find("delegate 0: operator 2 (aten.native_group_norm.default): argument 6 (group) "
                     "must be an Int dividing C = 3"),
            std::string::npos)
      << msg;
  EXPECT_EQ(init_payload(make_dynamic_payload(3), &msg), Error::Ok) << msg;
}

TEST_F(VulkanTest, EveryTruncationIsRefusedWithAMessage) {
  const std::vector<uint8_t> full = make_payload(PayloadSpec{});
  for (size_t n = 0; n < full.size(); n += 1) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
    std::string msg;
    const Error e = init_payload(cut, &msg);
    EXPECT_NE(e, Error::Ok) << "prefix of " << n << " bytes";
    EXPECT_NE(msg.find("VulkanBackend: delegate 0:"), std::string::npos) << n << ": " << msg;
  }
}

TEST_F(VulkanTest, EverySingleByteCorruptionIsHandled) {
  const std::vector<uint8_t> full = make_payload(PayloadSpec{});
  for (size_t i = 0; i < full.size(); ++i) {
    std::vector<uint8_t> bad = full;
    bad[i] ^= 0xA5;
    std::string msg;
    const Error e = init_payload(bad, &msg);  // must not crash; any error names the delegate
    if (e != Error::Ok) {
      EXPECT_NE(msg.find("VulkanBackend: delegate 0:"), std::string::npos) << i << ": " << msg;
    }
  }
}

// The device is created once per process, so the tests of its creation run
// in a fresh copy of this binary (a "threadsafe" death test re-executes
// it): `body` sets the environment, inits a payload and exits 0 when the
// outcome is the expected one. _exit: the child checks nothing at exit.
#define EXPECT_IN_FRESH_PROCESS(body)                         \
  do {                                                        \
    GTEST_FLAG_SET(death_test_style, "threadsafe");           \
    EXPECT_EXIT({ body; }, ::testing::ExitedWithCode(0), ""); \
  } while (0)

// The child's verdict: 0 when init gave `want` with `text` in its message.
void exit_with_verdict(const char* icd, const char* device, Error want, const char* text) {
  if (icd != nullptr) select_icd(icd);
  if (device != nullptr) setenv("ETR_VULKAN_DEVICE", device, 1);
  std::string msg;
  const Error e = init_payload(make_payload(PayloadSpec{}), &msg);
  const bool ok = e == want && (text == nullptr || msg.find(text) != std::string::npos);
  if (!ok) std::fprintf(stderr, "got error %d: %s\n", static_cast<int>(e), msg.c_str());
  _exit(ok ? 0 : 1);
}

TEST(VulkanDeviceTest, AnOutOfRangeDeviceIndexFailsInitNamingIt) {
  EXPECT_IN_FRESH_PROCESS(exit_with_verdict(nullptr, "7", Error::NotSupported,
                                            "ETR_VULKAN_DEVICE='7' is not a device index"));
}

TEST(VulkanDeviceTest, DeviceZeroCanBeChosenExplicitly) {
  EXPECT_IN_FRESH_PROCESS(exit_with_verdict(nullptr, "0", Error::Ok, nullptr));
}

TEST(VulkanDeviceTest, NoDriverFailsInitNamingTheReason) {
  EXPECT_IN_FRESH_PROCESS(exit_with_verdict("/nonexistent/no_such_icd.json", nullptr,
                                            Error::NotSupported,
                                            "VulkanBackend: delegate 0: no Vulkan"));
}

}  // namespace
}  // namespace testing
}  // namespace etr
