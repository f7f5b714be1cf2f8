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

// ---- View copies as aliases (runtime/executor/view_elision.cpp) ----

// Counts the kernel calls an execute makes.
class CallCounter final : public ExecuteObserver {
 public:
  void on_begin(const InstructionEvent& e) override {
    if (e.kind == InstructionEvent::Kind::Kernel) ++calls;
  }
  void on_end(const InstructionEvent&, Error) override {}
  size_t calls = 0;
};

// Loads `bytes`, sets input 0 to x (a 1-D float tensor) and executes once;
// the outputs' floats in `outs` (each output's numel), the kernel calls in
// *calls.
Error run_with_x(const testing::AlignedBytes& bytes, std::vector<float> x, bool fusion,
                 std::vector<std::vector<float>>* outs, size_t* calls) {
  testing::register_all_kernels();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) return program.error();
  CraftedMemory mem;
  MethodLoadOptions options;
  options.kernel_fusion = fusion;
  Result<Method> m = program->load_method("forward", &mem.mm, options);
  if (!m.ok()) return m.error();
  int32_t sizes[] = {static_cast<int32_t>(x.size())};
  uint8_t order[] = {0};
  int64_t strides[1];
  Tensor xt(ScalarType::Float, 1, sizes, order, strides, x.data());
  ETR_RETURN_IF_ERROR(m->set_input(xt, 0));
  CallCounter counter;
  m->set_observer(&counter);
  ETR_RETURN_IF_ERROR(m->execute());
  *calls = counter.calls;
  outs->clear();
  for (size_t i = 0; i < m->outputs_size(); ++i) {
    const Tensor& t = m->get_output(i).to_tensor();
    const float* d = t.const_data_ptr<float>();
    outs->emplace_back(d, d + t.numel());
  }
  return Error::Ok;
}

// a = x + x; u = unsqueeze(a, 0); b = x * x; out = u + b. The program's plan
// puts b over a (a dies at the unsqueeze): as an alias of a, u needs a's
// bytes until the add, so the loader must move b. torch: 2x + x^2.
testing::AlignedBytes alias_over_reused_bytes() {
  ProgramWriter w;
  auto x = w.tensor({4}, {0}, 1, 0);
  auto a = w.tensor({4}, {0}, 1, 16);
  auto alpha = w.integer(1);
  auto u = w.tensor({1, 4}, {0, 1}, 1, 32);
  auto dim = w.integer(0);
  auto b = w.tensor({4}, {0}, 1, 16);
  auto out = w.tensor({1, 4}, {0, 1}, 1, 48);
  return w.finish({x, a, alpha, u, dim, b, out}, {0}, {6},
                  {w.kernel(0, {0, 0, 2, 1, 1}), w.kernel(1, {1, 4, 3, 3}),
                   w.kernel(2, {0, 0, 5, 5}), w.kernel(0, {3, 5, 2, 6, 6})},
                  {"aten::add.out", "aten::unsqueeze_copy.out", "aten::mul.out"});
}

