#include "runtime/executor/method.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/tensor/host_tensor.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/backend/backend.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/platform.h"
#include "test/runtime/runtime_test_util.h"

namespace etr {
namespace {

using testing::AlignedBytes;
using testing::model_path;
using testing::read_aligned_file;
using testing::TestMemory;

// Registers the kernel libraries once for the whole test binary.
class KernelEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (default_kernel_registry().num_kernels() == 0) {
      ASSERT_EQ(register_kernels(portable_kernel_library()), Error::Ok);
      ASSERT_EQ(register_kernels(prim_ops_library()), Error::Ok);
    }
  }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new KernelEnvironment);

// Collects Error-level log lines while alive.
class LogCapture {
 public:
  LogCapture() {
    lines().clear();
    previous_ = platform_hooks().log;
    PlatformHooks hooks{};
    hooks.log = [](LogLevel level, const char*, int, const char* msg) {
      if (level == LogLevel::Error) lines().push_back(msg);
    };
    set_platform_hooks(hooks);
  }
  ~LogCapture() {
    PlatformHooks hooks{};
    hooks.log = previous_;
    set_platform_hooks(hooks);
  }
  bool contains(const std::string& needle) const {
    for (const auto& l : lines()) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  static std::vector<std::string>& lines() {
    static std::vector<std::string> l;
    return l;
  }

 private:
  void (*previous_)(LogLevel, const char*, int, const char*);
};

struct Loaded {
  AlignedBytes bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::unique_ptr<Program> program;
};

Loaded load_program(const char* name) {
  Loaded l;
  l.bytes = read_aligned_file(model_path(name));
  l.loader = std::make_unique<BufferDataLoader>(l.bytes.data(), l.bytes.size());
  Result<Program> p = Program::load(l.loader.get());
  EXPECT_TRUE(p.ok()) << name;
  if (p.ok()) l.program = std::make_unique<Program>(std::move(*p));
  return l;
}

// A contiguous Float tensor of `sizes` with every element equal to `fill`.
Result<HostTensor> filled_float(const std::vector<int32_t>& sizes, float fill) {
  size_t n = 1;
  for (int32_t v : sizes) n *= static_cast<size_t>(v);
  return HostTensor::from_values<float>(sizes, std::vector<float>(n, fill));
}

// A Float tensor of the shape method input `index` declares, filled with `fill`.
Result<HostTensor> filled_input(const MethodMeta& meta, size_t index, float fill) {
  Result<TensorInfo> info = meta.input_tensor_meta(index);
  if (!info.ok()) return info.error();
  return filled_float(std::vector<int32_t>(info->sizes.begin(), info->sizes.end()), fill);
}

TEST(MethodTest, RunsLinearAgainstPyTorch) {
  Loaded l = load_program("no_constants.pte");
  Result<MethodMeta> meta = l.program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  TestMemory mem(*meta);
  Result<Method> m = l.program->load_method("forward", mem.manager());
  ASSERT_TRUE(m.ok()) << to_string(m.error());
  // no_constants computes x * y + x.
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < m->inputs_size(); ++i) {
    Result<HostTensor> t = filled_input(*meta, i, 2.0f + i);
    ASSERT_TRUE(t.ok());
    inputs.push_back(std::move(*t));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(m->set_input(inputs[i].tensor(), i), Error::Ok);
  }
  ASSERT_EQ(m->execute(), Error::Ok);
  const Tensor& out = m->get_output(0).to_tensor();
  ASSERT_GT(out.numel(), 0);
  EXPECT_FLOAT_EQ(out.const_data_ptr<float>()[0], 2.0f * 3.0f + 2.0f);
}

