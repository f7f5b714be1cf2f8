// The official ETDump API (extension/compat): ETDumpGen given to
// Program::load_method as the official runners do, its data sinks and the
// delegate hooks. The ETDump is parsed with the reader generated from
// devtools/etdump/etdump.fbs; names and ids are checked against the .pte's
// own instruction list, logged values against PyTorch's (fixture .npy).
#define ET_EVENT_TRACER_ENABLED 1
#include <gtest/gtest.h>

#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_generated.h"
#include "schema/program_generated.h"

namespace {

namespace fb = ::etdump;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::extension::FileDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::EventTracerProfilingLevel;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

const std::string kModels = std::string(ETR_SOURCE_DIR) + "/test/models/";

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The data of a version-1 .npy file.
std::vector<char> npy_data(const std::string& path) {
  std::vector<char> b = read_bytes(path);
  if (b.size() < 10) return {};
  const size_t start = 10 + static_cast<uint8_t>(b[8]) + 256 * static_cast<uint8_t>(b[9]);
  return std::vector<char>(b.begin() + static_cast<std::ptrdiff_t>(std::min(start, b.size())),
                           b.end());
}

// (instruction, "op.overload") of each kernel call in chain 0 of the .pte's first plan.
std::vector<std::pair<int, std::string>> kernel_calls(const std::string& pte) {
  const std::vector<char> bytes = read_bytes(pte);
  std::vector<std::pair<int, std::string>> calls;
  const etr_fb::ExecutionPlan* plan = etr_fb::GetProgram(bytes.data())->execution_plan()->Get(0);
  const auto* instrs = plan->chains()->Get(0)->instructions();
  for (flatbuffers::uoffset_t i = 0; i < instrs->size(); ++i) {
    const etr_fb::KernelCall* k = instrs->Get(i)->instr_args_as_KernelCall();
    if (k == nullptr) continue;
    const etr_fb::Operator* op = plan->operators()->Get(static_cast<uint32_t>(k->op_index()));
    calls.emplace_back(static_cast<int>(i), op->name()->str() + "." + op->overload()->str());
  }
  return calls;
}

const fb::ETDump* parse(const ETDumpResult& r) {
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(r.buf), r.size);
  EXPECT_TRUE(fb::VerifySizePrefixedETDumpBuffer(verifier));
  return fb::GetSizePrefixedETDump(r.buf);
}

std::string name_of(const fb::Event* e) {
  const fb::ProfileEvent* p = e->profile_event();
  return p == nullptr || p->name() == nullptr ? std::string() : p->name()->str();
}

// mlp.pte loaded through the official API with `tracer`, executed once on
// its fixture input.
struct OfficialRun {
  std::unique_ptr<FileDataLoader> loader;
  std::unique_ptr<Program> program;
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned;
  std::vector<uint8_t> method_pool = std::vector<uint8_t>(1 << 20);
  std::vector<uint8_t> temp_pool = std::vector<uint8_t>(1 << 20);
  std::unique_ptr<MemoryAllocator> method_alloc, temp_alloc;
  std::unique_ptr<MemoryManager> memory;
  std::unique_ptr<Method> method;

  bool run(executorch::runtime::EventTracer* tracer) {
    executorch::runtime::runtime_init();
    Result<FileDataLoader> l = FileDataLoader::from((kModels + "mlp.pte").c_str());
    if (!l.ok()) return false;
    loader = std::make_unique<FileDataLoader>(std::move(l.get()));
    Result<Program> p = Program::load(loader.get());
    if (!p.ok()) return false;
    program = std::make_unique<Program>(std::move(p.get()));
    Result<MethodMeta> meta = program->method_meta("forward");
    if (!meta.ok()) return false;
    for (size_t id = 0; id < meta->num_memory_planned_buffers(); ++id) {
      const size_t size = static_cast<size_t>(meta->memory_planned_buffer_size(id).get());
      buffers.push_back(std::make_unique<uint8_t[]>(size));
      spans.push_back({buffers.back().get(), size});
    }
    planned =
        std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans.data(), spans.size()));
    method_alloc = std::make_unique<MemoryAllocator>(method_pool.size(), method_pool.data());
    temp_alloc = std::make_unique<MemoryAllocator>(temp_pool.size(), temp_pool.data());
    memory = std::make_unique<MemoryManager>(method_alloc.get(), planned.get(), temp_alloc.get());
    Result<Method> m = program->load_method("forward", memory.get(), tracer);
    if (!m.ok()) return false;
    method = std::make_unique<Method>(std::move(m.get()));
    std::vector<char> input = npy_data(kModels + "mlp/a_in0.npy");
    std::vector<std::pair<char*, size_t>> inputs = {{input.data(), input.size()}};
    auto prepared = executorch::extension::prepare_input_tensors(*method, {}, inputs);
    return prepared.ok() && method->execute() == Error::Ok;
  }
};

