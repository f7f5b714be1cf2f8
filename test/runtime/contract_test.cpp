// The runtime contract seen from outside: stacked kernel libraries with
// priority and fallback, prepare and per-instruction state, dtype refusal at
// load, the thread pool and op name reaching kernels, backends getting their
// registry, named data, options and pool, and MethodMeta's exact table size.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/memory/method_memory.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"
#include "test/runtime/runtime_test_util.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

using testing::AlignedBytes;
using testing::FixtureCase;
using testing::LoadedMethod;
using testing::TestMemory;

// A pool that runs chunks inline but says it has two threads, and counts calls.
class CountingPool final : public ThreadPool {
 public:
  size_t num_threads() const override { return 2; }
  void parallel_for(size_t n, size_t grain, RangeFn fn) override {
    ++calls;
    for (size_t b = 0; b < n; b += grain) fn(b, b + grain < n ? b + grain : n);
  }
  int calls = 0;
};

FixtureCase fixture_case(const std::string& pte) {
  for (const FixtureCase& c : testing::load_manifest()) {
    const bool same = c.pte.size() >= pte.size() &&
                      c.pte.compare(c.pte.size() - pte.size(), pte.size(), pte) == 0;
    if (same && c.expect_error.empty()) return c;
  }
  ADD_FAILURE() << "no manifest case for " << pte;
  return FixtureCase{};
}

const KernelEntry& portable(const char* name) {
  const KernelEntry* e = find_kernel_entry(portable_kernels(), name);
  EXPECT_NE(e, nullptr) << name;
  return *e;
}

// ---- A "fast" library: add.out with state; mul.out that always declines ----

struct AddState {
  int runs = 0;
  int id = 0;
};
struct FastLog {
  int prepares = 0;
  int mul_declines = 0;
  ThreadPool* seen_pool = nullptr;
  std::string seen_op;
  int parallel_chunks = 0;
  AddState* last_state = nullptr;
};
FastLog g_fast;

Error fast_add_prepare(KernelPrepareContext& ctx, EValue* const* args) {
  (void)args;
  AddState* s = ctx.make_state<AddState>();
  if (s == nullptr) return Error::MemoryAllocationFailed;
  s->id = ++g_fast.prepares;
  ctx.set_state(s);
  return Error::Ok;
}

// Counts, touches the pool, then computes with the portable kernel.
void fast_add(KernelContext& ctx, EValue* const* args) {
  AddState* s = ctx.state<AddState>();
  ++s->runs;
  g_fast.last_state = s;
  g_fast.seen_pool = ctx.thread_pool();
  g_fast.seen_op = ctx.op_name();
  parallel_for(ctx.thread_pool(), 8, 2, [](size_t, size_t) { ++g_fast.parallel_chunks; });
  portable("aten::add.out").fn(ctx, args);
}

Error fast_mul_prepare(KernelPrepareContext&, EValue* const*) {
  ++g_fast.mul_declines;
  return Error::NotSupported;  // silently defer to the next library
}
void never_runs(KernelContext& ctx, EValue* const*) { ctx.fail(Error::Internal); }

std::vector<KernelEntry> fast_library_table() {
  const KernelEntry& add = portable("aten::add.out");
  const KernelEntry& mul = portable("aten::mul.out");
  return {make_raw_kernel("aten::add.out", &fast_add, add.arg_kinds, add.num_args,
                          DtypeSet::of(ScalarType::Float), 0, &fast_add_prepare),
          make_raw_kernel("aten::mul.out", &never_runs, mul.arg_kinds, mul.num_args, kAllTypes, 0,
                          &fast_mul_prepare)};
}

// Loads `c` with `options` on fresh memory and sets the fixture's inputs.
struct OptionsRun {
  LoadedMethod lm;
  std::unique_ptr<TestMemory> mem;
  Error load = Error::Ok;
};