// The value accessors return a reference: a bad index logs why and yields
// None instead of reading past the method's tables.
TEST(MethodTest, OutOfRangeValueAccessorsLogAndYieldNone) {
  Loaded l = load_program("no_constants.pte");
  Result<MethodMeta> meta = l.program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  TestMemory mem(*meta);
  Result<Method> m = l.program->load_method("forward", mem.manager());
  ASSERT_TRUE(m.ok()) << to_string(m.error());
  ASSERT_EQ(m->inputs_size(), 2u);
  ASSERT_EQ(m->outputs_size(), 1u);
  EXPECT_TRUE(m->get_input(1).is_tensor());
  EXPECT_TRUE(m->get_output(0).is_tensor());
  {
    LogCapture logs;
    EXPECT_TRUE(m->get_output(1).is_none());
    EXPECT_TRUE(logs.contains("method 'forward': output index 1 is out of range (1 outputs)"));
    EXPECT_TRUE(m->get_output(size_t{1} << 40).is_none());
    EXPECT_TRUE(m->get_input(2).is_none());
    EXPECT_TRUE(logs.contains("method 'forward': input index 2 is out of range (2 inputs)"));
    EXPECT_TRUE(m->value(m->num_values()).is_none());
    EXPECT_TRUE(logs.contains("value index " + std::to_string(m->num_values()) +
                              " is out of range (" + std::to_string(m->num_values()) + " values)"));
  }
  // A moved-from method is not loaded any more.
  Method moved = std::move(*m);
  EXPECT_TRUE(moved.get_output(0).is_tensor());
  LogCapture logs;
  EXPECT_TRUE(m->get_output(0).is_none());
  EXPECT_TRUE(logs.contains("get_output: method is not loaded"));
  EXPECT_TRUE(m->get_input(0).is_none());
  EXPECT_TRUE(logs.contains("get_input: method is not loaded"));
}

TEST(MethodTest, ReportsEveryMissingOperatorInOneError) {
  Loaded l = load_program("add_mul.pte");
  TestMemory mem(*l.program->method_meta("forward"));
  KernelRegistry empty;
  LogCapture logs;
  MethodLoadOptions options;
  options.kernels = &empty;
  Result<Method> m = l.program->load_method("forward", mem.manager(), options);
  EXPECT_EQ(m.error(), Error::OperatorMissing);
  bool one_line_with_all = false;
  for (const auto& line : LogCapture::lines()) {
    if (line.find("aten::add.out") != std::string::npos &&
        line.find("aten::mul.out") != std::string::npos &&
        line.find("aten::sub.out") != std::string::npos) {
      one_line_with_all = true;
    }
  }
  EXPECT_TRUE(one_line_with_all);
}

TEST(MethodTest, MissingBackendNamesTheBackend) {
  clear_backends_for_testing();
  Loaded l = load_program("add_xnnpack.pte");
  TestMemory mem(*l.program->method_meta("forward"));
  LogCapture logs;
  Result<Method> m = l.program->load_method("forward", mem.manager());
  EXPECT_EQ(m.error(), Error::BackendMissing);
  EXPECT_TRUE(logs.contains("XnnpackBackend"));
}

class RecordingBackend final : public BackendInterface {
 public:
  mutable int inits = 0, executes = 0, destroys = 0;
  mutable size_t blob_size = 0;
  mutable size_t last_args = 0;
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext& ctx, FreeableBuffer* processed,
                               Span<const CompileSpec>) const override {
    ++inits;
    blob_size = processed->size();
    void* state = ctx.method_allocator->allocate(16);
    if (state == nullptr) return Error::MemoryAllocationFailed;
    return state;
  }
  Error execute(BackendExecutionContext&, DelegateHandle* handle,
                Span<EValue*> args) const override {
    ++executes;
    last_args = args.size();
    return handle == nullptr ? Error::DelegateInvalidHandle : Error::Ok;
  }
  void destroy(DelegateHandle*) const override { ++destroys; }
};