TEST(OfficialETDumpTest, ETDumpGenRecordsLoadAndEveryOperatorWithPyTorchValues) {
  alignas(64) static uint8_t debug[1 << 16];
  ETDumpGen etdump;
  ASSERT_TRUE(etdump.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  etdump.set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  OfficialRun run;
  ASSERT_TRUE(run.run(&etdump));
  EXPECT_EQ(etdump.get_num_blocks(), 2u);
  ETDumpResult r = etdump.get_etdump_data();
  ASSERT_NE(r.buf, nullptr);
  EXPECT_EQ(std::memcmp(static_cast<const char*>(r.buf) + 8, "ED00", 4), 0);
  const fb::ETDump* dump = parse(r);
  ASSERT_EQ(dump->run_data()->size(), 2u);
  const fb::RunData* load = dump->run_data()->Get(0);
  EXPECT_EQ(load->name()->str(), "Default");
  ASSERT_EQ(load->events()->size(), 2u);
  EXPECT_EQ(name_of(load->events()->Get(0)), "Method::init");
  EXPECT_EQ(name_of(load->events()->Get(1)), "Program::load_method");
  EXPECT_EQ(load->events()->Get(1)->profile_event()->chain_index(), -1);

  // Per kernel call: its output, native_call_<op>, OPERATOR_CALL; then
  // Method::execute and the method's output.
  const fb::RunData* exec = dump->run_data()->Get(1);
  EXPECT_EQ(exec->name()->str(), "Execute");
  const auto calls = kernel_calls(kModels + "mlp.pte");
  ASSERT_EQ(calls.size(), 8u);
  ASSERT_EQ(exec->events()->size(), 3 * calls.size() + 2);
  for (size_t i = 0; i < calls.size(); ++i) {
    const auto at = [&](size_t k) {
      return exec->events()->Get(static_cast<flatbuffers::uoffset_t>(3 * i + k));
    };
    ASSERT_NE(at(0)->debug_event(), nullptr);
    EXPECT_EQ(at(0)->debug_event()->instruction_id(), calls[i].first);
    EXPECT_EQ(at(0)->debug_event()->chain_index(), 0u);
    const std::string op = calls[i].second.substr(calls[i].second.find("::") + 2);
    EXPECT_EQ(name_of(at(1)), "native_call_" + op);
    EXPECT_EQ(name_of(at(2)), "OPERATOR_CALL");
    EXPECT_EQ(at(1)->profile_event()->instruction_id(), calls[i].first);
    EXPECT_EQ(at(2)->profile_event()->instruction_id(), calls[i].first);
  }
  EXPECT_EQ(name_of(exec->events()->Get(exec->events()->size() - 2)), "Method::execute");
  const fb::DebugEvent* out = exec->events()->Get(exec->events()->size() - 1)->debug_event();
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->chain_index(), ~uint64_t{0});
  ASSERT_NE(out->debug_entry()->output(), nullptr);
  const std::vector<char> want = npy_data(kModels + "mlp/a_out0.npy");
  ASSERT_EQ(want.size(), 8 * sizeof(float));
  const int64_t offset = out->debug_entry()->tensor()->offset();
  ASSERT_GE(offset, 0);
  for (size_t i = 0; i < 8; ++i) {
    float w, got;
    std::memcpy(&w, want.data() + 4 * i, 4);
    std::memcpy(&got, debug + offset + 4 * i, 4);
    EXPECT_NEAR(got, w, 1e-5) << i;
  }
  std::free(r.buf);
  EXPECT_EQ(etdump.get_num_blocks(), 0u);  // the next block starts a new ETDump
}

TEST(OfficialETDumpTest, MethodOnlyProfilingAndStaticBuffer) {
  static uint8_t out[1 << 14];
  ETDumpGen etdump(Span<uint8_t>(out, sizeof(out)));
  EXPECT_TRUE(etdump.is_static_etdump());
  etdump.set_event_tracer_profiling_level(EventTracerProfilingLevel::kProfileMethodOnly);
  OfficialRun run;
  ASSERT_TRUE(run.run(&etdump));
  ETDumpResult r = etdump.get_etdump_data();
  EXPECT_EQ(r.buf, static_cast<void*>(out));
  const fb::ETDump* dump = parse(r);
  ASSERT_EQ(dump->run_data()->size(), 2u);
  const fb::RunData* exec = dump->run_data()->Get(1);
  ASSERT_EQ(exec->events()->size(), 1u);  // no instruction events, nothing logged
  EXPECT_EQ(name_of(exec->events()->Get(0)), "Method::execute");
}

