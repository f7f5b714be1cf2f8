// ETDump (devtools/etdump): the bytes are parsed with the reader flatc
// generates from devtools/etdump/etdump.fbs and checked against the program
// itself (operator names and instruction numbers read from the .pte with its
// own schema) and against PyTorch's values (the fixtures' .npy references).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_generated.h"
#include "devtools/etdump/etdump_observer.h"
#include "devtools/etdump/etdump_writer.h"
#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"
#include "schema/program_generated.h"
#include "test/support/fixtures.h"
#include "test/support/in_process.h"
#if ETR_ETDUMP_TEST_HAS_XNNPACK
#include "backends/xnnpack/xnnpack_backend.h"
#endif

namespace etr {
namespace {

namespace fb = ::etdump;

constexpr uint64_t kProgramOutputChain = ~uint64_t{0};

// A debug buffer on a 64-byte boundary, as the official sink lays blobs out.
struct DebugBuffer {
  alignas(64) uint8_t bytes[1 << 16];
};

testing::FixtureCase fixture(const std::string& name, int num_inputs, int num_outputs = 1) {
  testing::FixtureCase c;
  const std::string dir = testing::models_dir();
  c.line = name;
  c.pte = dir + name + ".pte";
  c.method = "forward";
  for (int i = 0; i < num_inputs; ++i)
    c.inputs.push_back(dir + name + "/a_in" + std::to_string(i) + ".npy");
  for (int i = 0; i < num_outputs; ++i)
    c.expected.push_back(dir + name + "/a_out" + std::to_string(i) + ".npy");
  return c;
}

// The kernel calls of the .pte's forward chain 0, as (instruction, "op.overload").
std::vector<std::pair<int, std::string>> program_kernel_calls(const std::string& pte) {
  Result<std::string> bytes = testing::read_file(pte);
  EXPECT_TRUE(bytes.ok());
  std::vector<std::pair<int, std::string>> calls;
  if (!bytes.ok()) return calls;
  const etr_fb::Program* program = etr_fb::GetProgram(bytes->data());
  const etr_fb::ExecutionPlan* plan = program->execution_plan()->Get(0);
  const auto* instrs = plan->chains()->Get(0)->instructions();
  for (flatbuffers::uoffset_t i = 0; i < instrs->size(); ++i) {
    const etr_fb::KernelCall* k = instrs->Get(i)->instr_args_as_KernelCall();
    if (k == nullptr) continue;
    const etr_fb::Operator* op = plan->operators()->Get(static_cast<uint32_t>(k->op_index()));
    std::string name = op->name()->str();
    if (op->overload() != nullptr && op->overload()->size() != 0)
      name += "." + op->overload()->str();
    calls.emplace_back(static_cast<int>(i), name);
  }
  return calls;
}

const fb::ETDump* parse(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  EXPECT_TRUE(fb::VerifySizePrefixedETDumpBuffer(verifier));
  return fb::GetSizePrefixedETDump(bytes.data());
}

std::string name_of(const fb::ProfileEvent* p) {
  return p->name() == nullptr ? std::string() : p->name()->str();
}

// The tensor a debug event logged, read from `debug` (contiguous bytes at its offset).
Result<HostTensor> logged_tensor(const fb::DebugEvent* d, const uint8_t* debug, size_t debug_size) {
  const fb::Tensor* t = d->debug_entry()->tensor();
  std::vector<int32_t> sizes;
  size_t numel = 1;
  for (int64_t s : *t->sizes()) {
    sizes.push_back(static_cast<int32_t>(s));
    numel *= static_cast<size_t>(s);
  }
  const auto dtype = static_cast<ScalarType>(t->scalar_type());
  const size_t nbytes = numel * element_size(dtype);
  EXPECT_GE(t->offset(), 0);
  EXPECT_LE(static_cast<size_t>(t->offset()) + nbytes, debug_size);
  return HostTensor::from_bytes(dtype, sizes, debug + t->offset(), nbytes);
}

// Loads `c` with an ETDump observer at `level`, runs it `runs` times and
// returns the finished ETDump.
struct Recorded {
  std::vector<uint8_t> bytes;
  Error logging_error = Error::Ok;
  size_t debug_used = 0;
};
Recorded record(const testing::FixtureCase& c, etdump::DebugLevel level, DebugBuffer* debug,
                int runs = 1, MethodLoadOptions options = MethodLoadOptions(),
                size_t debug_size = sizeof(DebugBuffer::bytes)) {
  etdump::ETDumpWriter writer;
  etdump::BufferDataSink sink(Span<uint8_t>(debug->bytes, debug_size));
  writer.set_data_sink(&sink);
  etdump::ETDumpObserver observer(&writer);
  observer.set_debug_level(level);
  options.observer = &observer;
  options.kernel_fusion = false;
  testing::LoadedMethod lm;
  Recorded r;
  EXPECT_TRUE(testing::load_fixture_method(c, &lm, &options)) << lm.error;
  if (lm.method == nullptr) return r;
  for (int i = 0; i < runs; ++i) {
    EXPECT_TRUE(testing::set_fixture_inputs(c, &lm)) << lm.error;
    EXPECT_EQ(lm.method->execute(), Error::Ok);
  }
  EXPECT_EQ(testing::compare_outputs(c, *lm.method), "");
  r.bytes = writer.finish();
  r.logging_error = observer.logging_error();
  r.debug_used = sink.used_bytes();
  return r;
}

TEST(ETDumpTest, SizePrefixedWithIdentifierED00) {
  testing::register_all_kernels();
  DebugBuffer debug;
  const Recorded r = record(fixture("mlp", 1), etdump::DebugLevel::kNoLogging, &debug);
  ASSERT_GE(r.bytes.size(), 12u);
  uint32_t prefix = 0;
  std::memcpy(&prefix, r.bytes.data(), 4);
  EXPECT_EQ(prefix, r.bytes.size() - 4);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(r.bytes.data()) + 8, 4), "ED00");
  const fb::ETDump* dump = parse(r.bytes);
  ASSERT_NE(dump->run_data(), nullptr);
  EXPECT_EQ(dump->run_data()->size(), 2u);
  EXPECT_EQ(r.debug_used, 0u);
}

