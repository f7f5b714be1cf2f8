// Compatibility layer (extension/compat): the official
// executorch::extension::Module, mapped onto etr::Module (one etr::Module per
// instance; nothing else is loaded or kept). Errors are the official codes;
// the message naming the method, input index or file is logged by etr
// (receive it with etr::ErrorCapture).
//
// Inputs given to execute() or set with set_input(s) stay set on the method
// (as upstream) until replaced or the method is unloaded; get_output(s)
// returns the outputs of the method's last execution.
//
// set_output(s) hands the method a caller's buffer for a tensor output (of
// the output's dtype, at least its capacity in bytes): the method writes
// that output there from then on (a memory-planned output is redirected
// out of planned memory; see etr::Method::set_output_data_ptr), and the
// buffer's owner is kept alive until the method is unloaded.
//
// Not covered: event tracers, caller-provided allocators and planned memory,
// shared memory arenas, backend load options. Not polymorphic (no virtual
// members).
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace etr {
class Module;
}  // namespace etr

namespace executorch {
namespace extension {

using ::executorch::runtime::MethodMeta;
using ::executorch::runtime::Program;

namespace module {

class Module {
 public:
  enum class LoadMode {
    File,                      // FileDataLoader
    Mmap,                      // MmapDataLoader
    MmapUseMlock,              // MmapDataLoader, mlock (etr falls back to unlocked, logged)
    MmapUseMlockIgnoreErrors,  // same
    MmapUseMadvise,            // MmapDataLoader (etr maps without madvise hints)
  };

  explicit Module(const std::string& file_path, const LoadMode load_mode = LoadMode::File);
  explicit Module(const std::string& file_path, const std::string& data_map_path,
                  const LoadMode load_mode = LoadMode::File);
  explicit Module(const std::string& file_path, std::vector<std::string> data_files,
                  const LoadMode load_mode = LoadMode::File);
  // A program read through `data_loader` (taken over), with the .ptd read
  // through `data_map_loader` when one is given. etr sizes and owns each
  // method's memory and runs no event tracer of the caller's here:
  // `memory_allocator`, `temp_allocator` and `event_tracer` are accepted and
  // released unused (logged), and every Module has its own memory arenas
  // (`share_memory_arenas` must be false: load, load_method and execute
  // fail with NotSupported otherwise).
  explicit Module(std::unique_ptr<runtime::DataLoader> data_loader,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr,
                  bool share_memory_arenas = false);
  // A program shared with other Modules (program() of another Module, or a
  // Program loaded by the caller): loaded from the start; methods, their
  // memory and inputs are this Module's own. Modules sharing a program may
  // run on different threads.
  explicit Module(std::shared_ptr<Program> program,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr,
                  bool share_memory_arenas = false);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = delete;
  Module& operator=(Module&&) = delete;
  ~Module();

  [[nodiscard]] runtime::Error load(
      const Program::Verification verification = Program::Verification::Minimal);
  bool is_loaded() const;
  // The loaded program, to build other Modules over (null before load()).
  std::shared_ptr<Program> program() const;

  runtime::Result<size_t> num_methods();
  runtime::Result<std::unordered_set<std::string>> method_names();

  [[nodiscard]] runtime::Error load_method(const std::string& method_name);
  [[nodiscard]] runtime::Error load_forward() { return load_method("forward"); }
  bool is_method_loaded(const std::string& method_name) const;
  // Frees a loaded method with its inputs and outputs; true when it was loaded.
  bool unload_method(const std::string& method_name);
  bool unload_forward() { return unload_method("forward"); }

  runtime::Result<MethodMeta> method_meta(const std::string& method_name);

  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values);
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const runtime::EValue& input_value) {
    return execute(method_name, std::vector<runtime::EValue>{input_value});
  }
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name) {
    return execute(method_name, std::vector<runtime::EValue>{});
  }

  // The first output (InvalidArgument when the method has none).
  [[nodiscard]] runtime::Result<runtime::EValue> get(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values);
  [[nodiscard]] runtime::Result<runtime::EValue> get(const std::string& method_name,
                                                     const runtime::EValue& input_value) {
    return get(method_name, std::vector<runtime::EValue>{input_value});
  }
  [[nodiscard]] runtime::Result<runtime::EValue> get(const std::string& method_name) {
    return get(method_name, std::vector<runtime::EValue>{});
  }

  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> forward(
      const std::vector<runtime::EValue>& input_values) {
    return execute("forward", input_values);
  }
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> forward(
      const runtime::EValue& input_value) {
    return execute("forward", input_value);
  }
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> forward() {
    return execute("forward");
  }

  // Sets input `input_index` of the method for the next executions
  // (InvalidArgument for an index past its inputs).
  [[nodiscard]] runtime::Error set_input(const std::string& method_name,
                                         const runtime::EValue& input_value, size_t input_index);
  [[nodiscard]] runtime::Error set_input(const runtime::EValue& input_value, size_t input_index) {
    return set_input("forward", input_value, input_index);
  }
  // Sets every input (InvalidArgument unless one value per input).
  [[nodiscard]] runtime::Error set_inputs(const std::string& method_name,
                                          const std::vector<runtime::EValue>& input_values);
  [[nodiscard]] runtime::Error set_inputs(const std::vector<runtime::EValue>& input_values) {
    return set_inputs("forward", input_values);
  }

  // Caller-provided output buffers: checked (index, a tensor), then
  // NotSupported.
  [[nodiscard]] runtime::Error set_output(const std::string& method_name,
                                          runtime::EValue output_value, size_t output_index = 0);
  [[nodiscard]] runtime::Error set_output(runtime::EValue output_value, size_t output_index = 0) {
    return set_output("forward", std::move(output_value), output_index);
  }
  [[nodiscard]] runtime::Error set_outputs(const std::string& method_name,
                                           const std::vector<runtime::EValue>& output_values);
  [[nodiscard]] runtime::Error set_outputs(const std::vector<runtime::EValue>& output_values) {
    return set_outputs("forward", output_values);
  }

  // The outputs of the method's last execution (InvalidState before one).
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> get_outputs(
      const std::string& method_name);
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> get_outputs() {
    return get_outputs("forward");
  }
  [[nodiscard]] runtime::Result<runtime::EValue> get_output(const std::string& method_name,
                                                            size_t output_index = 0);
  [[nodiscard]] runtime::Result<runtime::EValue> get_output(size_t output_index = 0) {
    return get_output("forward", output_index);
  }

 private:
  // The method's input count (loading the program if needed).
  runtime::Result<size_t> num_inputs(const std::string& method_name);

  std::unique_ptr<::etr::Module> module_;
  // program()'s answer, made once per loaded program.
  mutable std::shared_ptr<Program> program_;
  // A Module built with share_memory_arenas (not supported: load fails).
  bool share_memory_arenas_ = false;
  // Per method: the inputs set so far (unset: nullopt) and the last outputs.
  std::map<std::string, std::vector<std::optional<runtime::EValue>>> inputs_;
  std::map<std::string, std::vector<runtime::EValue>> outputs_;
  // The output buffers given to set_output(s), kept alive per method.
  std::map<std::string, std::vector<runtime::EValue>> output_buffers_;
};

}  // namespace module

using ::executorch::extension::module::Module;

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::module::Module;
}  // namespace executor
}  // namespace torch
