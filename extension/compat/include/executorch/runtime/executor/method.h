// Compatibility layer (extension/compat): the official Method, one loaded
// entry point of a Program, as a face over etr::Method. The etr method owns
// the values; the EValues this class hands out are views of them (a tensor
// EValue points at the etr tensor itself, so writes through it reach the
// method). Contract violations the official runtime checks with ET_CHECK
// (an output or input index out of range) abort the same way.
#pragma once

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace executorch {
namespace runtime {

class Program;
struct Kernel;
class KernelRuntimeContext;

using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);
using InstructionArgs = Span<EValue*>;

class Method final {
 public:
  Method(Method&& rhs) noexcept;
  ~Method();

  // Sets input `input_idx` (a tensor's data is copied into planned memory,
  // or bound when the input is not planned). InvalidArgument for an index
  // out of range or a value that does not match the declared input.
  ET_NODISCARD Error set_input(const EValue& input_evalue, size_t input_idx);
  // Sets every input; the count must equal inputs_size().
  ET_NODISCARD Error set_inputs(const executorch::aten::ArrayRef<EValue>& input_evalues);
  // Binds caller memory to an output the program did not plan.
  ET_NODISCARD Error set_output_data_ptr(void* buffer, size_t size, size_t output_idx);
  // Copies (views of) the outputs into `output_evalues`; `length` must be at
  // least outputs_size().
  ET_NODISCARD Error get_outputs(EValue* output_evalues, size_t length);
  ET_DEPRECATED ET_NODISCARD Error get_inputs(EValue* input_evalues, size_t length);
  // The attribute tensor named `name` (a mutable buffer whose name the
  // program kept), a view of the method's own tensor: giving a tensor the
  // program did not plan memory with set_data binds it. NotFound when none
  // has that name.
  ET_NODISCARD Result<executorch::aten::Tensor> get_attribute(std::string_view name);
  // Runs the method. InvalidArgument while a tensor input is not set;
  // NotSupported on a Method that was moved from.
  ET_NODISCARD Error execute();

  MethodMeta method_meta() const;
  size_t inputs_size() const;
  size_t outputs_size() const;
  // Output `i` (aborts when i >= outputs_size()); valid until the next execute.
  const EValue& get_output(size_t i) const;
  EventTracer* get_event_tracer();
  ET_DEPRECATED const EValue& get_input(size_t i) const;
  ET_DEPRECATED EValue& mutable_input(size_t i);
  ET_DEPRECATED EValue& mutable_output(size_t i);

  // A number no other Method loaded in this process has (0 once moved from).
  // Newer than the 1.5.1 API.
  uint32_t id() const;

  // Internal (extension/compat).
  struct State;
  explicit Method(std::unique_ptr<State> state);

 private:
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  friend class Program;

  std::unique_ptr<State> state_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Method;
}  // namespace executor
}  // namespace torch