TEST(ETDumpTest, LoadBlockThenOneEventPairPerOperatorInProgramOrder) {
  testing::register_all_kernels();
  const testing::FixtureCase c = fixture("mlp", 1);
  DebugBuffer debug;
  const Recorded r = record(c, etdump::DebugLevel::kNoLogging, &debug, /*runs=*/2);
  const fb::ETDump* dump = parse(r.bytes);
  ASSERT_EQ(dump->run_data()->size(), 3u);  // load, then two executes

  const fb::RunData* load = dump->run_data()->Get(0);
  EXPECT_EQ(load->name()->str(), "Default");
  ASSERT_EQ(load->events()->size(), 2u);
  const fb::ProfileEvent* init = load->events()->Get(0)->profile_event();
  const fb::ProfileEvent* load_method = load->events()->Get(1)->profile_event();
  ASSERT_NE(init, nullptr);
  ASSERT_NE(load_method, nullptr);
  EXPECT_EQ(name_of(init), "Method::init");
  EXPECT_EQ(name_of(load_method), "Program::load_method");
  EXPECT_EQ(load_method->chain_index(), -1);
  EXPECT_EQ(load_method->instruction_id(), 0);
  EXPECT_LE(load_method->start_time(), init->start_time());
  EXPECT_GE(load_method->end_time(), init->end_time());
  EXPECT_LT(init->start_time(), init->end_time());

  // mlp (export_models.py): three linear layers, ReLU between: permute_copy,
  // addmm, relu, ..., as the .pte numbers them.
  const std::vector<std::pair<int, std::string>> calls = program_kernel_calls(c.pte);
  ASSERT_EQ(calls.size(), 8u);
  for (size_t run = 1; run < 3; ++run) {
    const fb::RunData* exec = dump->run_data()->Get(static_cast<flatbuffers::uoffset_t>(run));
    EXPECT_EQ(exec->name()->str(), "Execute");
    EXPECT_EQ(exec->bundled_input_index(), -1);
    ASSERT_EQ(exec->events()->size(), 2 * calls.size() + 1);
    for (size_t i = 0; i < calls.size(); ++i) {
      const std::string op = calls[i].second.substr(calls[i].second.find("::") + 2);
      const fb::ProfileEvent* inner =
          exec->events()->Get(static_cast<flatbuffers::uoffset_t>(2 * i))->profile_event();
      const fb::ProfileEvent* outer =
          exec->events()->Get(static_cast<flatbuffers::uoffset_t>(2 * i + 1))->profile_event();
      ASSERT_NE(inner, nullptr);
      ASSERT_NE(outer, nullptr);
      EXPECT_EQ(name_of(inner), "native_call_" + op);
      EXPECT_EQ(name_of(outer), "OPERATOR_CALL");
      for (const fb::ProfileEvent* p : {inner, outer}) {
        EXPECT_EQ(p->chain_index(), 0);
        EXPECT_EQ(p->instruction_id(), calls[i].first);
        EXPECT_EQ(p->delegate_debug_id_int(), -1);
        EXPECT_EQ(p->delegate_debug_id_str(), nullptr);
        EXPECT_LE(p->start_time(), p->end_time());
      }
    }
    const fb::ProfileEvent* execute =
        exec->events()->Get(exec->events()->size() - 1)->profile_event();
    EXPECT_EQ(name_of(execute), "Method::execute");
    EXPECT_EQ(execute->chain_index(), -1);
    EXPECT_EQ(execute->instruction_id(), 0);
    // The execute span encloses every operator's.
    EXPECT_LE(execute->start_time(), exec->events()->Get(0)->profile_event()->start_time());
    EXPECT_GE(execute->end_time(),
              exec->events()->Get(exec->events()->size() - 2)->profile_event()->end_time());
  }
  EXPECT_EQ(calls[0].second, "aten::permute_copy.out");
  EXPECT_EQ(calls[1].second, "aten::addmm.out");
  EXPECT_EQ(calls[2].second, "aten::relu.out");
}

