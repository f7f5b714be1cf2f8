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
// Callbacks run on the thread that called execute, synchronously; they must
// not call back into the Method. Argument values are live: on_begin sees the
// inputs, on_end the outputs (with their run-time shapes).
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace etr {

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

 protected:
  ~ExecuteObserver() = default;
};

}  // namespace etr