void load_with(const FixtureCase& c, const MethodLoadOptions& options, OptionsRun* r) {
  testing::register_all_kernels();
  ASSERT_TRUE(testing::load_fixture_method(c, &r->lm)) << r->lm.error;
  Result<MethodMeta> meta = r->lm.program->method_meta(c.method.c_str());
  ASSERT_TRUE(meta.ok());
  r->mem = std::make_unique<TestMemory>(*meta);
  Result<Method> m = r->lm.program->load_method(c.method.c_str(), r->mem->manager(), options);
  r->load = m.error();
  r->lm.method.reset();
  if (m.ok()) r->lm.method = std::make_unique<Method>(std::move(*m));
}

TEST(ContractTest, StackedLibrariesPreferHigherPriorityAndFallBack) {
  static const std::vector<KernelEntry> fast = fast_library_table();
  KernelRegistry registry;
  ASSERT_EQ(registry.add(portable_kernel_library()), Error::Ok);
  ASSERT_EQ(registry.add(prim_ops_library()), Error::Ok);
  ASSERT_EQ(
      registry.add({"fast", kOptimizedPriority, Span<const KernelEntry>(fast.data(), fast.size())}),
      Error::Ok);
  g_fast = FastLog{};
  CountingPool pool;
  MethodLoadOptions options;
  options.kernels = &registry;
  options.thread_pool = &pool;
  const FixtureCase c = fixture_case("add_mul.pte");
  OptionsRun r;
  load_with(c, options, &r);
  ASSERT_EQ(r.load, Error::Ok);
  EXPECT_EQ(g_fast.prepares, 1);      // add_mul has one aten::add.out call: prepared once
  EXPECT_EQ(g_fast.mul_declines, 1);  // the fast mul declined; the portable one took it
  for (int run = 1; run <= 3; ++run) {
    ASSERT_TRUE(testing::set_fixture_inputs(c, &r.lm));
    ASSERT_EQ(r.lm.method->execute(), Error::Ok);
    EXPECT_EQ(testing::compare_outputs(c, *r.lm.method), "");  // PyTorch's numbers
    ASSERT_NE(g_fast.last_state, nullptr);
    EXPECT_EQ(g_fast.last_state->runs, run);  // the same state on every execute
    EXPECT_EQ(g_fast.last_state->id, 1);
  }
  EXPECT_EQ(g_fast.prepares, 1);  // never prepared again
  EXPECT_EQ(g_fast.seen_pool, &pool);
  EXPECT_EQ(g_fast.seen_op, "aten::add.out");
  EXPECT_EQ(g_fast.parallel_chunks, 3 * 4);
  EXPECT_EQ(pool.calls, 3);
}

// A copy of the portable table without aten::add.out, plus a strict add.
std::vector<KernelEntry> portable_without_add() {
  std::vector<KernelEntry> out;
  for (const KernelEntry& e : portable_kernels()) {
    if (std::strcmp(e.name, "aten::add.out") != 0) out.push_back(e);
  }
  return out;
}

Error refusing_prepare(KernelPrepareContext& ctx, EValue* const* args) {
  ETR_CHECK_OR_FAIL(args[2]->is_int() && args[2]->to_int() == 1, Error::InvalidArgument,
                    "%s: this library only handles alpha == 1", ctx.op_name());
  return Error::Ok;
}

struct RefusalCase {
  DtypeSet dtypes;
  PrepareFn prepare;
  Error expected;
  const char* needle;
};