TEST(ETDumpTest, IntermediateAndProgramOutputsHoldPyTorchValues) {
  testing::register_all_kernels();
  const testing::FixtureCase c = fixture("mlp", 1);
  DebugBuffer debug;
  const Recorded r = record(c, etdump::DebugLevel::kIntermediateOutputs, &debug);
  EXPECT_EQ(r.logging_error, Error::Ok);
  const fb::ETDump* dump = parse(r.bytes);
  ASSERT_EQ(dump->run_data()->size(), 2u);
  const fb::RunData* exec = dump->run_data()->Get(1);
  const std::vector<std::pair<int, std::string>> calls = program_kernel_calls(c.pte);
  Result<HostTensor> expected = read_npy(c.expected[0]);
  ASSERT_TRUE(expected.ok());

  // Per operator: its output (debug event), then native_call_, then OPERATOR_CALL.
  std::vector<const fb::DebugEvent*> intermediates;
  std::vector<const fb::DebugEvent*> outputs;
  for (const fb::Event* e : *exec->events()) {
    if (e->debug_event() == nullptr) continue;
    const fb::DebugEvent* d = e->debug_event();
    ASSERT_NE(d->debug_entry(), nullptr);
    ASSERT_EQ(d->debug_entry()->val(), fb::ValueType::Tensor);
    ASSERT_NE(d->debug_entry()->tensor()->sizes(), nullptr);
    ASSERT_NE(d->debug_entry()->tensor()->strides(), nullptr);
    EXPECT_EQ(d->name(), nullptr);
    EXPECT_EQ(d->debug_entry()->tensor()->offset() % 64, 0);
    (d->debug_entry()->output() != nullptr ? outputs : intermediates).push_back(d);
  }
  ASSERT_EQ(intermediates.size(), calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(intermediates[i]->chain_index(), 0u);
    EXPECT_EQ(intermediates[i]->instruction_id(), calls[i].first);
    const fb::Event* next = exec->events()->Get(static_cast<flatbuffers::uoffset_t>(3 * i + 1));
    ASSERT_NE(next->profile_event(), nullptr);
    EXPECT_EQ(next->profile_event()->instruction_id(), calls[i].first);
  }
  // The last addmm computes the program's output: PyTorch's value.
  Result<HostTensor> last = logged_tensor(intermediates.back(), debug.bytes, r.debug_used);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(testing::compare_tensors(last->tensor(), expected->tensor(), c.rtol, c.atol),
            Error::Ok);
  // The first addmm (x @ W1^T + b1, [2, 16]) and its ReLU agree with each other.
  Result<HostTensor> h = logged_tensor(intermediates[1], debug.bytes, r.debug_used);
  Result<HostTensor> relu = logged_tensor(intermediates[2], debug.bytes, r.debug_used);
  ASSERT_TRUE(h.ok() && relu.ok());
  ASSERT_EQ(h->shape(), (std::vector<int32_t>{2, 16}));
  const std::vector<float> hv = h->values<float>();
  const std::vector<float> rv = relu->values<float>();
  for (size_t i = 0; i < hv.size(); ++i) EXPECT_EQ(rv[i], hv[i] > 0 ? hv[i] : 0.0f) << i;

  // The method's output, flagged, after Method::execute.
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0]->chain_index(), kProgramOutputChain);
  EXPECT_EQ(outputs[0]->instruction_id(), 0);
  EXPECT_TRUE(outputs[0]->debug_entry()->output()->bool_val());
  Result<HostTensor> out = logged_tensor(outputs[0], debug.bytes, r.debug_used);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(testing::compare_tensors(out->tensor(), expected->tensor(), c.rtol, c.atol), Error::Ok);
  EXPECT_EQ(exec->events()->Get(exec->events()->size() - 1)->debug_event(), outputs[0]);
  EXPECT_EQ(name_of(exec->events()->Get(exec->events()->size() - 2)->profile_event()),
            "Method::execute");
}

