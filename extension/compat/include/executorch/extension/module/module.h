// Compatibility layer (extension/compat): the official
// executorch::extension::Module, built as upstream's is: over the official
// Program and Method of this layer (themselves faces over etr's), with the
// caller's allocators, event tracer and planned memory used as given.
//
// Memory: every method Module loads takes its MemoryManager from the
// Module's `memory_allocator` (method allocator; a MallocMemoryAllocator
// when not given, as upstream) and `temp_allocator` (when not given, 16 MiB
// of the Module's, as etr::Module has, instead of upstream's
// MallocMemoryAllocator: no malloc per kernel call; give a larger one, or a
// MallocMemoryAllocator, for kernels that need more), and planned buffers sized from
// its MethodMeta (64-byte aligned heap), or the `planned_memory` given to
// load_method. With `share_memory_arenas`, planned buffers 0 and 1 (mem_id
// 1 and 2) are one pair of arenas for all methods, each sized to the
// largest method's; further buffers are the method's own.
//
// Event tracer: the Module's (or load_method's, which takes precedence) is
// given to Program::load_method, so it records the load and every execute
// exactly as a tracer given there does.
//
// Inputs given to execute() or set with set_input(s) are checked by the
// method at once and stay set (as upstream) until replaced or the method is
// unloaded; each execute sets them on the method again (a program may reuse
// an input's planned memory). Every input must be set (InvalidArgument).
// execute() and get_output(s) return copies of the outputs that own their
// data: they stay valid after the next execute and after the Module is gone.
// get_output(s) before the method ran fails with InvalidState.
//
// set_output(s) hands the method a caller's buffer for a tensor output (of
// the output's dtype, at least its capacity in bytes): the method writes
// that output there from then on (a memory-planned output is redirected
// out of planned memory; see etr::Method::set_output_data_ptr), and the
// buffer's owner is kept alive until the method is unloaded. Outputs that
// are neither planned nor set get a heap buffer of the Module's at load.
//
// A program loaded from a file or a DataLoader owns that loader: program()
// keeps it alive for other Modules. Kernels and delegates run on a thread
// pool of the Module's own (none under a NoThreadPoolGuard). Errors are the
// official codes; the message naming the method, input index or file is
// logged by etr (receive it with etr::ErrorCapture).
#pragma once

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#define ET_MODULE_NAMESPACE module

namespace executorch {
namespace extension {

using ::executorch::runtime::Kernel;
using ::executorch::runtime::LoadBackendOptionsMap;
using ::executorch::runtime::Method;
using ::executorch::runtime::MethodMeta;
using ::executorch::runtime::NamedDataMap;
using ::executorch::runtime::Program;

class ExecuTorchJni;

namespace module {

class Module {
 public:
  enum class LoadMode {
    File,                      // FileDataLoader
    Mmap,                      // MmapDataLoader
    MmapUseMlock,              // MmapDataLoader, mlock (fails when mlock does)
    MmapUseMlockIgnoreErrors,  // MmapDataLoader, mlock when it can
    MmapUseMadvise,            // MmapDataLoader (etr maps without madvise hints)
  };

  // A program read from `file_path` (with .ptd files) on the first call
  // that needs it.
  explicit Module(const std::string& file_path, const LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  bool share_memory_arenas = false);
  explicit Module(const std::string& file_path, const std::string& data_map_path,
                  const LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  bool share_memory_arenas = false);
  explicit Module(const std::string& file_path, std::vector<std::string> data_files,
                  const LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  bool share_memory_arenas = false);
  // A program read through `data_loader` (taken over), with the .ptd read
  // through `data_map_loader` when one is given. A null loader: load()
  // fails (as upstream, trying to open the empty path).
  explicit Module(std::unique_ptr<runtime::DataLoader> data_loader,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr,
                  bool share_memory_arenas = false);
  // A program shared with other Modules (program() of another Module, or a
  // Program loaded by the caller): loaded from the start (a null one: as a
  // null data loader); methods, their memory and inputs are this Module's
  // own. Modules sharing a program may run on different threads.
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
  virtual ~Module();

  // Loads the program and the .ptd files if needed.
  ET_NODISCARD virtual runtime::Error load(
      const Program::Verification verification = Program::Verification::Minimal);
  // The same, and keeps a copy of `backend_options` for every later method
  // load that is given none (kept only when the load succeeds).
  ET_NODISCARD virtual runtime::Error load(
      const LoadBackendOptionsMap& backend_options,
      const Program::Verification verification = Program::Verification::Minimal);
  // The options kept by load(backend_options) (empty before).
  const LoadBackendOptionsMap& backend_options() const { return backend_options_map_; }
  virtual bool is_loaded() const { return program_ != nullptr; }
  // The loaded program, to build other Modules over (null before load()).
  std::shared_ptr<Program> program() const { return program_; }

