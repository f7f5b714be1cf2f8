// Programs written with our own flatbuffers writer, each breaking one rule of
// the format that the official exporter never breaks. Each must be refused at
// load (or fail cleanly at execute) with an error that names the problem.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "kernels/portable/portable_kernels.h"
#include "runtime/executor/execute_observer.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_load_options.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/fusion_rule.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"
#include "schema/program_generated.h"
#include "test/runtime/runtime_test_util.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

namespace fb = etr_fb;
using flatbuffers::Offset;

// Builds a one-method program ("forward") with one planned arena of 256 bytes.
class ProgramWriter {
 public:
  Offset<fb::EValue> tensor(std::vector<int32_t> sizes, std::vector<uint8_t> order,
                            uint32_t mem_id = 1, uint32_t offset = 0, uint32_t constant = 0,
                            fb::ScalarType dtype = fb::ScalarType::FLOAT) {
    Offset<fb::AllocationDetails> alloc = 0;
    if (mem_id != 0) alloc = fb::CreateAllocationDetails(b_, mem_id, offset, 0);
    auto t = fb::CreateTensorDirect(b_, dtype, 0, &sizes, &order, false, constant, alloc);
    return fb::CreateEValue(b_, fb::KernelTypes::Tensor, t.Union());
  }
  Offset<fb::EValue> integer(int64_t v) {
    return fb::CreateEValue(b_, fb::KernelTypes::Int, fb::CreateInt(b_, v).Union());
  }
  Offset<fb::EValue> boolean(bool v) {
    return fb::CreateEValue(b_, fb::KernelTypes::Bool, fb::CreateBool(b_, v).Union());
  }
  Offset<fb::EValue> int_list(std::vector<int64_t> refs) {
    return fb::CreateEValue(b_, fb::KernelTypes::IntList,
                            fb::CreateIntListDirect(b_, &refs).Union());
  }
  Offset<fb::Instruction> kernel(int32_t op, std::vector<int32_t> args) {
    return fb::CreateInstruction(b_, fb::InstructionArguments::KernelCall,
                                 fb::CreateKernelCallDirect(b_, op, &args).Union());
  }
  Offset<fb::Instruction> jump_false(int32_t cond, int32_t dest) {
    return fb::CreateInstruction(b_, fb::InstructionArguments::JumpFalseCall,
                                 fb::CreateJumpFalseCall(b_, cond, dest).Union());
  }
  Offset<fb::Instruction> move(int32_t from, int32_t to) {
    return fb::CreateInstruction(b_, fb::InstructionArguments::MoveCall,
                                 fb::CreateMoveCall(b_, from, to).Union());
  }

  // Finishes the program; `ops` are "name.overload" strings.
  testing::AlignedBytes finish(std::vector<Offset<fb::EValue>> values, std::vector<int32_t> inputs,
                               std::vector<int32_t> outputs,
                               std::vector<Offset<fb::Instruction>> instrs,
                               std::vector<std::string> ops = {}) {
    std::vector<Offset<fb::Operator>> operators;
    for (const std::string& op : ops) {
      const size_t dot = op.find('.');
      operators.push_back(
          fb::CreateOperatorDirect(b_, op.substr(0, dot).c_str(),
                                   dot == std::string::npos ? "" : op.substr(dot + 1).c_str()));
    }
    std::vector<Offset<fb::Chain>> chains = {fb::CreateChainDirect(b_, nullptr, nullptr, &instrs)};
    std::vector<Offset<fb::BackendDelegate>> delegates;
    std::vector<int64_t> arenas = {0, 256};
    std::vector<Offset<fb::ExecutionPlan>> plans = {fb::CreateExecutionPlanDirect(
        b_, "forward", 0, &values, &inputs, &outputs, &chains, &operators, &delegates, &arenas)};
    // Legacy in-flatbuffer constants: entry 0 is the placeholder, entry 1 holds 16 bytes.
    std::vector<uint8_t> bytes16(16, 0);
    std::vector<Offset<fb::Buffer>> constants = {fb::CreateBufferDirect(b_, nullptr),
                                                 fb::CreateBufferDirect(b_, &bytes16)};
    fb::FinishProgramBuffer(b_, fb::CreateProgramDirect(b_, 0, &plans, &constants));
    testing::AlignedBytes bytes(b_.GetSize());
    std::memcpy(bytes.data(), b_.GetBufferPointer(), b_.GetSize());
    return bytes;
  }