TEST(CraftedProgramTest, ViewCopyRunsAsAnAliasAndTheBytesItReadsStayIntact) {
  const std::vector<float> x = {1.f, 2.f, -3.f, 0.5f};
  const float want[4] = {3.f, 8.f, 3.f, 1.25f};  // 2x + x^2
  const testing::AlignedBytes bytes = alias_over_reused_bytes();
  std::vector<std::vector<float>> outs;
  size_t calls = 0;
  ASSERT_EQ(run_with_x(bytes, x, true, &outs, &calls), Error::Ok);
  ASSERT_EQ(outs.size(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(outs[0][i], want[i]) << i;
#if ETR_TEST_KERNEL_FUSION
  EXPECT_EQ(calls, 3u);  // the unsqueeze ran as nothing
#endif
  // Without fusion (a profile's one event per operator) the copy runs.
  ASSERT_EQ(run_with_x(bytes, x, false, &outs, &calls), Error::Ok);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(outs[0][i], want[i]) << i;
  EXPECT_EQ(calls, 4u);
}

// a = x + x; u = unsqueeze(a, 0); out1 = s + s where s is a view of a the
// program left to its plan (no instruction, a's offset); b = x + xc where xc
// is x viewed as [4, 1] ([4, 4], over a's bytes: a and s are dead by then
// in the program's plan); out0 = u + b. As an alias, u keeps a's bytes
// alive past b's birth, so a's block moves; s must move with it.
// torch: out1 = 4x as [2, 2]; out0[i][j] = 3x[j] + x[i].
TEST(CraftedProgramTest, PlanViewsOfAnAliasedTensorMoveWithIt) {
  ProgramWriter w;
  auto x = w.tensor({4}, {0}, 1, 0);
  auto a = w.tensor({4}, {0}, 1, 16);
  auto alpha = w.integer(1);
  auto u = w.tensor({1, 4}, {0, 1}, 1, 96);
  auto dim = w.integer(0);
  auto s_view = w.tensor({2, 2}, {0, 1}, 1, 16);
  auto out1 = w.tensor({2, 2}, {0, 1}, 1, 112);
  auto xc = w.tensor({4, 1}, {0, 1}, 1, 0);
  auto b = w.tensor({4, 4}, {0, 1}, 1, 16);
  auto out0 = w.tensor({4, 4}, {0, 1}, 1, 128);
  auto bytes = w.finish(
      {x, a, alpha, u, dim, s_view, out1, xc, b, out0}, {0}, {9, 6},
      {w.kernel(0, {0, 0, 2, 1, 1}), w.kernel(1, {1, 4, 3, 3}), w.kernel(0, {5, 5, 2, 6, 6}),
       w.kernel(0, {0, 7, 2, 8, 8}), w.kernel(0, {3, 8, 2, 9, 9})},
      {"aten::add.out", "aten::unsqueeze_copy.out"});
  const std::vector<float> x_in = {1.f, 2.f, -3.f, 0.5f};
  std::vector<std::vector<float>> outs;
  size_t calls = 0;
  ASSERT_EQ(run_with_x(bytes, x_in, true, &outs, &calls), Error::Ok);
  ASSERT_EQ(outs.size(), 2u);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_FLOAT_EQ(outs[0][i * 4 + j], 3.f * x_in[j] + x_in[i]) << i << "," << j;
    }
    EXPECT_FLOAT_EQ(outs[1][i], 4.f * x_in[i]) << i;
  }
#if ETR_TEST_KERNEL_FUSION
  EXPECT_EQ(calls, 4u);
#endif
}