TEST(MethodTest, DelegatesAreInitialisedExecutedAndDestroyed) {
  clear_backends_for_testing();
  static RecordingBackend backend;
  ASSERT_EQ(register_backend({"XnnpackBackend", &backend}), Error::Ok);
  {
    Loaded l = load_program("add_xnnpack.pte");
    Result<MethodMeta> meta = l.program->method_meta("forward");
    TestMemory mem(*meta);
    Result<Method> m = l.program->load_method("forward", mem.manager());
    ASSERT_TRUE(m.ok()) << to_string(m.error());
    EXPECT_EQ(backend.inits, 1);
    EXPECT_GT(backend.blob_size, 0u);
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < m->inputs_size(); ++i) {
      Result<HostTensor> t = filled_input(*meta, i, 1.f);
      ASSERT_TRUE(t.ok());
      inputs.push_back(std::move(*t));
      ASSERT_EQ(m->set_input(inputs.back().tensor(), i), Error::Ok);
    }
    ASSERT_EQ(m->execute(), Error::Ok);
    EXPECT_EQ(backend.executes, 1);
    EXPECT_GE(backend.last_args, 2u);
    EXPECT_EQ(backend.destroys, 0);
  }
  EXPECT_EQ(backend.destroys, 1);
  clear_backends_for_testing();
}

TEST(MethodTest, RejectsWrongInputs) {
  Loaded l = load_program("linear.pte");
  Result<MethodMeta> meta = l.program->method_meta("forward");
  TestMemory mem(*meta);
  Result<Method> m = l.program->load_method("forward", mem.manager());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->execute(), Error::InvalidState);  // inputs not set
  Result<TensorInfo> info = meta->input_tensor_meta(0);
  std::vector<int32_t> sizes(info->sizes.begin(), info->sizes.end());
  std::vector<int32_t> wrong = sizes;
  wrong.back() += 1;
  Result<HostTensor> bad_shape = filled_float(wrong, 1.f);
  ASSERT_TRUE(bad_shape.ok());
  EXPECT_EQ(m->set_input(bad_shape->tensor(), 0), Error::NotSupported);
  std::vector<int32_t> wrong_rank = sizes;
  wrong_rank.push_back(1);
  Result<HostTensor> bad_rank = filled_float(wrong_rank, 1.f);
  ASSERT_TRUE(bad_rank.ok());
  EXPECT_EQ(m->set_input(bad_rank->tensor(), 0), Error::InvalidArgument);
  Result<HostTensor> good = filled_float(sizes, 1.f);
  ASSERT_TRUE(good.ok());
  Result<HostTensor> ints = HostTensor::zeros(ScalarType::Long, sizes);
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(m->set_input(ints->tensor(), 0), Error::InvalidType);
  EXPECT_EQ(m->set_input(good->tensor(), 5), Error::InvalidArgument);
  EXPECT_EQ(m->set_input(good->tensor(), 0), Error::Ok);
  EXPECT_EQ(m->execute(), Error::Ok);
}

TEST(MethodTest, PlannedMemoryMustBeLargeEnough) {
  Loaded l = load_program("linear.pte");
  Result<MethodMeta> meta = l.program->method_meta("forward");
  ASSERT_GE(meta->num_memory_planned_buffers(), 1u);
  std::vector<uint8_t> method_pool(1 << 16);
  std::vector<uint8_t> small(static_cast<size_t>(*meta->memory_planned_buffer_size(0)) - 1);
  Span<uint8_t> spans[] = {{small.data(), small.size()}};
  HierarchicalAllocator planned(Span<Span<uint8_t>>(spans, 1));
  MemoryAllocator method_alloc(method_pool.data(), method_pool.size());
  MemoryManager mm(&method_alloc, &planned);
  EXPECT_EQ(l.program->load_method("forward", &mm).error(), Error::InvalidArgument);
  MemoryManager no_planned(&method_alloc);
  EXPECT_EQ(l.program->load_method("forward", &no_planned).error(), Error::InvalidArgument);
}

