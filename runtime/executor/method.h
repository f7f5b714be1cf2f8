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
#include "runtime/executor/method_meta.h"
#include "runtime/kernel/kernel.h"

namespace etr_fb {
struct ExecutionPlan;
}

namespace etr {

class Program;

namespace internal {

enum class InstrKind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };

struct Instruction {
  InstrKind kind;
  uint32_t a;  // Kernel: operator index; Delegate: delegate index; Move: from; Jump: cond; Free: value
  uint32_t b;  // Move: to; Jump: destination; Kernel/Delegate: argument count
  // Kernel: some tensor argument had no memory at load time (e.g. it is the
  // output of a view op); execute checks those arguments before the call.
  bool check_tensor_memory;
  KernelFn fn;
  EValue** args;
};

struct Chain {
  Instruction* instructions;
  size_t num_instructions;
};

struct Delegate {
  const BackendInterface* backend;
  DelegateHandle* handle;
};

}  // namespace internal

class Method final {
 public:
  Method(Method&& other) noexcept;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  ~Method();

  const char* name() const;
  MethodMeta method_meta() const { return MethodMeta(plan_); }

  size_t inputs_size() const { return num_inputs_; }
  size_t outputs_size() const { return num_outputs_; }

  // Sets input `index`. A tensor input must match the declared dtype, rank
  // and dim order, and its sizes must equal the declared sizes (static) or
  // fit the declared bound (dynamic). For a memory-planned input the data is
  // copied into planned memory; otherwise the method keeps a pointer to the
  // caller's data, which must stay valid until the next set_input for it.
  // Int/Double/Bool/String/None inputs must equal the value in the program.
  [[nodiscard]] Error set_input(const EValue& value, size_t index);
  [[nodiscard]] Error set_input(const Tensor& tensor, size_t index);

  // Binds caller memory to an output that the program did not plan.
  [[nodiscard]] Error set_output_data_ptr(void* data, size_t size, size_t index);

  // Runs every chain. Fails with InvalidState until every input is set. A
  // planned input whose memory the program reuses for other values is
  // consumed by execute and must be set again before the next execute.
  [[nodiscard]] Error execute();

  // Caps the instructions one execute may run (default 10,000,000), so a
  // program whose jumps loop forever fails with OutOfResources instead of hanging.
  void set_max_instructions(size_t n) { max_instructions_ = n; }

  // Output `index`; valid until the next execute.
  const EValue& get_output(size_t index) const;
  // Input value `index` as the method holds it.
  const EValue& get_input(size_t index) const;

  size_t num_values() const { return num_values_; }
  const EValue& value(size_t index) const { return values_[index]; }

 private:
  friend class Program;
  friend class MethodLoader;
  Method() = default;
  [[nodiscard]] Error report_failure(size_t chain, size_t pc, Error err) const;

  const Program* program_ = nullptr;
  const etr_fb::ExecutionPlan* plan_ = nullptr;
  MemoryManager* memory_ = nullptr;
  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  const int32_t* input_indices_ = nullptr;
  size_t num_inputs_ = 0;
  bool* input_set_ = nullptr;
  bool* input_planned_ = nullptr;
  // Planned inputs whose memory the plan shares with other values; execute
  // may overwrite them, so they must be set again before the next execute.
  bool* input_consumed_ = nullptr;
  bool* output_planned_ = nullptr;
  FreeableBuffer* external_buffers_ = nullptr;
  size_t num_external_buffers_ = 0;
  const int32_t* output_indices_ = nullptr;
  size_t num_outputs_ = 0;
  internal::Chain* chains_ = nullptr;
  size_t num_chains_ = 0;
  internal::Delegate* delegates_ = nullptr;
  size_t num_delegates_ = 0;
  size_t max_instructions_ = 10'000'000;
  bool initialized_ = false;
};

}  // namespace etr