 private:
  flatbuffers::FlatBufferBuilder b_;
};

// The one planned arena of 256 bytes the writer plans into, and a method pool.
struct CraftedMemory {
  std::vector<uint8_t> arena = std::vector<uint8_t>(256);
  std::vector<uint8_t> pool = std::vector<uint8_t>(1 << 16);
  Span<uint8_t> spans[1] = {{arena.data(), arena.size()}};
  HierarchicalAllocator planned{Span<Span<uint8_t>>(spans, 1)};
  MemoryAllocator method_alloc{pool.data(), pool.size()};
  MemoryManager mm{&method_alloc, &planned};
};

struct Outcome {
  Error load = Error::Ok;
  Error execute = Error::Ok;
};

Outcome run(const testing::AlignedBytes& bytes, size_t max_instructions = 1000) {
  testing::register_all_kernels();
  Outcome o;
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) {
    o.load = program.error();
    return o;
  }
  CraftedMemory mem;
  Result<Method> m = program->load_method("forward", &mem.mm);
  if (!m.ok()) {
    o.load = m.error();
    return o;
  }
  m->set_max_instructions(max_instructions);
  for (size_t i = 0; i < m->inputs_size(); ++i) {
    if (m->get_input(i).is_tensor()) {
      (void)m->set_input(m->get_input(i).to_tensor(), i);
    } else {
      (void)m->set_input(m->get_input(i), i);
    }
  }
  o.execute = m->execute();
  return o;
}

TEST(CraftedProgramTest, WellFormedProgramRuns) {
  ProgramWriter w;
  auto a = w.tensor({2, 2}, {0, 1}, 1, 0);
  auto out = w.tensor({2, 2}, {0, 1}, 1, 16);
  auto alpha = w.integer(1);
  auto bytes =
      w.finish({a, out, alpha}, {0}, {1}, {w.kernel(0, {0, 0, 2, 1, 1})}, {"aten::add.out"});
  const Outcome o = run(bytes);
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::Ok);
}

TEST(CraftedProgramTest, NonTensorInputsKeepTheirExportedValueWithoutBeingSet) {
  ProgramWriter w;
  auto x = w.tensor({4}, {0}, 1, 0);
  auto three = w.integer(3);
  auto alpha = w.integer(1);
  auto out = w.tensor({4}, {0}, 1, 16);
  auto bytes = w.finish({x, three, alpha, out}, {0, 1}, {3}, {w.kernel(0, {0, 1, 2, 3, 3})},
                        {"aten::add.Scalar_out"});
  testing::register_all_kernels();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  CraftedMemory mem;
  Result<Method> m = program->load_method("forward", &mem.mm);
  ASSERT_TRUE(m.ok());
  float xs[4] = {1.f, -2.f, 0.5f, 10.f};
  int32_t sizes[] = {4};
  uint8_t order[] = {0};
  int64_t strides[1];
  Tensor xt(ScalarType::Float, 1, sizes, order, strides, xs);
  ASSERT_EQ(m->set_input(xt, 0), Error::Ok);  // input 1 (the Int 3) is never set
  ASSERT_EQ(m->execute(), Error::Ok);
  const float* o = m->get_output(0).to_tensor().const_data_ptr<float>();
  EXPECT_FLOAT_EQ(o[0], 4.f);  // torch.add(x, 3): [4, 1, 3.5, 13]
  EXPECT_FLOAT_EQ(o[1], 1.f);
  EXPECT_FLOAT_EQ(o[2], 3.5f);
  EXPECT_FLOAT_EQ(o[3], 13.f);
  EXPECT_EQ(m->set_input(EValue(int64_t{4}), 1),
            Error::InvalidArgument);  // only the exported value
  EXPECT_EQ(m->set_input(EValue(int64_t{3}), 1), Error::Ok);
}