// A filter that keeps only the delegate outputs named "keep".
class KeepFilter final : public executorch::runtime::EventTracerFilterBase {
 public:
  Result<bool> filter(const char* name, executorch::runtime::DelegateDebugIntId) override {
    return name != nullptr && std::strcmp(name, "keep") == 0;
  }
};

TEST(OfficialETDumpTest, DelegateHooksWriteTheirIdsAndOutputs) {
  alignas(64) static uint8_t debug[1024];
  ETDumpGen etdump;
  ASSERT_TRUE(etdump.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  etdump.set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  KeepFilter keep;
  etdump.set_delegation_intermediate_output_filter(&keep);
  executorch::runtime::internal::event_tracer_create_event_block(&etdump, "Execute");
  etdump.set_chain_debug_handle(0, 4);  // inside instruction 4, as a delegate call sees it
  auto e = executorch::runtime::event_tracer_start_profiling_delegate(&etdump, "Conv #1", -1);
  const uint8_t meta[3] = {1, 2, 3};
  executorch::runtime::event_tracer_end_profiling_delegate(&etdump, e, meta, sizeof(meta));
  executorch::runtime::event_tracer_log_profiling_delegate(&etdump, nullptr, 7, 100, 160);
  executorch::runtime::event_tracer_log_output_delegate(&etdump, "keep", -1, 2.5);
  executorch::runtime::event_tracer_log_output_delegate(&etdump, "drop", -1, 1.0);
  EXPECT_EQ(etdump.log_intermediate_output_delegate("keep", 3, 1.0).error(),
            Error::InvalidArgument);  // a name and an int id
  ETDumpResult r = etdump.get_etdump_data();
  const fb::RunData* block = parse(r)->run_data()->Get(0);
  ASSERT_EQ(block->events()->size(), 3u);
  const fb::ProfileEvent* by_name = block->events()->Get(0)->profile_event();
  EXPECT_EQ(by_name->name(), nullptr);
  EXPECT_EQ(by_name->delegate_debug_id_str()->str(), "Conv #1");
  EXPECT_EQ(by_name->instruction_id(), 4);
  ASSERT_EQ(by_name->delegate_debug_metadata()->size(), 3u);
  EXPECT_EQ(by_name->delegate_debug_metadata()->Get(2), 3);
  const fb::ProfileEvent* by_int = block->events()->Get(1)->profile_event();
  EXPECT_EQ(by_int->delegate_debug_id_int(), 7);
  EXPECT_EQ(by_int->end_time() - by_int->start_time(), 60u);
  const fb::DebugEvent* logged = block->events()->Get(2)->debug_event();
  ASSERT_NE(logged, nullptr);
  EXPECT_EQ(logged->delegate_debug_id_str()->str(), "keep");
  EXPECT_EQ(logged->debug_entry()->double_value()->double_val(), 2.5);
  std::free(r.buf);
}

// A backend on the official API for test/models/custom_backend.pte (its
// whole graph, y = x * scale + bias, delegated to "OfficialTestBackend" with
// payload "AFFINE" + scale + bias), reporting its own events through the
// delegate hooks: one timed sub-event "AFFINE" (metadata: the element
// count) and its output, logged under the name "affine_out".
struct Affine {
  float scale;
  float bias;
};
class EtdumpAffineBackend final : public executorch::runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext& context,
      executorch::runtime::FreeableBuffer* processed,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec>) const override {
    init_saw_tracer = context.event_tracer() != nullptr;
    if (processed->size() != 14 || std::memcmp(processed->data(), "AFFINE", 6) != 0)
      return Error::InvalidProgram;
    Affine* a = context.get_runtime_allocator()->allocateInstance<Affine>();
    if (a == nullptr) return Error::MemoryAllocationFailed;
    std::memcpy(&a->scale, static_cast<const uint8_t*>(processed->data()) + 6, 4);
    std::memcpy(&a->bias, static_cast<const uint8_t*>(processed->data()) + 10, 4);
    return static_cast<executorch::runtime::DelegateHandle*>(a);
  }
  Error execute(executorch::runtime::BackendExecutionContext& context,
                executorch::runtime::DelegateHandle* handle,
                Span<executorch::runtime::EValue*> args) const override {
    executorch::runtime::EventTracer* tracer = context.event_tracer();
    auto entry = executorch::runtime::event_tracer_start_profiling_delegate(tracer, "AFFINE", -1);
    const Affine* a = static_cast<const Affine*>(handle);
    const executorch::aten::Tensor in = args[0]->toTensor();
    executorch::aten::Tensor out = args[1]->toTensor();
    for (ptrdiff_t i = 0; i < in.numel(); ++i)
      out.mutable_data_ptr<float>()[i] = in.const_data_ptr<float>()[i] * a->scale + a->bias;
    const int64_t n = in.numel();
    executorch::runtime::event_tracer_end_profiling_delegate(tracer, entry, &n, sizeof(n));
    executorch::runtime::event_tracer_log_output_delegate(tracer, "affine_out", -1, out);
    return Error::Ok;
  }
  mutable bool init_saw_tracer = false;
};

