// Method: one loaded, executable entry point of a Program.
//
// All state lives in memory from the MemoryManager given at load. execute()
// allocates nothing, validates nothing that load already checked, and logs
// only on failure.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/backend/backend.h"
#include "runtime/core/evalue.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/thread_pool.h"
#include "runtime/executor/execute_observer.h"
#include "runtime/executor/method_meta.h"
#include "runtime/kernel/kernel.h"

namespace etr_fb {
struct ExecutionPlan;
}

namespace etr {

class Program;
class MethodLoader;

namespace internal {

// Absorbed: an instruction a fused kernel call earlier in the chain runs as
// part of its group (runtime/executor/kernel_fusion.cpp), or a view copy whose
// output the loader made an alias of its input (view_elision.cpp; `by` is
// the instruction itself); executed as nothing.
enum class InstrKind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free, Absorbed };

struct KernelInstr {
  KernelFn fn;
  EValue** args;
  // What the kernel's prepare step built (null when none).
  void* state;
  uint32_t num_args;
  uint32_t op_index;
  // Some tensor argument had no memory at load time (e.g. it is the output
  // of a view op); execute checks those arguments before the call.
  bool check_tensor_memory;
  // The kernel's prepare step, set only when an argument it checked can be
  // written while the method runs (a symbolic size from a prim op, the
  // target of a move): execute then repeats the check before the call.
  PrepareFn reprepare;
};
struct DelegateInstr {
  EValue** args;
  uint32_t num_args;
  uint32_t delegate_index;
};
struct MoveInstr {
  uint32_t from;
  uint32_t to;
};
struct JumpFalseInstr {
  uint32_t cond;
  uint32_t destination;
};
struct FreeInstr {
  uint32_t value;
};
struct AbsorbedInstr {
  // The instruction (same chain) whose fused call runs this one.
  size_t by;
};

// One resolved instruction: `kind` says which member of the union is live.
struct Instruction {
  InstrKind kind;
  union {
    KernelInstr kernel;
    DelegateInstr delegate;
    MoveInstr move;
    JumpFalseInstr jump;
    FreeInstr free;
    AbsorbedInstr absorbed;
  };
};

struct Chain {
  Instruction* instructions;
  size_t num_instructions;
};

struct Delegate {
  const BackendInterface* backend;
  DelegateHandle* handle;
  const char* id;  // the backend id, pointing into the program
};

// A value that goes back to T{} in the object it is moved from, so the
// moved-from Method releases nothing.
template <typename T>
class ResetOnMove final {
 public:
  ResetOnMove() = default;
  ResetOnMove(T v) : v_(v) {}  // NOLINT: implicit by design
  ResetOnMove(ResetOnMove&& o) noexcept : v_(o.v_) { o.v_ = T{}; }
  ResetOnMove& operator=(ResetOnMove&& o) noexcept {
    v_ = o.v_;
    o.v_ = T{};
    return *this;
  }
  operator T() const { return v_; }  // NOLINT
  T& get() { return v_; }

 private:
  T v_{};
};

// Where a method output's memory is (MethodState::output_planned).
enum OutputMemory : uint8_t {
  kOutputUnplanned = 0,   // none planned: the caller binds it (set_output_data_ptr)
  kOutputPlanned = 1,     // in the method's planned memory (or not a tensor / empty)
  kOutputRedirected = 2,  // planned, moved to a caller's buffer by set_output_data_ptr
};

// Everything a loaded method holds. All arrays live in the method allocator.
struct MethodState {
  const Program* program = nullptr;
  const etr_fb::ExecutionPlan* plan = nullptr;
  MemoryManager* memory = nullptr;
  ThreadPool* thread_pool = nullptr;
  EValue* values = nullptr;
  size_t num_values = 0;
  const int32_t* input_indices = nullptr;
  size_t num_inputs = 0;
  bool* input_set = nullptr;
  bool* input_planned = nullptr;
  // Planned inputs whose memory the plan shares with other values; execute
  // may overwrite them, so they must be set again before the next execute.
  bool* input_consumed = nullptr;
  const int32_t* output_indices = nullptr;
  size_t num_outputs = 0;
  // OutputMemory of each output.
  uint8_t* output_planned = nullptr;
  // "name.overload" of each operator, NUL-terminated.
  const char** op_names = nullptr;
  Chain* chains = nullptr;
  size_t num_chains = 0;
  Delegate* delegates = nullptr;
  FreeableBuffer* external_buffers = nullptr;
  size_t max_instructions = 10'000'000;
  ExecuteObserver* observer = nullptr;
  // Owned resources: released by the destructor of the Method holding them.
  ResetOnMove<size_t> num_delegates;
  ResetOnMove<size_t> num_external_buffers;
  ResetOnMove<bool> initialized;
};

}  // namespace internal