// A select of the leading dim is a run of its input; one of the last dim
// (floats 4 apart) is not, and stays a copy. x2 = x + x as [2, 4] (the add
// writes it through a plan view as [8], value 8 at x2's offset):
// r = select(x2, 0, 1) = 2x[4..8]; c = select(x2, 1, 0) = [2x0, 2x4];
// out = r * r = 4x[4..8]^2 and out2 = c + c = [4x0, 4x4].
TEST(CraftedProgramTest, OnlyContiguousSelectsRunAsAliases) {
  ProgramWriter w;
  auto x = w.tensor({8}, {0}, 1, 0);
  auto x2 = w.tensor({2, 4}, {0, 1}, 1, 32);
  auto alpha = w.integer(1);
  auto zero = w.integer(0);
  auto one = w.integer(1);
  auto two = w.integer(2);
  auto r = w.tensor({4}, {0}, 1, 64);
  auto c = w.tensor({2}, {0}, 1, 80);
  auto out = w.tensor({4}, {0}, 1, 96);
  auto out2 = w.tensor({2}, {0}, 1, 112);
  auto x2flat = w.tensor({8}, {0}, 1, 32);
  auto bytes = w.finish(
      {x, x2, alpha, zero, one, two, r, c, out, out2, x2flat}, {0}, {8, 9},
      {w.kernel(0, {0, 0, 2, 10, 10}), w.kernel(1, {1, 3, 4, 6, 6}), w.kernel(1, {1, 4, 3, 7, 7}),
       w.kernel(2, {6, 6, 8, 8}), w.kernel(0, {7, 7, 2, 9, 9})},
      {"aten::add.out", "aten::select_copy.int_out", "aten::mul.out"});
  std::vector<std::vector<float>> outs;
  size_t calls = 0;
  ASSERT_EQ(run_with_x(bytes, {1.f, 2.f, -3.f, 0.5f, 4.f, -1.f, 2.5f, 3.f}, true, &outs, &calls),
            Error::Ok);
  ASSERT_EQ(outs.size(), 2u);
  const float want[4] = {64.f, 4.f, 25.f, 36.f};  // (2 * [4, -1, 2.5, 3])^2
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(outs[0][i], want[i]) << i;
  EXPECT_FLOAT_EQ(outs[1][0], 4.f);   // 4 * 1
  EXPECT_FLOAT_EQ(outs[1][1], 16.f);  // 4 * 4
#if ETR_TEST_KERNEL_FUSION
  EXPECT_EQ(calls, 4u);  // the row select ran as nothing, the column select ran
#endif
}
// A permute that only moves a size-1 dim keeps the bytes in order and runs
// as an alias; a transpose does not. a = x + x; t = permute(a as [2, 2],
// (1, 0)); p = permute(a as [1, 4], (1, 0)); out0 = t + t, out1 = p + p.
// torch: out0 = 4x^T as [2, 2], out1 = 4x as [4, 1].
TEST(CraftedProgramTest, OnlyPermutesOfSizeOneDimsRunAsAliases) {
  ProgramWriter w;
  auto x = w.tensor({4}, {0}, 1, 0);
  auto a = w.tensor({4}, {0}, 1, 16);
  auto alpha = w.integer(1);
  auto a22 = w.tensor({2, 2}, {0, 1}, 1, 16);
  auto a14 = w.tensor({1, 4}, {0, 1}, 1, 16);
  auto d0 = w.integer(1);
  auto d1 = w.integer(0);
  auto dims = w.int_list({5, 6});
  auto t = w.tensor({2, 2}, {0, 1}, 1, 32);
  auto pm = w.tensor({4, 1}, {0, 1}, 1, 48);
  auto out0 = w.tensor({2, 2}, {0, 1}, 1, 64);
  auto out1 = w.tensor({4, 1}, {0, 1}, 1, 80);
  auto bytes =
      w.finish({x, a, alpha, a22, a14, d0, d1, dims, t, pm, out0, out1}, {0}, {10, 11},
               {w.kernel(0, {0, 0, 2, 1, 1}), w.kernel(1, {3, 7, 8, 8}), w.kernel(1, {4, 7, 9, 9}),
                w.kernel(0, {8, 8, 2, 10, 10}), w.kernel(0, {9, 9, 2, 11, 11})},
               {"aten::add.out", "aten::permute_copy.out"});
  const std::vector<float> x_in = {1.f, 2.f, -3.f, 0.5f};
  std::vector<std::vector<float>> outs;
  size_t calls = 0;
  ASSERT_EQ(run_with_x(bytes, x_in, true, &outs, &calls), Error::Ok);
  ASSERT_EQ(outs.size(), 2u);
  const float want0[4] = {4.f, -12.f, 8.f, 2.f};  // 4 * [[1, -3], [2, 0.5]]
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(outs[0][i], want0[i]) << i;
    EXPECT_FLOAT_EQ(outs[1][i], 4.f * x_in[i]) << i;
  }
#if ETR_TEST_KERNEL_FUSION
  EXPECT_EQ(calls, 4u);  // the size-1 permute ran as nothing, the transpose ran
#endif
}

}  // namespace
}  // namespace etr