  runtime::Result<size_t> num_methods();
  runtime::Result<std::unordered_set<std::string>> method_names();

  // Loads `method_name` once (a loaded method is kept): planned memory is
  // `planned_memory` when given, else the Module's; `event_tracer` takes
  // precedence over the Module's; `backend_options` over those kept by
  // load(). `kernel_registry`: kernels for this method alone, consulted
  // before the global registry (as Program::load_method's).
  ET_NODISCARD runtime::Error load_method(const std::string& method_name,
                                          runtime::HierarchicalAllocator* planned_memory = nullptr,
                                          runtime::EventTracer* event_tracer = nullptr,
                                          const LoadBackendOptionsMap* backend_options = nullptr,
                                          std::vector<Kernel> kernel_registry = {});
  ET_DEPRECATED ET_NODISCARD runtime::Error load_method(const std::string& method_name,
                                                        runtime::EventTracer* event_tracer) {
    return load_method(method_name, nullptr, event_tracer, nullptr);
  }
  // Frees a loaded method with its memory, inputs and output buffers; true
  // when it was loaded.
  bool unload_method(const std::string& method_name);
  // The loaded method (loading it if needed).
  ET_DEPRECATED ET_NODISCARD runtime::Result<Method*> method(const std::string& method_name);

  ET_NODISCARD runtime::Error load_forward(runtime::HierarchicalAllocator* planned_memory = nullptr,
                                           runtime::EventTracer* event_tracer = nullptr,
                                           const LoadBackendOptionsMap* backend_options = nullptr,
                                           std::vector<Kernel> kernel_registry = {}) {
    return load_method("forward", planned_memory, event_tracer, backend_options,
                       std::move(kernel_registry));
  }
  ET_DEPRECATED ET_NODISCARD runtime::Error load_forward(runtime::EventTracer* event_tracer) {
    return load_forward(nullptr, event_tracer, nullptr);
  }
  bool unload_forward() { return unload_method("forward"); }
  bool is_method_loaded(const std::string& method_name) const;

  runtime::Result<MethodMeta> method_meta(const std::string& method_name);

  // Sets the given inputs (the first ones; the others as set before), runs
  // the method and returns copies of its outputs.
  ET_NODISCARD virtual runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values);
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const runtime::EValue& input_value) {
    return execute(method_name, std::vector<runtime::EValue>{input_value});
  }
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name) {
    return execute(method_name, std::vector<runtime::EValue>{});
  }

  // The first output (InvalidArgument when the method has none).
  ET_NODISCARD runtime::Result<runtime::EValue> get(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values) {
    auto outputs = execute(method_name, input_values);
    if (!outputs.ok()) return outputs.error();
    if (outputs->empty()) return runtime::Error::InvalidArgument;
    return std::move((*outputs)[0]);
  }
  ET_NODISCARD runtime::Result<runtime::EValue> get(const std::string& method_name,
                                                    const runtime::EValue& input_value) {
    return get(method_name, std::vector<runtime::EValue>{input_value});
  }
  ET_NODISCARD runtime::Result<runtime::EValue> get(const std::string& method_name) {
    return get(method_name, std::vector<runtime::EValue>{});
  }

  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> forward(
      const std::vector<runtime::EValue>& input_values) {
    return execute("forward", input_values);
  }
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> forward(
      const runtime::EValue& input_value) {
    return forward(std::vector<runtime::EValue>{input_value});
  }
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> forward() {
    return forward(std::vector<runtime::EValue>{});
  }

  // Sets input `input_index` of the method (loading it if needed) for the
  // next executions; the method's error (InvalidArgument for an index past
  // its inputs or a value that does not fit).
  ET_NODISCARD runtime::Error set_input(const std::string& method_name,
                                        const runtime::EValue& input_value, size_t input_index);
  ET_NODISCARD runtime::Error set_input(const runtime::EValue& input_value, size_t input_index) {
    return set_input("forward", input_value, input_index);
  }
  // Sets every input (InvalidArgument unless one value per input).
  ET_NODISCARD runtime::Error set_inputs(const std::string& method_name,
                                         const std::vector<runtime::EValue>& input_values);
  ET_NODISCARD runtime::Error set_inputs(const std::vector<runtime::EValue>& input_values) {
    return set_inputs("forward", input_values);
  }