TEST(MethodTest, NonTensorInputsMustMatchTheExportedValue) {
  Loaded l = load_program("two_methods.pte");
  TestMemory mem(*l.program->method_meta("get_int"));
  Result<Method> m = l.program->load_method("get_int", mem.manager());
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->execute(), Error::Ok);
  ASSERT_TRUE(m->get_output(0).is_int());
  EXPECT_EQ(m->get_output(0).to_int(), 7);
  Result<Method> s = l.program->load_method("get_name", mem.manager());
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->execute(), Error::Ok);
  ASSERT_TRUE(s->get_output(0).is_string());
  EXPECT_EQ(std::string(s->get_output(0).to_string().data(), s->get_output(0).to_string().size()),
            "tiny");
}

// Every out-of-memory path of method load fails cleanly: grow the method
// allocator from zero until the load succeeds.
TEST(MethodTest, AllocationFailureSweep) {
  for (const char* name : {"linear.pte", "transformer.pte", "cond.pte", "two_methods.pte",
                           "mutable_buffer.pte", "int_bool_mix.pte"}) {
    SCOPED_TRACE(name);
    Loaded l = load_program(name);
    Result<MethodMeta> meta = l.program->method_meta("forward");
    ASSERT_TRUE(meta.ok());
    TestMemory mem(*meta);
    LogCapture quiet;
    std::vector<uint8_t> pool(1 << 20);
    size_t failures = 0;
    bool loaded = false;
    for (size_t size = 0; size <= pool.size(); size += 8) {
      MemoryAllocator method_alloc(pool.data(), size);
      MemoryManager mm(&method_alloc, mem.manager()->planned_memory(),
                       mem.manager()->temp_allocator());
      Result<Method> m = l.program->load_method("forward", &mm);
      if (m.ok()) {
        loaded = true;
        break;
      }
      ASSERT_EQ(m.error(), Error::MemoryAllocationFailed) << "at " << size << " bytes";
      ++failures;
    }
    EXPECT_TRUE(loaded);
    EXPECT_GT(failures, 10u);
  }
}

}  // namespace
}  // namespace etr

namespace etr {
namespace {

// Kernels that need scratch take it from the temp allocator; growing it from
// zero must give clean MemoryAllocationFailed results until execute succeeds.
TEST(MethodTest, TempAllocatorSweep) {
  for (const char* name : {"linear.pte", "mlp.pte", "transformer.pte", "cnn.pte"}) {
    SCOPED_TRACE(name);
    Loaded l = load_program(name);
    Result<MethodMeta> meta = l.program->method_meta("forward");
    ASSERT_TRUE(meta.ok());
    TestMemory mem(*meta);
    LogCapture quiet;
    std::vector<uint8_t> temp_pool(1 << 20);
    bool succeeded = false;
    for (size_t size = 0; size <= temp_pool.size() && !succeeded; size = size * 2 + 16) {
      MemoryAllocator temp(temp_pool.data(), size);
      MemoryManager mm(mem.manager()->method_allocator(), mem.manager()->planned_memory(), &temp);
      mem.manager()->method_allocator()->reset();
      Result<Method> m = l.program->load_method("forward", &mm);
      ASSERT_TRUE(m.ok());
      std::vector<HostTensor> inputs;
      for (size_t i = 0; i < m->inputs_size(); ++i) {
        Result<HostTensor> t = filled_input(*meta, i, 0.5f);
        ASSERT_TRUE(t.ok());
        inputs.push_back(std::move(*t));
        ASSERT_EQ(m->set_input(inputs.back().tensor(), i), Error::Ok);
      }
      const Error err = m->execute();
      ASSERT_TRUE(err == Error::Ok || err == Error::MemoryAllocationFailed) << to_string(err);
      succeeded = err == Error::Ok;
    }
    EXPECT_TRUE(succeeded);
  }
}

}  // namespace
}  // namespace etr
