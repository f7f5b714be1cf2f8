// ETDumpObserver: records a Method's loads and executes into an ETDumpWriter
// with the blocks, event names and ids the official runtime's tracer hooks
// produce, so the Python Inspector reads the result like an official ETDump:
//
//   load   (MethodLoadOptions::observer): block "Default" with
//          "Method::init", then "Program::load_method" (chain -1, instruction 0)
//   execute: block "Execute"; per kernel call (logged outputs first, at
//          kIntermediateOutputs) "native_call_<op>.<overload>" (prim ops,
//          which have no generated wrapper, skip it) and "OPERATOR_CALL";
//          per delegate call (all of its arguments logged first, at
//          kIntermediateOutputs) "DELEGATE_CALL"; then "Method::execute" and,
//          from kProgramOutputs on, the method's outputs.
//
//   etr::etdump::ETDumpWriter writer;
//   etr::etdump::ETDumpObserver observer(&writer);
//   options.observer = &observer;              // MethodLoadOptions
//   ... program.load_method("forward", &memory, options), execute ...
//   std::vector<uint8_t> etdump = writer.finish();
//
// Instruction ids are the instructions' indices in their chain as numbered
// in the .pte, so the Inspector links them to an ETRecord. Jumps, moves and
// frees (JF_CALL, MOVE_CALL, FREE_CALL in the official runtime) are not
// recorded; a fused kernel call is recorded under its first instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "devtools/etdump/etdump_writer.h"
#include "runtime/executor/execute_observer.h"

namespace etr {
namespace etdump {

// What the official runtime records for a kernel call, shared with the
// official-API EventTracer bridge (extension/compat):
// false for the prim ops, which the official runtime registers without the
// generated wrapper that adds "native_call_<op>" and logs the outputs;
bool has_native_call_event(const char* op);
// that event's name: "aten::add.out" -> "native_call_add.out";
std::string native_call_name(const char* op);
// the index in `args` (every argument, the return slots last) of the first
// output the wrapper logs: the trailing return slots, which alias the out
// arguments before them, or else the last slot.
size_t first_kernel_output(Span<EValue* const> args);

// The official EventTracerProfilingLevel: only the load and execute spans,
// or every instruction too (the default).
enum class ProfilingLevel : uint8_t { kProfileMethodOnly = 0, kProfileAllEvents = 1 };

class ETDumpObserver final : public ExecuteObserver {
 public:
  explicit ETDumpObserver(ETDumpWriter* writer) : writer_(writer) {}

  void set_debug_level(DebugLevel level) { debug_level_ = level; }
  DebugLevel debug_level() const { return debug_level_; }
  void set_profiling_level(ProfilingLevel level) { profiling_level_ = level; }
  // The bundled test case the next executes run (written in their blocks); -1: none.
  void set_bundled_input_index(int32_t index) { bundled_input_index_ = index; }
  // The first error a logging step met (a full debug buffer), after which
  // nothing more is logged (timings still are); Ok when none.
  Error logging_error() const { return logging_error_; }

  void on_begin(const InstructionEvent& event) override;
  void on_end(const InstructionEvent& event, Error status) override;
  void on_execute_begin(const Method& method) override;
  void on_execute_end(const Method& method, Error status) override;
  void on_load_begin(const char* method, LoadPhase phase) override;
  void on_load_end(const char* method, LoadPhase phase, Error status) override;

 private:
  void log(const EValue& value, uint64_t chain, int32_t instruction, bool output);

  ETDumpWriter* writer_;
  DebugLevel debug_level_ = DebugLevel::kNoLogging;
  ProfilingLevel profiling_level_ = ProfilingLevel::kProfileAllEvents;
  int32_t bundled_input_index_ = -1;
  Error logging_error_ = Error::Ok;
  uint64_t load_start_ = 0;
  uint64_t init_start_ = 0;
  uint64_t execute_start_ = 0;
  uint64_t call_start_ = 0;
};

}  // namespace etdump
}  // namespace etr