TEST(ETDumpTest, ProgramOutputsLevelLogsOnlyTheOutputs) {
  testing::register_all_kernels();
  const testing::FixtureCase c = fixture("add_mul", 4, 3);
  DebugBuffer debug;
  const Recorded r = record(c, etdump::DebugLevel::kProgramOutputs, &debug);
  const fb::RunData* exec = parse(r.bytes)->run_data()->Get(1);
  std::vector<const fb::DebugEvent*> logged;
  for (const fb::Event* e : *exec->events()) {
    if (e->debug_event() != nullptr) logged.push_back(e->debug_event());
  }
  // add_mul has three outputs (a, s, d in export_models.py).
  ASSERT_EQ(logged.size(), 3u);
  for (size_t i = 0; i < logged.size(); ++i) {
    EXPECT_EQ(logged[i]->chain_index(), kProgramOutputChain);
    ASSERT_NE(logged[i]->debug_entry()->output(), nullptr);
    Result<HostTensor> got = logged_tensor(logged[i], debug.bytes, r.debug_used);
    Result<HostTensor> want =
        read_npy(testing::models_dir() + "add_mul/a_out" + std::to_string(i) + ".npy");
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(testing::compare_tensors(got->tensor(), want->tensor(), c.rtol, c.atol), Error::Ok);
  }
}

// MethodMeta::method_allocator_bytes(options) loads the method to measure
// it; that load is not reported to the options' observer.
TEST(ETDumpTest, MeasuringLoadIsNotRecorded) {
  testing::register_all_kernels();
  const testing::FixtureCase c = fixture("mlp", 1);
  testing::LoadedMethod lm;
  ASSERT_TRUE(testing::load_fixture_method(c, &lm)) << lm.error;
  etdump::ETDumpWriter writer;
  etdump::ETDumpObserver observer(&writer);
  MethodLoadOptions options;
  options.observer = &observer;
  Result<size_t> bytes = lm.method->method_meta().method_allocator_bytes(options);
  ASSERT_TRUE(bytes.ok());
  EXPECT_GT(*bytes, 0u);
  EXPECT_EQ(writer.num_blocks(), 0u);
}

TEST(ETDumpTest, FullDebugBufferIsAnErrorNotACrash) {
  testing::register_all_kernels();
  DebugBuffer debug;
  // mlp's first intermediate ([2, 16] float, 128 bytes) does not fit in 100.
  const Recorded r =
      record(fixture("mlp", 1), etdump::DebugLevel::kIntermediateOutputs, &debug, 1, {}, 100);
  EXPECT_EQ(r.logging_error, Error::OutOfResources);
  // The ETDump itself is still whole.
  EXPECT_EQ(parse(r.bytes)->run_data()->size(), 2u);
}

