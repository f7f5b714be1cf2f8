// MethodMeta::method_allocator_bytes (a measuring load) and MethodMemory
// (extension/memory): the measured figure is exact for plain portable
// programs, for kernels with prepare state and fusion (the optimized
// library) and for delegated programs; a load with that many bytes runs with
// PyTorch's outputs (test/models), one byte less fails naming what it was
// allocating; MethodLoadOptions::delegate_allocator takes delegate state.
#include "extension/memory/method_memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/module/module.h"
#include "extension/tensor/npy.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/backend/backend.h"
#include "runtime/executor/execute_observer.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"
#include "runtime/platform/platform.h"
#include "test/support/fixtures.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

// A fixture program in a 64-byte-aligned copy.
struct LoadedProgram {
  std::string bytes;
  void* data = nullptr;
  std::unique_ptr<BufferDataLoader> loader;
  std::unique_ptr<Program> program;
  explicit LoadedProgram(const std::string& path) {
    Result<std::string> text = testing::read_file(path);
    EXPECT_TRUE(text.ok()) << path;
    if (!text.ok()) return;
    bytes = *text;
    data = std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64);
    std::memcpy(data, bytes.data(), bytes.size());
    loader = std::make_unique<BufferDataLoader>(data, bytes.size());
    Result<Program> p = Program::load(loader.get());
    EXPECT_TRUE(p.ok()) << path;
    if (p.ok()) program = std::make_unique<Program>(std::move(*p));
  }
  ~LoadedProgram() {
    program.reset();
    std::free(data);
  }
};

testing::FixtureCase find_case(const std::string& dir, const std::string& pte) {
  for (const testing::FixtureCase& c : testing::load_manifest(dir)) {
    const std::string suffix = "/" + pte;
    if (c.pte.size() >= suffix.size() &&
        c.pte.compare(c.pte.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        c.expect_error.empty()) {
      return c;
    }
  }
  ADD_FAILURE() << "no manifest case for " << pte << " in " << dir;
  return {};
}

// A method allocator of exactly `bytes` (64-byte aligned, as documented).
std::unique_ptr<MethodMemory> exact_memory(const MethodMeta& meta, size_t bytes) {
  MethodMemoryOptions options;
  options.method_bytes = bytes;
  Result<std::unique_ptr<MethodMemory>> m = MethodMemory::create(meta, options);
  EXPECT_TRUE(m.ok());
  if (!m.ok()) return nullptr;
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*m)->method_allocator()->base()) %
                PlatformArena::kBufferAlignment,
            0u);
  return std::move(*m);
}

// Counts the kernel calls named `name` an execute makes.
class CallCounter final : public ExecuteObserver {
 public:
  explicit CallCounter(const char* name) : name_(name) {}
  void on_begin(const InstructionEvent& e) override {
    if (std::strcmp(e.name, name_) == 0) ++calls;
  }
  void on_end(const InstructionEvent&, Error) override {}
  size_t calls = 0;

 private:
  const char* name_;
};

// Measures `c`'s method with `options`; loads it with exactly that many
// method-allocator bytes and checks its outputs (execute observed by
// `observer`, may be null), then with one byte less and checks the failure.
// Returns the figure (0 on failure).
size_t check_exact(const testing::FixtureCase& c, const MethodLoadOptions& options,
                   ExecuteObserver* observer = nullptr) {
  LoadedProgram lp(c.pte);
  if (lp.program == nullptr) return 0;
  Result<MethodMeta> meta = lp.program->method_meta(c.method.c_str());
  EXPECT_TRUE(meta.ok());
  if (!meta.ok()) return 0;
  Result<size_t> need = meta->method_allocator_bytes(options);
  EXPECT_TRUE(need.ok()) << c.line;
  if (!need.ok()) return 0;
  {
    std::unique_ptr<MethodMemory> memory = exact_memory(*meta, *need);
    Result<Method> m = lp.program->load_method(c.method.c_str(), memory->manager(), options);
    EXPECT_TRUE(m.ok()) << c.line << ": " << to_string(m.error());
    if (!m.ok()) return 0;
    EXPECT_EQ(memory->method_bytes_used(), *need) << c.line;
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      Result<HostTensor> t = read_npy(c.inputs[i]);
      EXPECT_TRUE(t.ok()) << c.inputs[i];
      if (!t.ok()) return 0;
      inputs.push_back(std::move(*t));
      EXPECT_EQ(m->set_input(inputs.back().tensor(), i), Error::Ok) << c.line;
    }
    m->set_observer(observer);
    EXPECT_EQ(m->execute(), Error::Ok) << c.line;
    EXPECT_EQ(testing::compare_outputs(c, *m), "") << c.line;
  }
  {
    std::unique_ptr<MethodMemory> memory = exact_memory(*meta, *need - 1);
    char message[1024];
    ErrorCapture capture(message, sizeof(message));
    Result<Method> m = lp.program->load_method(c.method.c_str(), memory->manager(), options);
    EXPECT_TRUE(m.error() == Error::MemoryAllocationFailed ||
                m.error() == Error::DelegateMemoryAllocationFailed)
        << c.line << ": loads with " << *need - 1 << " bytes: " << to_string(m.error());
    const std::string msg = capture.message();
    EXPECT_NE(msg.find("allocating"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.method), std::string::npos) << msg;
  }
  return *need;
}

