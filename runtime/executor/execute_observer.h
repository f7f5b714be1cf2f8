// ExecuteObserver: a hook Method::execute calls around every kernel call and
// delegate call, for profilers and tracers. Always compiled in; when no
// observer is set, execute pays one predictable branch per instruction.
//
//   class Timer final : public etr::ExecuteObserver {
//     void on_begin(const etr::InstructionEvent& e) override { t0 = now(); }
//     void on_end(const etr::InstructionEvent& e, etr::Error) override { record(e.name, now() -
//     t0); }
//   };
//   method.set_observer(&timer);   // null turns it off
//
// The other hooks have empty defaults: on_execute_begin / on_execute_end
// around a whole Method::execute (after its input checks pass), and
// on_load_begin / on_load_end around Program::load_method when the observer
// is given in MethodLoadOptions::observer (the method then starts with it).
//
// Callbacks run on the thread that called execute, synchronously; they must
// not call back into the Method. Argument values are live: on_begin sees the
// inputs, on_end the outputs (with their run-time shapes).
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace etr {

class Method;

// The two nested spans of a method load: the whole Program::load_method, and
// the method's initialisation inside it (values, operators, delegates).
enum class LoadPhase : uint8_t { LoadMethod, Init };

struct InstructionEvent {
  enum class Kind : uint8_t { Kernel, Delegate };
  Kind kind;
  const char* method;
  size_t chain;
  size_t instruction;
  // Kernel: "aten::add.out"; delegate: the backend id ("XnnpackBackend").
  const char* name;
  // Kernel: every argument (the return slot last); delegate: inputs, then outputs.
  Span<EValue* const> args;
};

class ExecuteObserver {
 public:
  virtual void on_begin(const InstructionEvent& event) = 0;
  // `status` is the instruction's result (Ok, or the error execute returns).
  virtual void on_end(const InstructionEvent& event, Error status) = 0;

  // Around one Method::execute; on_execute_end sees the outputs.
  virtual void on_execute_begin(const Method& method) { (void)method; }
  virtual void on_execute_end(const Method& method, Error status) {
    (void)method;
    (void)status;
  }

  // Around Program::load_method (LoadPhase::LoadMethod) and the method's
  // initialisation inside it (LoadPhase::Init). `method` is the name asked for.
  virtual void on_load_begin(const char* method, LoadPhase phase) {
    (void)method;
    (void)phase;
  }
  virtual void on_load_end(const char* method, LoadPhase phase, Error status) {
    (void)method;
    (void)phase;
    (void)status;
  }

 protected:
  ~ExecuteObserver() = default;
};

}  // namespace etr