TEST(ETDumpTest, WriterStartsANewETDumpAfterFinish) {
  etdump::ETDumpWriter writer;
  writer.create_event_block("Execute");
  writer.add_profile_event("OPERATOR_CALL", 0, 3, 10, 20);
  const std::vector<uint8_t> first = writer.finish();
  writer.create_event_block("Execute", 2);
  EXPECT_EQ(writer.add_delegate_profile_event({-1, "Conv #1"}, 0, 5, 30, 45, nullptr, 0),
            Error::Ok);
  EXPECT_EQ(writer.add_delegate_profile_event({-1, nullptr}, 0, 5, 30, 45, nullptr, 0),
            Error::InvalidArgument);
  EXPECT_EQ(writer.add_delegate_profile_event({7, "both"}, 0, 5, 30, 45, nullptr, 0),
            Error::InvalidArgument);
  const std::vector<uint8_t> second = writer.finish();
  const fb::ETDump* a = parse(first);
  ASSERT_EQ(a->run_data()->size(), 1u);
  EXPECT_EQ(a->run_data()->Get(0)->events()->Get(0)->profile_event()->instruction_id(), 3);
  const fb::ETDump* b = parse(second);
  ASSERT_EQ(b->run_data()->size(), 1u);
  EXPECT_EQ(b->run_data()->Get(0)->bundled_input_index(), 2);
  const fb::ProfileEvent* d = b->run_data()->Get(0)->events()->Get(0)->profile_event();
  EXPECT_EQ(d->name(), nullptr);
  EXPECT_EQ(d->delegate_debug_id_str()->str(), "Conv #1");
  EXPECT_EQ(d->delegate_debug_id_int(), -1);
  ASSERT_NE(d->delegate_debug_metadata(), nullptr);  // written even when empty
  EXPECT_EQ(d->delegate_debug_metadata()->size(), 0u);
  EXPECT_EQ(d->end_time() - d->start_time(), 15u);
}

// The value kinds the official writer logs, as it writes them: 0-d tensors
// with empty (present) sizes and strides, scalars, tensor lists; the
// output flag only on tensors and tensor lists; Half refused.
TEST(ETDumpTest, WriterLogsEachValueKindAsTheOfficialWriter) {
  DebugBuffer debug;
  etdump::BufferDataSink sink(Span<uint8_t>(debug.bytes, sizeof(debug.bytes)));
  etdump::ETDumpWriter writer;
  writer.set_data_sink(&sink);
  writer.create_event_block("Execute");
  Result<HostTensor> scalar = HostTensor::from_values<float>({}, {3.5f});
  Result<HostTensor> a = HostTensor::from_values<int32_t>({2}, {1, 2});
  Result<HostTensor> b = HostTensor::from_values<int32_t>({1, 3}, {4, 5, 6});
  Result<HostTensor> half = HostTensor::zeros(ScalarType::Half, {2});
  ASSERT_TRUE(scalar.ok() && a.ok() && b.ok() && half.ok());
  EValue items[2] = {EValue(&a->tensor()), EValue(&b->tensor())};
  EValue* pointers[2] = {&items[0], &items[1]};
  const EValue list(BoxedTensorList(pointers, 2), false);
  EXPECT_TRUE(*writer.log_value(EValue(&scalar->tensor()), 0, 1, false));
  EXPECT_TRUE(*writer.log_value(EValue(int64_t{7}), 0, 2, true));
  EXPECT_TRUE(*writer.log_value(EValue(2.5), 0, 3, false));
  EXPECT_TRUE(*writer.log_value(EValue(true), 0, 4, false));
  EXPECT_TRUE(*writer.log_value(list, ~uint64_t{0}, 0, true));
  EXPECT_FALSE(*writer.log_value(EValue(&half->tensor()), 0, 5, false));
  EXPECT_FALSE(*writer.log_value(EValue(), 0, 6, false));
  const std::vector<uint8_t> bytes = writer.finish();
  const auto* events = parse(bytes)->run_data()->Get(0)->events();
  ASSERT_EQ(events->size(), 5u);
  const fb::Value* v0 = events->Get(0)->debug_event()->debug_entry();
  ASSERT_EQ(v0->val(), fb::ValueType::Tensor);
  ASSERT_NE(v0->tensor()->sizes(), nullptr);
  ASSERT_NE(v0->tensor()->strides(), nullptr);
  EXPECT_EQ(v0->tensor()->sizes()->size(), 0u);
  EXPECT_EQ(v0->tensor()->scalar_type(), fb::ScalarType::FLOAT);
  float got = 0;
  std::memcpy(&got, debug.bytes + v0->tensor()->offset(), 4);
  EXPECT_EQ(got, 3.5f);
  const fb::Value* v1 = events->Get(1)->debug_event()->debug_entry();
  EXPECT_EQ(v1->val(), fb::ValueType::Int);
  EXPECT_EQ(v1->int_value()->int_val(), 7);
  EXPECT_EQ(v1->output(), nullptr);  // scalars are never flagged
  EXPECT_EQ(events->Get(2)->debug_event()->debug_entry()->double_value()->double_val(), 2.5);
  EXPECT_TRUE(events->Get(3)->debug_event()->debug_entry()->bool_value()->bool_val());
  const fb::Value* v4 = events->Get(4)->debug_event()->debug_entry();
  ASSERT_EQ(v4->val(), fb::ValueType::TensorList);
  ASSERT_EQ(v4->tensor_list()->tensors()->size(), 2u);
  EXPECT_TRUE(v4->output()->bool_val());
  const fb::Tensor* second = v4->tensor_list()->tensors()->Get(1);
  EXPECT_EQ(second->strides()->Get(0), 3);
  int32_t six = 0;
  std::memcpy(&six, debug.bytes + second->offset() + 8, 4);
  EXPECT_EQ(six, 6);
}