class Method final {
 public:
  Method(Method&&) noexcept = default;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  ~Method();

  const char* name() const;
  MethodMeta method_meta() const { return MethodMeta(s_.plan, s_.program); }

  size_t inputs_size() const { return s_.num_inputs; }
  size_t outputs_size() const { return s_.num_outputs; }

  // Sets input `index`. A tensor input must match the declared dtype and
  // rank, and its sizes must equal the declared sizes (static) or fit the
  // declared bound (dynamic). For a memory-planned input the data is copied
  // into planned memory, re-laid out when its dim order differs from the
  // declared one (a contiguous image into a channels-last input); otherwise
  // the method keeps a pointer to the caller's data, which must then have the
  // declared dim order and stay valid until the next set_input for it.
  // Non-tensor inputs (Int/Double/Bool/String/None) keep the value the
  // program was exported with and need not be set; setting one checks that
  // it equals that value.
  [[nodiscard]] Error set_input(const EValue& value, size_t index);
  [[nodiscard]] Error set_input(const Tensor& tensor, size_t index);

  // Binds caller memory (`size` bytes at `data`, aligned for the dtype) to
  // tensor output `index`: an output the program did not plan needs its
  // current size in bytes; a memory-planned one is redirected from its
  // planned memory to `data` (its current bytes copied over the first
  // time) and needs its capacity (the largest shape it may take); it may be
  // given another buffer later. Kernels then write it there;
  // the caller keeps `data` valid while the method runs. A planned output
  // that is also an input, or a constant or external tensor, stays where it
  // is: InvalidState. A non-tensor output or bad index: InvalidArgument.
  [[nodiscard]] Error set_output_data_ptr(void* data, size_t size, size_t index);

  // Runs every chain. Fails with InvalidState until every tensor input is
  // set. A planned input whose memory the program reuses for other values is
  // consumed by execute and must be set again before the next execute.
  [[nodiscard]] Error execute();

  // True when input `index` holds a value execute may use: a tensor input
  // set since load (or, when execute consumes it, since the last execute), or
  // a non-tensor input (it keeps its exported value). False out of range.
  bool input_set(size_t index) const {
    return index < s_.num_inputs && s_.input_set != nullptr && s_.input_set[index];
  }

  // True when input `index` is consumed by execute (its planned memory is
  // reused for other values), so it must be set again before every execute.
  bool input_consumed(size_t index) const {
    return index < s_.num_inputs && s_.input_consumed != nullptr && s_.input_consumed[index];
  }

  // Caps the instructions one execute may run (MethodLoadOptions::max_instructions).
  void set_max_instructions(size_t n) { s_.max_instructions = n; }
  // Calls `observer` around every kernel and delegate call of execute and
  // around each whole execute (see execute_observer.h); null (the default)
  // turns it off. Does not take ownership; it must outlive its use.
  void set_observer(ExecuteObserver* observer) { s_.observer = observer; }

  // Output `index`; valid until the next execute. An index out of range (or
  // a method that is not loaded) logs an error and yields a None value.
  const EValue& get_output(size_t index) const;
  // Input value `index` as the method holds it; out of range as get_output.
  const EValue& get_input(size_t index) const;

  size_t num_values() const { return s_.num_values; }
  // Value `index` of the method's value table; out of range as get_output.
  const EValue& value(size_t index) const;

 private:
  friend class Program;
  friend class MethodLoader;
  Method() = default;
  [[nodiscard]] Error report_failure(size_t chain, size_t pc, Error err) const;
  [[nodiscard]] Error check_ready();
  const char* output_bound_reason(size_t index) const;
  // The instructions of execute, once its inputs are checked.
  [[nodiscard]] Error run_chains();

  internal::MethodState s_;
};

}  // namespace etr