void expect_refusal(const RefusalCase& rc) {
  static const std::vector<KernelEntry> rest = portable_without_add();
  const KernelEntry& add = portable("aten::add.out");
  static KernelEntry strict[1];
  strict[0] = make_raw_kernel("aten::add.out", add.fn, add.arg_kinds, add.num_args, rc.dtypes, 0,
                              rc.prepare);
  KernelRegistry registry;
  ASSERT_EQ(
      registry.add({"rest", kPortablePriority, Span<const KernelEntry>(rest.data(), rest.size())}),
      Error::Ok);
  ASSERT_EQ(registry.add({"strict", kCustomPriority, Span<const KernelEntry>(strict, 1)}),
            Error::Ok);
  MethodLoadOptions options;
  options.kernels = &registry;
  char message[1024];
  ErrorCapture capture(message, sizeof(message));
  OptionsRun r;
  load_with(fixture_case("add_mul.pte"), options, &r);
  EXPECT_EQ(r.load, rc.expected);
  const std::string msg = capture.message();
  EXPECT_NE(msg.find("instruction"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aten::add.out"), std::string::npos) << msg;
  EXPECT_NE(msg.find(rc.needle), std::string::npos) << msg;
}

TEST(ContractTest, DtypeOutsideTheDeclaredSetIsRefusedAtLoad) {
  expect_refusal({DtypeSet::of(ScalarType::Double), nullptr, Error::InvalidType, "dtype Float"});
}

TEST(ContractTest, PrepareRefusalIsRefusedAtLoadWithItsReason) {
  expect_refusal({kFloatingTypes, &refusing_prepare, Error::InvalidArgument, "alpha == 1"});
}

TEST(ContractTest, MethodMetaMethodAllocatorBytesAreExact) {
  testing::register_all_kernels();
  for (const char* file : testing::kFixtureFiles) {
    if (std::strcmp(file, "add_xnnpack.pte") == 0) continue;  // needs a backend; see below
    AlignedBytes bytes = testing::read_aligned_file(testing::model_path(file));
    BufferDataLoader loader(bytes.data(), bytes.size());
    Result<Program> program = Program::load(&loader);
    ASSERT_TRUE(program.ok()) << file;
    for (size_t i = 0; i < program->num_methods(); ++i) {
      const char* name = *program->get_method_name(i);
      Result<MethodMeta> meta = program->method_meta(name);
      ASSERT_TRUE(meta.ok());
      Result<size_t> need = meta->method_allocator_bytes();
      ASSERT_TRUE(need.ok()) << file << ":" << name;
      // Fixed method allocators over 64-byte-aligned buffers (platform_allocate), as documented.
      MethodMemoryOptions exact_options;
      exact_options.method_bytes = *need;
      Result<std::unique_ptr<MethodMemory>> exact = MethodMemory::create(*meta, exact_options);
      ASSERT_TRUE(exact.ok());
      ASSERT_EQ(reinterpret_cast<uintptr_t>((*exact)->method_allocator()->base()) % 64, 0u);
      EXPECT_EQ(program->load_method(name, (*exact)->manager()).error(), Error::Ok)
          << file << ":" << name;
      EXPECT_EQ((*exact)->method_allocator()->used(), *need) << file << ":" << name;
      MethodMemoryOptions short_options;
      short_options.method_bytes = *need - 1;
      Result<std::unique_ptr<MethodMemory>> short_by_one =
          MethodMemory::create(*meta, short_options);
      ASSERT_TRUE(short_by_one.ok());
      EXPECT_EQ(program->load_method(name, (*short_by_one)->manager()).error(),
                Error::MemoryAllocationFailed)
          << file << ":" << name << " loads with " << *need - 1 << " bytes";
    }
  }
}

// ---- Backends: registry passed in, named data merged, options and pool ----

class OneKeyMap final : public NamedDataMap {
 public:
  Result<FreeableBuffer> get_data(StringView key) const override {
    if (key == StringView("extra")) return FreeableBuffer(bytes_, sizeof(bytes_));
    return Error::NotFound;
  }
  Result<TensorLayout> get_layout(StringView) const override { return Error::NotFound; }
  size_t num_keys() const override { return 1; }
  Result<const char*> key_at(size_t i) const override {
    if (i == 0) return "extra";
    return Error::InvalidArgument;
  }

 private:
  uint8_t bytes_[4] = {1, 2, 3, 4};
};

struct InitSeen {
  size_t keys = 0;
  bool program_key = false;
  bool extra_key = false;
  int64_t threads_option = -1;
  ThreadPool* pool = nullptr;
  size_t delegate_index = 99;
  int executes = 0;
  ThreadPool* execute_pool = nullptr;
};

class RecordingBackend final : public BackendInterface {
 public:
  mutable InitSeen seen;
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext& ctx, FreeableBuffer*,
                               Span<const CompileSpec>) const override {
    seen.keys = ctx.named_data->num_keys();
    Result<const char*> first = ctx.named_data->key_at(0);
    seen.program_key = first.ok() && ctx.named_data->get_data(*first).ok();
    seen.extra_key = ctx.named_data->get_data("extra").ok();
    for (const BackendOption& o : ctx.options) {
      if (std::strcmp(o.key, "threads") == 0 && o.kind == BackendOption::Kind::Int)
        seen.threads_option = o.int_value;
    }
    seen.pool = ctx.thread_pool;
    seen.delegate_index = ctx.delegate_index;
    return static_cast<DelegateHandle*>(ctx.method_allocator->allocate(8));
  }
  Error execute(BackendExecutionContext& ctx, DelegateHandle*, Span<EValue*>) const override {
    ++seen.executes;
    seen.execute_pool = ctx.thread_pool;
    return Error::Ok;
  }
};

TEST(ContractTest, BackendsGetTheirRegistryNamedDataOptionsAndPool) {
  testing::register_all_kernels();
  AlignedBytes bytes = testing::read_aligned_file(testing::model_path("add_xnnpack.pte"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  Result<MethodMeta> meta = program->method_meta("forward");
  TestMemory mem(*meta);
  // Not in the default registry: the default load still fails cleanly.
  EXPECT_EQ(program->load_method("forward", mem.manager()).error(), Error::BackendMissing);
  RecordingBackend backend;
  BackendRegistry backends;
  ASSERT_EQ(backends.add({"XnnpackBackend", &backend}), Error::Ok);
  BackendOptions<2> opts;
  ASSERT_EQ(opts.set("threads", 3), Error::Ok);
  ASSERT_EQ(opts.set("threads", 4), Error::Ok);  // replaces
  const DelegateOptions per_backend[] = {{"XnnpackBackend", opts.view()}};
  OneKeyMap extra;
  const NamedDataMap* maps[] = {&extra};
  CountingPool pool;
  MethodLoadOptions options;
  options.backends = &backends;
  options.delegate_options = per_backend;
  options.external_data = maps;
  options.thread_pool = &pool;
  TestMemory mem2(*meta);
  Result<Method> m = program->load_method("forward", mem2.manager(), options);
  ASSERT_TRUE(m.ok()) << to_string(m.error());
  EXPECT_EQ(backend.seen.keys, program->named_data().num_keys() + 1);
  EXPECT_TRUE(backend.seen.program_key);
  EXPECT_TRUE(backend.seen.extra_key);
  EXPECT_EQ(backend.seen.threads_option, 4);
  EXPECT_EQ(backend.seen.pool, &pool);
  EXPECT_EQ(backend.seen.delegate_index, 0u);
  for (size_t i = 0; i < m->inputs_size(); ++i) {
    ASSERT_EQ(m->set_input(m->get_input(i).to_tensor(), i), Error::Ok);
  }
  ASSERT_EQ(m->execute(), Error::Ok);
  EXPECT_EQ(backend.seen.executes, 1);
  EXPECT_EQ(backend.seen.execute_pool, &pool);
  EXPECT_EQ(set_backend_option("XnnpackBackend", opts.view(), &backends), Error::NotSupported);
  EXPECT_EQ(set_backend_option("Nope", opts.view(), &backends), Error::NotFound);
}

TEST(ContractTest, ErrorCaptureCollectsMessagesOfOneThread) {
  char outer_buf[256];
  ErrorCapture outer(outer_buf, sizeof(outer_buf));
  {
    char inner_buf[32];
    ErrorCapture inner(inner_buf, sizeof(inner_buf));
    ETR_LOG(Error, "first %d", 1);
    ETR_LOG(Info, "not an error");
    ETR_LOG(Error, "second message that is longer than the buffer");
    EXPECT_EQ(std::string(inner.message()).substr(0, 9), "first 1; ");
    EXPECT_EQ(std::strlen(inner.message()), 31u);  // truncated, NUL-terminated
  }
  EXPECT_TRUE(outer.empty());
  ETR_LOG(Error, "third");
  EXPECT_STREQ(outer.message(), "third");
  outer.clear();
  EXPECT_TRUE(outer.empty());
}

}  // namespace
}  // namespace etr