TEST(ETDumpTest, BufferSinkAlignsBlobsAndRefusesOverflow) {
  alignas(64) uint8_t buf[256];
  std::memset(buf, 0xAB, sizeof(buf));
  etdump::BufferDataSink sink(Span<uint8_t>(buf, sizeof(buf)), 64);
  const uint8_t three[3] = {1, 2, 3};
  EXPECT_EQ(*sink.write(three, 3), 0u);
  EXPECT_EQ(*sink.write(three, 3), 64u);
  EXPECT_EQ(buf[3], 0);  // padding zeroed
  EXPECT_EQ(buf[65], 2);
  EXPECT_EQ(sink.write(buf, 193).error(), Error::OutOfResources);
  EXPECT_EQ(*sink.write(buf, 128), 128u);
  EXPECT_EQ(sink.used_bytes(), 256u);
}

#if ETR_ETDUMP_TEST_HAS_XNNPACK
TEST(ETDumpTest, XnnpackDelegateCallWithItsArguments) {
  testing::register_all_kernels();
  static BackendRegistry backends;
  static const Error registered = register_xnnpack_backend(&backends);
  ASSERT_EQ(registered, Error::Ok);
  MethodLoadOptions options;
  options.backends = &backends;
  const testing::FixtureCase c = fixture("add_xnnpack", 2);
  DebugBuffer debug;
  const Recorded r = record(c, etdump::DebugLevel::kIntermediateOutputs, &debug, 1, options);
  const fb::RunData* exec = parse(r.bytes)->run_data()->Get(1);
  // The delegate's arguments (two inputs, the output), DELEGATE_CALL,
  // Method::execute, the program output.
  ASSERT_EQ(exec->events()->size(), 6u);
  const char* const files[] = {"a_in0", "a_in1", "a_out0"};
  for (flatbuffers::uoffset_t i = 0; i < 3; ++i) {
    const fb::DebugEvent* d = exec->events()->Get(i)->debug_event();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->instruction_id(), 0);
    EXPECT_EQ(d->debug_entry()->output(), nullptr);
    Result<HostTensor> got = logged_tensor(d, debug.bytes, r.debug_used);
    Result<HostTensor> want = read_npy(testing::models_dir() + "add_xnnpack/" + files[i] + ".npy");
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(testing::compare_tensors(got->tensor(), want->tensor(), c.rtol, c.atol), Error::Ok)
        << files[i];
  }
  const fb::ProfileEvent* call = exec->events()->Get(3)->profile_event();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(name_of(call), "DELEGATE_CALL");
  EXPECT_EQ(call->chain_index(), 0);
  EXPECT_EQ(call->instruction_id(), 0);
  EXPECT_EQ(name_of(exec->events()->Get(4)->profile_event()), "Method::execute");
  EXPECT_NE(exec->events()->Get(5)->debug_event()->debug_entry()->output(), nullptr);
}
#endif

