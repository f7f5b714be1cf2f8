// Module: the high-level API for applications that have a heap. It owns
// everything the heapless core asks the caller for (the data loader, the
// program, planned buffers, allocators, .ptd maps, a thread pool) and loads
// methods lazily on first use.
//
//   etr::Module m("model.pte");                        // or ("model.pte", {"weights.ptd"})
//   auto outs = m.forward({etr::make_tensor({1, 4}, std::vector<float>{1, 2, 3, 4})});
//   if (!outs.ok()) return fail(outs.error());        // the reason was logged (ErrorCapture)
//   std::vector<float> y = (*outs)[0].values<float>();
//
// Outputs rule: every output Value owns a copy of its data (tensors as
// HostTensor), so outputs stay valid and copyable after the next call and
// after the Module is gone. The copy is one memcpy per output; a caller that
// needs zero-copy access uses method() and reads Method::get_output, which is
// valid until the next execute of that method.
//
// State: a method's memory (planned buffers, mutable buffers such as a KV
// cache) persists across calls until the Module is destroyed.
//
// Kernels: unless options name registries, the portable kernels, the prim
// ops and (when built) the XNNPACK backend are added once per process to
// the default registries; libraries already there are kept.
//
// Errors: every call returns Error or Result; the message naming the
// method, input index or file is logged (receive it with etr::ErrorCapture).
// A Module is not thread-safe: use one per thread or serialize calls.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "extension/module/value.h"
#include "runtime/core/data_loader.h"
#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/thread_pool.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"

namespace etr {

class KernelRegistry;
class Program;
class BackendRegistry;

// Adds the built-in kernel libraries (portable, portable_half, prim ops, and
// the optimized and quantized kernels and the XNNPACK backend when built;
// ETR_OPTIMIZED_KERNELS=0 in the environment leaves the optimized ones out) to the default
// registries, once per process; libraries already there are kept. Module
// calls it; so may any app that loads methods itself.
[[nodiscard]] Error register_builtins();

struct ModuleOptions {
  enum class Loader : uint8_t {
    Mmap,        // MmapDataLoader (default): pages read on demand
    MmapLocked,  // MmapDataLoader with mlock (falls back to unlocked, logged)
    File,        // FileDataLoader: pread into heap buffers
  };
  Loader loader = Loader::Mmap;
  // Registries for every method; null: the default registries, filled once
  // with the built-in kernels and backends. Non-null: used as they are.
  // Does not take ownership; must outlive the Module.
  const KernelRegistry* kernels = nullptr;
  const BackendRegistry* backends = nullptr;
  // Pool for kernels and delegates. Does not take ownership; must outlive
  // the Module. Null: the Module makes its own pool of `num_threads`
  // threads (0: one per physical core; 1: no pool) when extension/threadpool
  // is built.
  ThreadPool* thread_pool = nullptr;
  size_t num_threads = 0;
  // Deprecated and ignored: each method's allocator now grows as its load
  // asks (MethodMemory, extension/memory), so there is no room to reserve.
  // Kept so that existing callers compile.
  size_t method_state_bytes = 0;
  // The per-method temp allocator (kernel scratch, reset after every instruction).
  size_t temp_bytes = size_t{16} << 20;
  // Sees every method load and execute of this Module (MethodLoadOptions::
  // observer), e.g. an etr::etdump::ETDumpObserver. Does not take ownership;
  // must outlive the Module. Null: none.
  ExecuteObserver* observer = nullptr;
  // MethodLoadOptions::kernel_fusion for every method (false: one kernel
  // call per instruction of the program, as a per-operator profile wants).
  bool kernel_fusion = true;
};

class Module final {
 public:
  // Nothing is read until the first call (or load()). `data_paths` are .ptd
  // files searched in order for external tensors and delegate data.
  explicit Module(std::string path, std::vector<std::string> data_paths = {},
                  ModuleOptions options = {});
  // A program read through `loader` (taken over; opened at load()), with
  // .ptd maps read through `data_loaders` (also taken over). The path used
  // in messages is "<data loader>".
  explicit Module(std::unique_ptr<DataLoader> loader,
                  std::vector<std::unique_ptr<DataLoader>> data_loaders = {},
                  ModuleOptions options = {});
  // A program another Module loaded (shared_program()): loaded from the
  // start; each Module keeps its own methods, memory and .ptd maps.
  // Program::load_method is const, so Modules on different threads may share
  // one program.
  explicit Module(std::shared_ptr<const Program> program,
                  std::vector<std::unique_ptr<DataLoader>> data_loaders = {},
                  ModuleOptions options = {});
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  // Opens and verifies the program and the .ptd files (once). Fails with
  // AccessFailed for a missing file, InvalidProgram / InvalidExternalData
  // for malformed ones, or the registration error.
  [[nodiscard]] Error load();
  bool is_loaded() const;
  // The loaded program (null before load()), which keeps what it reads
  // from alive: another Module may be built over it.
  std::shared_ptr<const Program> shared_program() const;

  [[nodiscard]] Result<std::vector<std::string>> method_names();
  // Metadata of `name`; valid while the Module lives.
  [[nodiscard]] Result<MethodMeta> method_meta(const std::string& name);

  // Loads `name` (planned buffers sized from its metadata). Loading again is
  // a no-op. NotFound for an unknown method.
  [[nodiscard]] Error load_method(const std::string& name);
  bool is_method_loaded(const std::string& name) const;
  // Frees a loaded method (its planned buffers and state); true when `name`
  // was loaded. A later call loads it again.
  bool unload_method(const std::string& name);

  // Sets the inputs, runs the method and returns copies of its outputs.
  // Fails with InvalidArgument naming the method and input index for a wrong
  // input count, shape or non-tensor value, InvalidType for a wrong dtype or
  // kind, and with the method's error when execution fails.
  [[nodiscard]] Result<std::vector<Value>> execute(const std::string& name,
                                                   const std::vector<Value>& inputs = {});
  [[nodiscard]] Result<std::vector<Value>> forward(const std::vector<Value>& inputs = {}) {
    return execute("forward", inputs);
  }
  // Runs `name` with the inputs set on it since its last run (through
  // method() and Method::set_input, e.g. a bundled program's test case) and
  // returns copies of its outputs. An input whose planned memory the program
  // reuses must be set again before every run (InvalidState otherwise).
  [[nodiscard]] Result<std::vector<Value>> run(const std::string& name);

  // The loaded method (loading it if needed), for zero-copy use. Valid
  // while the Module lives.
  [[nodiscard]] Result<Method*> method(const std::string& name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etr