KernelRegistry& portable_registry() {
  static KernelRegistry registry;
  static bool done = [] {
    (void)registry.add(portable_kernel_library());
    (void)registry.add(prim_ops_library());
    return true;
  }();
  (void)done;
  return registry;
}

TEST(MethodMemoryTest, PlainPortableProgramIsExact) {
  MethodLoadOptions options;
  options.kernels = &portable_registry();
  EXPECT_NE(check_exact(find_case(testing::models_dir(), "mlp.pte"), options), 0u);
}

TEST(MethodMemoryTest, KernelPrepareStateAndFusionAreCounted) {
  ASSERT_EQ(register_builtins(), Error::Ok);  // the optimized library, when built
  const testing::FixtureCase c = find_case(testing::models_dir(), "conv_bn_fusion.pte");
  // Six convolution -> batch norm chains; fused, five batch norms run inside
  // the convolution (test/runner's profile test has the details).
  const char* bn = "aten::_native_batch_norm_legit_no_training.out";
  CallCounter stacked_bn(bn), plain_bn(bn);
  const size_t stacked = check_exact(c, MethodLoadOptions(), &stacked_bn);
  MethodLoadOptions portable;
  portable.kernels = &portable_registry();
  const size_t plain = check_exact(c, portable, &plain_bn);
  ASSERT_NE(stacked, 0u);
  ASSERT_NE(plain, 0u);
  EXPECT_EQ(plain_bn.calls, 6u);
#if ETR_MODULE_TEST_HAS_FUSION
  EXPECT_EQ(stacked_bn.calls, 1u);
#endif
#if ETR_MODULE_TEST_HAS_OPTIMIZED
  // Folded and packed convolution weights come on top of the same tables.
  EXPECT_GT(stacked, plain);
#endif
}

#if ETR_MODULE_TEST_HAS_XNNPACK
TEST(MethodMemoryTest, XnnpackDelegatedProgramIsExact) {
  ASSERT_EQ(register_builtins(), Error::Ok);
  const testing::FixtureCase c = find_case(testing::models_dir() + "xnnpack/", "mlp.pte");
  EXPECT_NE(check_exact(c, MethodLoadOptions()), 0u);
}
#endif

TEST(MethodMemoryTest, GrowingArenaUsesWhatTheMeasureReports) {
  ASSERT_EQ(register_builtins(), Error::Ok);
  LoadedProgram lp(testing::models_dir() + "conv_bn_fusion.pte");
  ASSERT_NE(lp.program, nullptr);
  Result<MethodMeta> meta = lp.program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  Result<size_t> need = meta->method_allocator_bytes();
  ASSERT_TRUE(need.ok());
  MethodMemoryOptions small_chunks;
  small_chunks.arena_chunk_bytes = 4096;  // many chunks, dedicated ones for packed weights
  Result<std::unique_ptr<MethodMemory>> memory = MethodMemory::create(*meta, small_chunks);
  ASSERT_TRUE(memory.ok());
  Result<Method> m = lp.program->load_method("forward", (*memory)->manager());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*memory)->method_bytes_used(), *need);
  EXPECT_GE((*memory)->method_bytes_reserved(), *need);
  // The arena's memory is real: the method runs with PyTorch's outputs.
  const testing::FixtureCase c = find_case(testing::models_dir(), "conv_bn_fusion.pte");
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Result<HostTensor> t = read_npy(c.inputs[i]);
    ASSERT_TRUE(t.ok());
    inputs.push_back(std::move(*t));
    ASSERT_EQ(m->set_input(inputs.back().tensor(), i), Error::Ok);
  }
  ASSERT_EQ(m->execute(), Error::Ok);
  EXPECT_EQ(testing::compare_outputs(c, *m), "");
  EXPECT_GT((*memory)->temp_bytes_peak(), 0u);
}

