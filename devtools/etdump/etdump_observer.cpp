// ETDumpObserver: ExecuteObserver hooks to ETDump events (see the header for
// the sequence each hook produces).
#include "devtools/etdump/etdump_observer.h"

#include <cstring>
#include <string>

#include "runtime/executor/method.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace etdump {
namespace {

// Chain and instruction of events outside any instruction (the official
// tracer's unset ids); as a debug event's uint64 chain, -1 widened.
constexpr int32_t kNoChain = -1;
constexpr int32_t kNoInstruction = 0;
constexpr uint64_t kNoChainDebug = ~uint64_t{0};

}  // namespace

bool has_native_call_event(const char* op) {
  static const char* const kAtenPrims[] = {"aten::sym_size.int", "aten::_local_scalar_dense",
                                           "aten::sym_numel"};
  if (std::strncmp(op, "executorch_prim::", 17) == 0) return false;
  for (const char* p : kAtenPrims) {
    if (std::strcmp(op, p) == 0) return false;
  }
  return true;
}

std::string native_call_name(const char* op) {
  const char* colon = std::strstr(op, "::");
  return std::string("native_call_") + (colon == nullptr ? op : colon + 2);
}

size_t first_kernel_output(Span<EValue* const> args) {
  if (args.empty()) return 0;
  // The trailing return slots alias the out arguments before them.
  size_t first = args.size();
  while (first > 0) {
    bool aliases = false;
    for (size_t j = 0; j + 1 < first && !aliases; ++j) aliases = args[j] == args[first - 1];
    if (!aliases) break;
    --first;
  }
  return first == args.size() ? args.size() - 1 : first;
}

void ETDumpObserver::log(const EValue& value, uint64_t chain, int32_t instruction, bool output) {
  if (logging_error_ != Error::Ok) return;  // the first failure (a full buffer) ends logging
  Result<bool> logged = writer_->log_value(value, chain, instruction, output);
  if (!logged.ok() && logging_error_ == Error::Ok) logging_error_ = logged.error();
}

void ETDumpObserver::on_load_begin(const char* method, LoadPhase phase) {
  (void)method;
  if (phase == LoadPhase::LoadMethod) {
    writer_->create_event_block("Default");
    load_start_ = platform_now_ns();
  } else {
    init_start_ = platform_now_ns();
  }
}

void ETDumpObserver::on_load_end(const char* method, LoadPhase phase, Error status) {
  (void)method;
  (void)status;
  const uint64_t end = platform_now_ns();
  if (phase == LoadPhase::LoadMethod) {
    writer_->add_profile_event("Program::load_method", kNoChain, kNoInstruction, load_start_, end);
  } else {
    writer_->add_profile_event("Method::init", kNoChain, kNoInstruction, init_start_, end);
  }
}

void ETDumpObserver::on_execute_begin(const Method& method) {
  (void)method;
  writer_->create_event_block("Execute", bundled_input_index_);
  execute_start_ = platform_now_ns();
}

void ETDumpObserver::on_execute_end(const Method& method, Error status) {
  const uint64_t end = platform_now_ns();
  writer_->add_profile_event("Method::execute", kNoChain, kNoInstruction, execute_start_, end);
  if (status != Error::Ok || debug_level_ == DebugLevel::kNoLogging) return;
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    log(method.get_output(i), kNoChainDebug, kNoInstruction, /*output=*/true);
  }
}

void ETDumpObserver::on_begin(const InstructionEvent& event) {
  (void)event;
  call_start_ = platform_now_ns();
}

void ETDumpObserver::on_end(const InstructionEvent& event, Error status) {
  const uint64_t end = platform_now_ns();
  if (profiling_level_ == ProfilingLevel::kProfileMethodOnly) return;
  const int32_t chain = static_cast<int32_t>(event.chain);
  const int32_t instruction = static_cast<int32_t>(event.instruction);
  const bool log_outputs = status == Error::Ok && debug_level_ == DebugLevel::kIntermediateOutputs;
  const Span<EValue* const> args = event.args;
  if (event.kind == InstructionEvent::Kind::Delegate) {
    // Every argument of the call, inputs and outputs alike.
    for (size_t i = 0; log_outputs && i < args.size(); ++i) {
      log(*args[i], event.chain, instruction, false);
    }
    writer_->add_profile_event("DELEGATE_CALL", chain, instruction, call_start_, end);
    return;
  }
  if (has_native_call_event(event.name)) {
    for (size_t i = first_kernel_output(args); log_outputs && i < args.size(); ++i) {
      log(*args[i], event.chain, instruction, false);
    }
    writer_->add_profile_event(native_call_name(event.name).c_str(), chain, instruction,
                               call_start_, end);
  }
  writer_->add_profile_event("OPERATOR_CALL", chain, instruction, call_start_, end);
}

}  // namespace etdump
}  // namespace etr