TEST(OfficialETDumpTest, OfficialBackendReportsItsOwnEvents) {
  static EtdumpAffineBackend backend;
  static const Error registered =
      executorch::runtime::register_backend({"OfficialTestBackend", &backend});
  ASSERT_EQ(registered, Error::Ok);
  executorch::runtime::runtime_init();
  alignas(64) static uint8_t debug[1 << 14];
  ETDumpGen etdump;
  ASSERT_TRUE(etdump.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  etdump.set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);

  Result<FileDataLoader> loader = FileDataLoader::from((kModels + "custom_backend.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  for (size_t id = 0; id < meta->num_memory_planned_buffers(); ++id) {
    buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(id).get()));
    spans.push_back({buffers.back().data(), buffers.back().size()});
  }
  HierarchicalAllocator planned(Span<Span<uint8_t>>(spans.data(), spans.size()));
  std::vector<uint8_t> method_pool(1 << 16), temp_pool(1 << 16);
  MemoryAllocator method_alloc(method_pool.size(), method_pool.data());
  MemoryAllocator temp_alloc(temp_pool.size(), temp_pool.data());
  MemoryManager memory(&method_alloc, &planned, &temp_alloc);
  Result<Method> method = program->load_method("forward", &memory, &etdump);
  ASSERT_TRUE(method.ok());
  EXPECT_TRUE(backend.init_saw_tracer);
  std::vector<char> input = npy_data(kModels + "custom_backend/a_in0.npy");
  std::vector<std::pair<char*, size_t>> inputs = {{input.data(), input.size()}};
  auto prepared = executorch::extension::prepare_input_tensors(*method, {}, inputs);
  ASSERT_TRUE(prepared.ok());
  ASSERT_EQ(method->execute(), Error::Ok);

  ETDumpResult r = etdump.get_etdump_data();
  const fb::RunData* exec = parse(r)->run_data()->Get(1);
  // The delegate's sub-event and output, the call's arguments (input and
  // output), DELEGATE_CALL, Method::execute, the method's output.
  ASSERT_EQ(exec->events()->size(), 7u);
  const fb::ProfileEvent* sub = exec->events()->Get(0)->profile_event();
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->name(), nullptr);
  EXPECT_EQ(sub->delegate_debug_id_str()->str(), "AFFINE");
  EXPECT_EQ(sub->instruction_id(), 0);
  ASSERT_EQ(sub->delegate_debug_metadata()->size(), sizeof(int64_t));
  const fb::DebugEvent* logged = exec->events()->Get(1)->debug_event();
  ASSERT_NE(logged, nullptr);
  EXPECT_EQ(logged->delegate_debug_id_str()->str(), "affine_out");
  const std::vector<char> want = npy_data(kModels + "custom_backend/a_out0.npy");
  const int64_t offset = logged->debug_entry()->tensor()->offset();
  ASSERT_GE(offset, 0);
  for (size_t i = 0; i < want.size() / 4; ++i) {
    float w, got;
    std::memcpy(&w, want.data() + 4 * i, 4);
    std::memcpy(&got, debug + offset + 4 * i, 4);
    EXPECT_NEAR(got, w, 1e-5) << i;
  }
  EXPECT_NE(exec->events()->Get(2)->debug_event(), nullptr);
  EXPECT_NE(exec->events()->Get(3)->debug_event(), nullptr);
  EXPECT_EQ(name_of(exec->events()->Get(4)), "DELEGATE_CALL");
  EXPECT_EQ(name_of(exec->events()->Get(5)), "Method::execute");
  std::free(r.buf);
}

}  // namespace