  // Caller-provided output buffers (a tensor of the output's dtype; see the
  // header comment): InvalidArgument for an index out of range, a value that
  // is not a tensor, another dtype or a buffer too small.
  ET_NODISCARD runtime::Error set_output(const std::string& method_name,
                                         runtime::EValue output_value, size_t output_index = 0);
  ET_NODISCARD runtime::Error set_output(runtime::EValue output_value, size_t output_index = 0) {
    return set_output("forward", std::move(output_value), output_index);
  }
  ET_NODISCARD runtime::Error set_outputs(const std::string& method_name,
                                          const std::vector<runtime::EValue>& output_values);
  ET_NODISCARD runtime::Error set_outputs(const std::vector<runtime::EValue>& output_values) {
    return set_outputs("forward", output_values);
  }

  // Copies of the method's current outputs (InvalidState before it ran).
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> get_outputs(
      const std::string& method_name);
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> get_outputs() {
    return get_outputs("forward");
  }
  ET_NODISCARD runtime::Result<runtime::EValue> get_output(const std::string& method_name,
                                                           size_t output_index = 0);
  ET_NODISCARD runtime::Result<runtime::EValue> get_output(size_t output_index = 0) {
    return get_output("forward", output_index);
  }

  // The Module's event tracer (null when none was given).
  runtime::EventTracer* event_tracer() const { return event_tracer_.get(); }
  // Always empty (as upstream): the tracer's own debug buffer holds the data.
  ET_DEPRECATED ET_NODISCARD runtime::Span<uint8_t> debug_buffer() {
    return runtime::Span<uint8_t>(debug_buffer_.data(), debug_buffer_.size());
  }

 private:
  // Frees a planned buffer (64-byte aligned, from std::aligned_alloc).
  struct FreeBytes {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  // The planned memory Module made for a method: its own buffers, and the
  // spans the method's HierarchicalAllocator covers (over those buffers, or
  // over the shared arenas).
  struct PlannedMemory {
    std::vector<std::unique_ptr<uint8_t, FreeBytes>> planned_buffers;
    std::vector<runtime::Span<uint8_t>> planned_spans;
    std::unique_ptr<runtime::HierarchicalAllocator> planned_memory;
  };
  // What Module keeps per method beside upstream's members.
  struct MethodState {
    // Heap memory of the outputs neither planned nor given with set_output.
    std::vector<std::unique_ptr<uint8_t, FreeBytes>> output_buffers;
    // The buffers given to set_output(s), kept alive while the method uses them.
    std::vector<runtime::EValue> given_outputs;
    // The inputs set so far (unset: nullopt), set again before each execute.
    std::vector<std::optional<runtime::EValue>> inputs;
    bool ran = false;
  };
  // One loaded method, as upstream's: `planned_memory` is null when the
  // caller gave load_method its own; `kernel_registry` is the method-local
  // kernel list the method was loaded with.
  struct MethodHolder {
    std::unique_ptr<PlannedMemory> planned_memory;
    std::unique_ptr<runtime::MemoryManager> memory_manager;
    std::unique_ptr<Method> method;
    std::vector<Kernel> kernel_registry;
    MethodState state;
  };
  struct State;

  // The loaded method (loading it if needed).
  runtime::Result<MethodHolder*> holder(const std::string& method_name);
  // Loads the program (once) and the .ptd files (once).
  runtime::Error load_internal(Program::Verification verification);
  // The largest size of each planned buffer over every method.
  runtime::Result<std::vector<size_t>> max_planned_buffer_sizes();

  std::string file_path_;
  std::vector<std::string> data_files_;
  LoadMode load_mode_ = LoadMode::File;
  std::unique_ptr<runtime::DataLoader> data_loader_;
  std::shared_ptr<Program> program_;
  std::unique_ptr<runtime::MemoryAllocator> memory_allocator_;
  std::unique_ptr<runtime::MemoryAllocator> temp_allocator_;
  std::unique_ptr<runtime::EventTracer> event_tracer_;
  std::vector<uint8_t> debug_buffer_;
  // The deep copy of load()'s backend options: the option arrays, and the
  // map whose spans point into them.
  std::vector<std::vector<runtime::BackendOption>> backend_options_storage_;
  LoadBackendOptionsMap backend_options_map_;
  bool share_memory_arenas_ = false;
  // .ptd loaders and maps, shared arenas, the thread pool (etr types).
  std::unique_ptr<State> state_;

 protected:
  // The loaded methods by name, as upstream's: a subclass reaches a loaded
  // method's Method, MemoryManager and kernels through it. Entries are
  // added by load_method and removed by unload_method; a subclass that
  // erases one frees that method.
  std::unordered_map<std::string, MethodHolder> methods_;

  friend class ::executorch::extension::ExecuTorchJni;
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