// executor_runner --etdump_path --debug_buffer_path: the files the
// Inspector reads (the whole configured debug buffer is written).
TEST(ETDumpTest, RunnerWritesETDumpAndWholeDebugBuffer) {
  char dir[] = "/tmp/etr_etdumpXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string etdp = std::string(dir) + "/mlp.etdp";
  const std::string bin = std::string(dir) + "/mlp.bin";
  const std::string m = testing::models_dir();
  const std::string cmd = std::string(ETR_RUNNER_PATH) + " --model_path=" + m +
                          "mlp.pte --input=" + m + "mlp/a_in0.npy --etdump_path=" + etdp +
                          " --debug_buffer_path=" + bin +
                          " --debug_buffer_size=8192 --num_executions=2 >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
  Result<std::string> e = testing::read_file(etdp);
  Result<std::string> b = testing::read_file(bin);
  ASSERT_TRUE(e.ok() && b.ok());
  EXPECT_EQ(b->size(), 8192u);
  const std::vector<uint8_t> bytes(e->begin(), e->end());
  const fb::ETDump* dump = parse(bytes);
  ASSERT_EQ(dump->run_data()->size(), 3u);
  // Two executes with the same input: the same logged output, stored twice.
  std::vector<const fb::DebugEvent*> outputs;
  for (flatbuffers::uoffset_t run = 1; run < 3; ++run) {
    for (const fb::Event* ev : *dump->run_data()->Get(run)->events()) {
      if (ev->debug_event() != nullptr && ev->debug_event()->debug_entry()->output() != nullptr)
        outputs.push_back(ev->debug_event());
    }
  }
  ASSERT_EQ(outputs.size(), 2u);
  Result<HostTensor> want = read_npy(m + "mlp/a_out0.npy");
  ASSERT_TRUE(want.ok());
  for (const fb::DebugEvent* d : outputs) {
    Result<HostTensor> got =
        logged_tensor(d, reinterpret_cast<const uint8_t*>(b->data()), b->size());
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(testing::compare_tensors(got->tensor(), want->tensor(), 1e-5, 1e-6), Error::Ok);
  }
  std::remove(etdp.c_str());
  std::remove(bin.c_str());
  ::rmdir(dir);
}

// --bundled_program with --etdump_path: one "Execute" block per test case,
// carrying the case's index (so the Inspector does not merge cases with
// different inputs).
TEST(ETDumpTest, RunnerTagsEachBundledCaseWithItsIndex) {
  char dir[] = "/tmp/etr_etdump_bundledXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string etdp = std::string(dir) + "/b.etdp";
  const std::string cmd = std::string(ETR_RUNNER_PATH) +
                          " --bundled_program=" + testing::models_dir() +
                          "bundled/mlp.bpte --etdump_path=" + etdp + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
  Result<std::string> e = testing::read_file(etdp);
  ASSERT_TRUE(e.ok());
  const std::vector<uint8_t> bytes(e->begin(), e->end());
  const fb::ETDump* dump = parse(bytes);
  // bundled/mlp.bpte (export_bundled.py): one method, 3 test cases.
  ASSERT_EQ(dump->run_data()->size(), 4u);
  EXPECT_EQ(dump->run_data()->Get(0)->name()->str(), "Default");
  for (flatbuffers::uoffset_t c = 0; c < 3; ++c) {
    EXPECT_EQ(dump->run_data()->Get(c + 1)->name()->str(), "Execute");
    EXPECT_EQ(dump->run_data()->Get(c + 1)->bundled_input_index(), static_cast<int32_t>(c));
  }
  std::remove(etdp.c_str());
  ::rmdir(dir);
}

// Logging without a debug buffer, and an unknown level, are usage errors (exit 1).
TEST(ETDumpTest, RunnerRefusesLoggingWithoutADebugBuffer) {
  const std::string m = testing::models_dir();
  const std::string base = std::string(ETR_RUNNER_PATH) + " --model_path=" + m +
                           "mlp.pte --etdump_path=/tmp/etr_etdump_unused.etdp ";
  for (const char* flags : {"--dump_outputs", "--etdump_debug_level=intermediate",
                            "--etdump_debug_level=all --debug_buffer_path=/tmp/x.bin"}) {
    const int status = std::system((base + flags + " >/dev/null 2>&1").c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << flags;
  }
  Result<std::string> none = testing::read_file("/tmp/etr_etdump_unused.etdp");
  EXPECT_FALSE(none.ok());
}

}  // namespace
}  // namespace etr