TEST(MethodMemoryTest, MeasureNeedsThePlatformHeap) {
  LoadedProgram lp(testing::models_dir() + "mlp.pte");
  ASSERT_NE(lp.program, nullptr);
  Result<MethodMeta> meta = lp.program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  const PlatformHooks saved = platform_hooks();
  PlatformHooks no_heap = saved;
  no_heap.allocate = [](size_t, size_t) -> void* { return nullptr; };
  set_platform_hooks(no_heap);
  char message[512];
  Error error = Error::Ok;
  {
    ErrorCapture capture(message, sizeof(message));
    MethodLoadOptions options;
    options.kernels = &portable_registry();
    Result<size_t> need = meta->method_allocator_bytes(options);
    error = need.ok() ? Error::Ok : need.error();
  }
  set_platform_hooks(saved);
  EXPECT_EQ(error, Error::MemoryAllocationFailed);
  EXPECT_NE(std::string(message).find("platform heap"), std::string::npos) << message;
}

// A backend whose delegates keep kStateBytes of state from ctx.method_allocator.
class StatefulBackend final : public BackendInterface {
 public:
  static constexpr size_t kStateBytes = 4000;
  mutable MemoryAllocator* seen = nullptr;
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext& ctx, FreeableBuffer*,
                               Span<const CompileSpec>) const override {
    seen = ctx.method_allocator;
    void* state = ctx.method_allocator->allocate(kStateBytes, 64);
    if (state == nullptr) {
      ETR_FAIL(Error::DelegateMemoryAllocationFailed,
               "test backend: out of memory allocating its %zu-byte state", kStateBytes);
    }
    return static_cast<DelegateHandle*>(state);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::Ok;
  }
};

TEST(MethodMemoryTest, DelegateAllocatorTakesDelegateState) {
  LoadedProgram lp(testing::models_dir() + "add_xnnpack.pte");
  ASSERT_NE(lp.program, nullptr);
  Result<MethodMeta> meta = lp.program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  StatefulBackend backend;
  BackendRegistry backends;
  ASSERT_EQ(backends.add({"XnnpackBackend", &backend}), Error::Ok);
  MethodLoadOptions options;
  options.backends = &backends;
  options.kernels = &portable_registry();

  // Without a delegate allocator the state comes from the method allocator
  // and is counted.
  Result<size_t> with_state = meta->method_allocator_bytes(options);
  ASSERT_TRUE(with_state.ok());
  {
    std::unique_ptr<MethodMemory> memory = exact_memory(*meta, *with_state);
    Result<Method> m = lp.program->load_method("forward", memory->manager(), options);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(backend.seen, memory->method_allocator());
  }

  // With one, the state goes there; the measure neither counts it nor touches it.
  alignas(64) static uint8_t region[StatefulBackend::kStateBytes];
  MemoryAllocator delegate_allocator(region, sizeof(region));
  options.delegate_allocator = &delegate_allocator;
  Result<size_t> without_state = meta->method_allocator_bytes(options);
  ASSERT_TRUE(without_state.ok());
  Result<size_t> delegate_state = meta->delegate_allocator_bytes(options);
  ASSERT_TRUE(delegate_state.ok());
  EXPECT_EQ(*delegate_state, StatefulBackend::kStateBytes);
  EXPECT_EQ(delegate_allocator.used(), 0u);
  EXPECT_GE(*with_state - *without_state, StatefulBackend::kStateBytes);
  {
    std::unique_ptr<MethodMemory> memory = exact_memory(*meta, *without_state);
    Result<Method> m = lp.program->load_method("forward", memory->manager(), options);
    ASSERT_TRUE(m.ok()) << to_string(m.error());
    EXPECT_EQ(backend.seen, &delegate_allocator);
    EXPECT_EQ(delegate_allocator.used(), *delegate_state);
    EXPECT_EQ(memory->method_bytes_used(), *without_state);
  }

  // A delegate allocator one byte short fails the delegate's init.
  MemoryAllocator too_small(region, *delegate_state - 1);
  options.delegate_allocator = &too_small;
  std::unique_ptr<MethodMemory> memory = exact_memory(*meta, *without_state);
  char message[512];
  ErrorCapture capture(message, sizeof(message));
  EXPECT_EQ(lp.program->load_method("forward", memory->manager(), options).error(),
            Error::DelegateMemoryAllocationFailed);
  EXPECT_NE(std::string(capture.message()).find("allocating its 4000-byte state"),
            std::string::npos)
      << capture.message();
  // Without a delegate allocator there is nothing to size.
  options.delegate_allocator = nullptr;
  Result<size_t> none = meta->delegate_allocator_bytes(options);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0u);
}

}  // namespace
}  // namespace etr