TEST(CraftedProgramTest, EndlessJumpLoopHitsTheInstructionBudget) {
  ProgramWriter w;
  auto no = w.boolean(false);
  auto bytes = w.finish({no}, {}, {0}, {w.jump_false(0, 0)});
  const Outcome o = run(bytes);
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::OutOfResources);
}

TEST(CraftedProgramTest, JumpTargetOutsideTheChain) {
  ProgramWriter w;
  auto no = w.boolean(false);
  EXPECT_EQ(run(w.finish({no}, {}, {0}, {w.jump_false(0, 5)})).load, Error::InvalidProgram);
}

TEST(CraftedProgramTest, JumpConditionMustBeBool) {
  ProgramWriter w;
  auto i = w.integer(3);
  EXPECT_EQ(run(w.finish({i}, {}, {0}, {w.jump_false(0, 1)})).load, Error::InvalidProgram);
}

TEST(CraftedProgramTest, MoveBetweenDifferentKinds) {
  ProgramWriter w;
  auto t = w.tensor({1}, {0});
  auto i = w.integer(3);
  EXPECT_EQ(run(w.finish({t, i}, {}, {0}, {w.move(1, 0)})).load, Error::InvalidProgram);
}

// set_input writes into an input's memory; a program constant (on a mapped
// file: read-only or shared pages) must never be an input. The same tensor as
// an output is fine (it is only read).
TEST(CraftedProgramTest, ConstantTensorCannotBeAnInput) {
  ProgramWriter w;
  auto c = w.tensor({2, 2}, {0, 1}, /*mem_id=*/0, 0, /*constant=*/1);
  EXPECT_EQ(run(w.finish({c}, {0}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w2;
  auto c2 = w2.tensor({2, 2}, {0, 1}, /*mem_id=*/0, 0, /*constant=*/1);
  EXPECT_EQ(run(w2.finish({c2}, {}, {0}, {})).load, Error::Ok);
}

TEST(CraftedProgramTest, IntListMustReferToEarlierInts) {
  ProgramWriter w;
  auto list = w.int_list({1});
  auto i = w.integer(3);
  EXPECT_EQ(run(w.finish({list, i}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w2;
  auto t = w2.tensor({1}, {0});
  auto list2 = w2.int_list({0});  // refers to a tensor
  EXPECT_EQ(run(w2.finish({t, list2}, {}, {0}, {})).load, Error::InvalidProgram);
}

TEST(CraftedProgramTest, KernelArgumentKindsAreChecked) {
  ProgramWriter w;
  auto a = w.tensor({2}, {0});
  auto alpha = w.integer(1);
  // alpha where a Tensor is expected
  EXPECT_EQ(
      run(w.finish({a, alpha}, {}, {0}, {w.kernel(0, {0, 1, 1, 0, 0})}, {"aten::add.out"})).load,
      Error::InvalidProgram);
  ProgramWriter w2;
  auto b = w2.tensor({2}, {0});
  auto alpha2 = w2.integer(1);
  // one argument short
  EXPECT_EQ(
      run(w2.finish({b, alpha2}, {}, {0}, {w2.kernel(0, {0, 0, 1, 0})}, {"aten::add.out"})).load,
      Error::InvalidProgram);
}

TEST(CraftedProgramTest, OperatorIndexOutOfRange) {
  ProgramWriter w;
  auto a = w.tensor({2}, {0});
  EXPECT_EQ(run(w.finish({a}, {}, {0}, {w.kernel(3, {0})}, {"aten::relu.out"})).load,
            Error::InvalidProgram);
}

TEST(CraftedProgramTest, ArgumentIndexOutOfRange) {
  ProgramWriter w;
  auto a = w.tensor({2}, {0});
  EXPECT_EQ(run(w.finish({a}, {}, {0}, {w.kernel(0, {0, 7, 0})}, {"aten::relu.out"})).load,
            Error::InvalidProgram);
}

TEST(CraftedProgramTest, TensorsMustFitTheirPlannedBuffer) {
  ProgramWriter w;
  auto big = w.tensor({100}, {0}, 1, 0);  // 400 bytes in a 256-byte arena
  EXPECT_EQ(run(w.finish({big}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w2;
  auto off = w2.tensor({4}, {0}, 1, 250);  // runs past the end
  EXPECT_EQ(run(w2.finish({off}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w3;
  auto bad_id = w3.tensor({4}, {0}, 2, 0);  // memory id 2 does not exist
  EXPECT_EQ(run(w3.finish({bad_id}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w4;
  auto misaligned = w4.tensor({4}, {0}, 1, 2);  // float data at offset 2
  EXPECT_EQ(run(w4.finish({misaligned}, {}, {0}, {})).load, Error::InvalidProgram);
}

TEST(CraftedProgramTest, TensorShapeRules) {
  ProgramWriter w;
  auto dup = w.tensor({2, 2}, {0, 0});  // not a permutation
  EXPECT_EQ(run(w.finish({dup}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w2;
  auto neg = w2.tensor({-2}, {0});
  EXPECT_EQ(run(w2.finish({neg}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w3;
  auto huge = w3.tensor({1 << 30, 1 << 30, 1 << 30}, {0, 1, 2}, 0);  // numel overflows
  EXPECT_EQ(run(w3.finish({huge}, {}, {0}, {})).load, Error::InvalidProgram);
  ProgramWriter w4;
  auto bad_dtype = w4.tensor({1}, {0}, 1, 0, 0, static_cast<fb::ScalarType>(77));
  EXPECT_EQ(run(w4.finish({bad_dtype}, {}, {0}, {})).load, Error::InvalidProgram);
}

TEST(CraftedProgramTest, ConstantsCannotBeKernelOutputs) {
  ProgramWriter w;
  auto a = w.tensor({2}, {0}, 1, 0);
  auto constant = w.tensor({2}, {0}, 0, 0, /*constant=*/1);
  // relu.out(self=a, out=constant): writing into program constants is refused.
  EXPECT_EQ(
      run(w.finish({a, constant}, {}, {0}, {w.kernel(0, {0, 1, 1})}, {"aten::relu.out"})).load,
      Error::InvalidProgram);
}

TEST(CraftedProgramTest, ConstantTensorCanBeRead) {
  ProgramWriter w;
  auto constant = w.tensor({2}, {0}, 0, 0, /*constant=*/1);
  auto out = w.tensor({2}, {0}, 1, 0);
  auto bytes = w.finish({constant, out}, {}, {1}, {w.kernel(0, {0, 1, 1})}, {"aten::relu.out"});
  const Outcome o = run(bytes);
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::Ok);
  ProgramWriter w2;
  auto too_big = w2.tensor({8}, {0}, 0, 0, /*constant=*/1);  // 32 bytes; the buffer holds 16
  EXPECT_EQ(run(w2.finish({too_big}, {}, {0}, {})).load, Error::InvalidProgram);
}

TEST(CraftedProgramTest, OutputMayNotPartiallyOverlapAnInput) {
  ProgramWriter w;
  auto in = w.tensor({4}, {0}, 1, 0);
  auto out = w.tensor({4}, {0}, 1, 8);  // shares bytes 8..15 with the input
  EXPECT_EQ(run(w.finish({in, out}, {}, {1}, {w.kernel(0, {0, 1, 1})}, {"aten::relu.out"})).load,
            Error::InvalidProgram);
  ProgramWriter w2;
  auto in2 = w2.tensor({4}, {0}, 1, 0);
  auto same = w2.tensor({4}, {0}, 1, 0);  // exact alias: an in-place call is allowed
  const Outcome o =
      run(w2.finish({in2, same}, {}, {1}, {w2.kernel(0, {0, 1, 1})}, {"aten::relu.out"}));
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::Ok);
}

TEST(CraftedProgramTest, TensorWithoutMemoryFailsAtExecuteNotCrash) {
  ProgramWriter w;
  auto unbacked = w.tensor({2}, {0}, /*mem_id=*/0);  // no plan, not an input or output
  auto out = w.tensor({2}, {0}, 1, 0);
  auto bytes = w.finish({unbacked, out}, {}, {1}, {w.kernel(0, {0, 1, 1})}, {"aten::relu.out"});
  const Outcome o = run(bytes);
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::InvalidState);
}

TEST(CraftedProgramTest, UnknownOperatorIsOperatorMissing) {
  ProgramWriter w;
  auto a = w.tensor({2}, {0});
  EXPECT_EQ(run(w.finish({a}, {}, {0}, {w.kernel(0, {0, 0, 0})}, {"aten::no_such_op.out"})).load,
            Error::OperatorMissing);
}

}  // namespace
}  // namespace etr

namespace etr {
namespace {

// Prepare checked permute_copy's dims at load ([1, 0] for a 2-d tensor); a
// prim op then writes 5 into the first dim before the call. Execute must
// repeat the check and fail, not read sizes[5].
TEST(CraftedProgramTest, ArgumentWrittenAtRunTimeIsCheckedAgainAtExecute) {
  ProgramWriter w;
  auto x = w.tensor({2, 2}, {0, 1}, 1, 0);
  auto out = w.tensor({2, 2}, {0, 1}, 1, 16);
  auto d0 = w.integer(1);  // value 2, written by the prim op: 2 + 3 = 5
  auto d1 = w.integer(0);
  auto dims = w.int_list({2, 3});
  auto two = w.integer(2);
  auto three = w.integer(3);
  auto bytes = w.finish({x, out, d0, d1, dims, two, three}, {0}, {1},
                        {w.kernel(1, {5, 6, 2}), w.kernel(0, {0, 4, 1, 1})},
                        {"aten::permute_copy.out", "executorch_prim::add.Scalar"});
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  const Outcome o = run(bytes);
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::InvalidArgument);
  EXPECT_NE(std::string(capture.message()).find("aten::permute_copy.out"), std::string::npos)
      << capture.message();
}

// The same program where the prim op writes a value the check accepts
// (1 + 0 = 1, so dims stay [1, 0]) runs.
TEST(CraftedProgramTest, ArgumentWrittenAtRunTimeRunsWhenStillValid) {
  ProgramWriter w;
  auto x = w.tensor({2, 2}, {0, 1}, 1, 0);
  auto out = w.tensor({2, 2}, {0, 1}, 1, 16);
  auto d0 = w.integer(1);
  auto d1 = w.integer(0);
  auto dims = w.int_list({2, 3});
  auto one = w.integer(1);
  auto zero = w.integer(0);
  auto bytes = w.finish({x, out, d0, d1, dims, one, zero}, {0}, {1},
                        {w.kernel(1, {5, 6, 2}), w.kernel(0, {0, 4, 1, 1})},
                        {"aten::permute_copy.out", "executorch_prim::add.Scalar"});
  const Outcome o = run(bytes);
  EXPECT_EQ(o.load, Error::Ok);
  EXPECT_EQ(o.execute, Error::Ok);
}

// ---- Kernel selection and fusion rules declared by a test library ----

// relu(x) into out, counting the calls of each kind.
struct TestLog {
  int fused_runs = 0;
  int relu_declines = 0;
  int events = 0;
};
TestLog g_log;

void relu_into(const Tensor& x, Tensor& out) {
  const float* in = x.const_data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0.0f ? in[i] : 0.0f;
}
// test::relu_relu.fused(Tensor x, *, Tensor(a!) out): relu(relu(x)) = relu(x).
void relu_relu_fused(KernelContext&, EValue* const* args) {
  ++g_log.fused_runs;
  relu_into(args[0]->to_tensor(), args[1]->to_tensor());
}
Error decline_prepare(KernelPrepareContext&, EValue* const*) {
  ++g_log.relu_declines;
  return Error::NotSupported;
}
Error out_of_memory_prepare(KernelPrepareContext& ctx, EValue* const*) {
  ETR_FAIL(Error::MemoryAllocationFailed, "%s: out of method memory for the test state",
           ctx.op_name());
}
void relu_never_runs(KernelContext& ctx, EValue* const*) { ctx.fail(Error::Internal); }

constexpr ArgKind kReluKinds[] = {ArgKind::Tensor, ArgKind::MutableTensor, ArgKind::Any};

// relu -> relu, the second reading the first's output, runs as one call.
constexpr FusionRule kReluReluRules[] = {
    FusionRule{"test::relu_relu.fused",
               {{{"aten::relu.out", 3}, {"aten::relu.out", 3}}, {same(arg_of(1, 0), arg_of(0, 1))}},
               {input(arg_of(0, 0)), output(arg_of(1, -2)), output(arg_of(1, -1))},
               {arg_of(0, 1), arg_of(0, 2)},
               {},
               0},
};

// Counts the kernel events execute reports.
class CountingObserver final : public ExecuteObserver {
 public:
  void on_begin(const InstructionEvent&) override { ++g_log.events; }
  void on_end(const InstructionEvent&, Error) override {}
};

// x (input) -> relu -> y -> relu -> z (output), or with the second relu
// reading x when `linked` is false; `y_is_output` makes y a method output too.
// x is planned at byte 0, y and z at the given offsets.
testing::AlignedBytes relu_chain(bool linked, bool y_is_output, int y_offset = 16,
                                 int z_offset = 32) {
  ProgramWriter w;
  auto x = w.tensor({4}, {0}, 1, 0);
  auto y = w.tensor({4}, {0}, 1, y_offset);
  auto z = w.tensor({4}, {0}, 1, z_offset);
  std::vector<int32_t> outputs = {2};
  if (y_is_output) outputs.push_back(1);
  return w.finish({x, y, z}, {0}, outputs,
                  {w.kernel(0, {0, 1, 1}), w.kernel(0, {linked ? 1 : 0, 2, 2})},
                  {"aten::relu.out"});
}

struct ReluRun {
  Error load = Error::Ok;
  Error execute = Error::Ok;
  std::vector<float> out;
  std::string message;
};

// Loads with `registry`, sets x = [-1, 2, -3, 4], runs once and reads z.
ReluRun run_relu_chain(const testing::AlignedBytes& bytes, const KernelRegistry& registry) {
  ReluRun r;
  g_log = TestLog{};
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  EXPECT_TRUE(program.ok());
  if (!program.ok()) return r;
  CraftedMemory mem;
  MethodLoadOptions options;
  options.kernels = &registry;
  char buf[1024];
  ErrorCapture capture(buf, sizeof(buf));
  Result<Method> m = program->load_method("forward", &mem.mm, options);
  r.message = capture.message();
  r.load = m.error();
  if (!m.ok()) return r;
  EXPECT_EQ(m->set_input(m->get_input(0).to_tensor(), 0), Error::Ok);
  float* x = static_cast<float*>(m->get_input(0).to_tensor().mutable_data());
  const float values[4] = {-1.0f, 2.0f, -3.0f, 4.0f};
  std::memcpy(x, values, sizeof(values));
  CountingObserver observer;
  m->set_observer(&observer);
  r.execute = m->execute();
  const float* z = m->get_output(0).to_tensor().const_data_ptr<float>();
  r.out.assign(z, z + 4);
  return r;
}

const std::vector<float> kReluOfX = {0.0f, 2.0f, 0.0f, 4.0f};

TEST(KernelSelectionTest, NotSupportedFromPrepareFallsBackToTheNextLibrary) {
  static const KernelEntry picky[] = {make_raw_kernel(
      "aten::relu.out", &relu_never_runs, kReluKinds, 3, kFloatingTypes, 0, &decline_prepare)};
  KernelRegistry registry;
  ASSERT_EQ(registry.add(portable_kernel_library()), Error::Ok);
  ASSERT_EQ(registry.add({"picky", kCustomPriority, Span<const KernelEntry>(picky, 1)}), Error::Ok);
  const ReluRun r = run_relu_chain(relu_chain(true, false), registry);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(g_log.relu_declines, 2);  // each call declined, the portable relu took it
  EXPECT_EQ(r.execute, Error::Ok);
  EXPECT_EQ(r.out, kReluOfX);
}

TEST(KernelSelectionTest, OutOfMemoryInPrepareFailsTheLoadNamingTheInstruction) {
  static const KernelEntry greedy[] = {make_raw_kernel("aten::relu.out", &relu_never_runs,
                                                       kReluKinds, 3, kFloatingTypes, 0,
                                                       &out_of_memory_prepare)};
  KernelRegistry registry;
  ASSERT_EQ(registry.add(portable_kernel_library()), Error::Ok);
  ASSERT_EQ(registry.add({"greedy", kCustomPriority, Span<const KernelEntry>(greedy, 1)}),
            Error::Ok);
  const ReluRun r = run_relu_chain(relu_chain(true, false), registry);
  // No silent fallback to the portable kernel.
  EXPECT_EQ(r.load, Error::MemoryAllocationFailed);
  EXPECT_NE(r.message.find("method 'forward': instruction 0 (aten::relu.out)"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("library 'greedy'"), std::string::npos) << r.message;
}

TEST(KernelSelectionTest, SelectReportsChoiceDeclineAndFailure) {
  static const KernelEntry picky[] = {make_raw_kernel(
      "aten::relu.out", &relu_never_runs, kReluKinds, 3, kFloatingTypes, 0, &decline_prepare)};
  static const KernelEntry greedy[] = {make_raw_kernel("aten::relu.out", &relu_never_runs,
                                                       kReluKinds, 3, kFloatingTypes, 0,
                                                       &out_of_memory_prepare)};
  std::vector<uint8_t> pool(1024);
  MemoryAllocator alloc(pool.data(), pool.size());
  std::vector<float> data(4, 1.0f);
  int32_t sizes[1] = {4};
  uint8_t order[1] = {0};
  int64_t strides[1] = {1};
  Tensor t(ScalarType::Float, 1, sizes, order, strides, data.data());
  EValue v(&t);
  EValue* args[3] = {&v, &v, &v};
  KernelRegistry only_picky;
  ASSERT_EQ(only_picky.add({"picky", kCustomPriority, Span<const KernelEntry>(picky, 1)}),
            Error::Ok);
  KernelSelection s =
      only_picky.select("aten::relu.out", "relu", args, 3, CallFacts{}, &alloc, nullptr);
  EXPECT_EQ(s.outcome, KernelSelection::Outcome::Declined);
  EXPECT_EQ(s.reason, KernelSelection::Decline::Prepare);
  EXPECT_EQ(s.error, Error::NotSupported);
  ASSERT_EQ(only_picky.add({"greedy", kPortablePriority, Span<const KernelEntry>(greedy, 1)}),
            Error::Ok);
  s = only_picky.select("aten::relu.out", "relu", args, 3, CallFacts{}, &alloc, nullptr);
  EXPECT_EQ(s.outcome, KernelSelection::Outcome::Failed);
  EXPECT_EQ(s.error, Error::MemoryAllocationFailed);
  EXPECT_STREQ(s.library->name, "greedy");
  s = only_picky.select("aten::gelu.out", "gelu", args, 3, CallFacts{}, &alloc, nullptr);
  EXPECT_EQ(s.outcome, KernelSelection::Outcome::NotRegistered);
}

#if ETR_TEST_KERNEL_FUSION
// A registry with the portable kernels and a test library that declares the
// relu -> relu rule and registers its fused kernel with `prepare`.
struct FusingRegistry {
  KernelEntry fused[1];
  KernelRegistry registry;
  explicit FusingRegistry(PrepareFn prepare = nullptr) {
    fused[0] = make_raw_kernel("test::relu_relu.fused", &relu_relu_fused, kReluKinds, 3,
                               kFloatingTypes, 0, prepare);
    EXPECT_EQ(registry.add(portable_kernel_library()), Error::Ok);
    EXPECT_EQ(registry.add({"fusing", kCustomPriority, Span<const KernelEntry>(fused, 1),
                            Span<const FusionRule>(kReluReluRules, 1)}),
              Error::Ok);
  }
};

TEST(KernelFusionTest, LibraryRuleFusesACraftedProgram) {
  FusingRegistry f;
  const ReluRun r = run_relu_chain(relu_chain(true, false), f.registry);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(r.execute, Error::Ok);
  EXPECT_EQ(g_log.fused_runs, 1);
  EXPECT_EQ(g_log.events, 1);  // the absorbed relu runs as nothing
  EXPECT_EQ(r.out, kReluOfX);
}

TEST(KernelFusionTest, RuleWhoseConditionsFailDoesNotFuse) {
  FusingRegistry f;
  // The second relu reads x, not the first's output: the link fails.
  ReluRun r = run_relu_chain(relu_chain(false, false), f.registry);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(r.execute, Error::Ok);
  EXPECT_EQ(g_log.fused_runs, 0);
  EXPECT_EQ(g_log.events, 2);
  EXPECT_EQ(r.out, kReluOfX);
  // The intermediate is a method output: it must stay visible.
  r = run_relu_chain(relu_chain(true, true), f.registry);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(r.execute, Error::Ok);
  EXPECT_EQ(g_log.fused_runs, 0);
  EXPECT_EQ(g_log.events, 2);
  EXPECT_EQ(r.out, kReluOfX);
}

TEST(KernelFusionTest, OutputOverAnInputThatDiesInTheGroupDoesNotFuse) {
  FusingRegistry f;
  // x is dead after the first relu, so the plan may put z over its second
  // half; the fused call would write z while reading x.
  const ReluRun r = run_relu_chain(relu_chain(true, false, 32, 8), f.registry);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(r.execute, Error::Ok);
  EXPECT_EQ(g_log.fused_runs, 0);
  EXPECT_EQ(g_log.events, 2);
  EXPECT_EQ(r.out, kReluOfX);
}

TEST(KernelFusionTest, DecliningFusedKernelLoadsTheCallsOneByOne) {
  FusingRegistry f(&decline_prepare);
  const ReluRun r = run_relu_chain(relu_chain(true, false), f.registry);
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(g_log.relu_declines, 1);
  EXPECT_EQ(g_log.fused_runs, 0);
  EXPECT_EQ(g_log.events, 2);
  EXPECT_EQ(r.out, kReluOfX);
}

TEST(KernelFusionTest, FailingFusedPrepareFailsTheLoadNamingTheFusedKernel) {
  FusingRegistry f(&out_of_memory_prepare);
  const ReluRun r = run_relu_chain(relu_chain(true, false), f.registry);
  EXPECT_EQ(r.load, Error::MemoryAllocationFailed);
  EXPECT_NE(r.message.find("instruction 0"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("test::relu_relu.fused"), std::string::npos) << r.message;
}

TEST(KernelFusionTest, MalformedRuleIsRefusedAtRegistration) {
  static constexpr FusionRule bad[] = {
      FusionRule{
          "test::bad.fused",
          {{{"aten::relu.out", 3}, {"aten::relu.out", 3}}, {same(arg_of(1, 5), arg_of(0, 1))}},
          {input(arg_of(0, 0)), output(arg_of(1, -2)), output(arg_of(1, -1))},
          {},
          {},
          0},
  };
  KernelRegistry registry;
  EXPECT_EQ(registry.add({"bad", kCustomPriority, {}, Span<const FusionRule>(bad, 1)}),
            Error::InvalidArgument);
}
#endif  // ETR_TEST_KERNEL_FUSION

}  // namespace
}  // namespace etr
