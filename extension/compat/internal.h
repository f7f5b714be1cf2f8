// Internal to extension/compat (not installed): what its sources share.
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <memory>
#include <vector>

#include "runtime/core/data_loader.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/thread_pool.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace executorch {
namespace runtime {
namespace internal {

// The official EValue viewing an etr value (a tensor: the etr tensor itself).
EValue face_of(const ::etr::EValue& v);

// An etr buffer handed out as an official one (released with it).
FreeableBuffer to_official_buffer(::etr::FreeableBuffer&& buffer);

// The official code of an etr::Error value (the same value for every
// official code; etr-only codes mapped).
Error to_official_error(int etr_error);

// The EventTracer of the method whose load or delegate call runs on this
// thread (set around them by Program::load_method's tracer bridge), handed
// to official backends in their init and execute contexts; null otherwise.
EventTracer*& active_event_tracer();

// The etr program behind an official one, sharing its ownership (null for
// a null program).
std::shared_ptr<const ::etr::Program> etr_program_of(const std::shared_ptr<Program>& program);
// An etr loader that owns `loader` and reads through it (null for null).
std::unique_ptr<::etr::DataLoader> etr_loader_owning(std::unique_ptr<DataLoader> loader);
// An official Program over a loaded etr program (shared, not copied).
std::shared_ptr<Program> program_over(std::shared_ptr<const ::etr::Program> program);

// Program::load_method, with kernels and delegates of the method run on
// `thread_pool` (null: on the calling thread alone). Module loads its
// methods through it with its own pool.
Result<Method> load_method_on(const Program& program, ::etr::ThreadPool* thread_pool,
                              const char* method_name, MemoryManager* memory_manager,
                              EventTracer* event_tracer, const NamedDataMap* named_data_map,
                              const LoadBackendOptionsMap* backend_options,
                              Span<const Kernel> kernel_registry);

// Hands the kernels registered through the official API since the last call
// to etr's kernel registry (one library). Called before a method loads.
Error flush_official_kernels();

// A method-local kernel list (load_method's `kernel_registry`) as the etr
// registry that one method loads with: a library of the list's operators
// above every library of etr's default registry (builtins and the kernels
// registered through the official API). For each call of one of the list's
// operators, the list's kernel for the call's key (else its fallback kernel
// for the operator) wins; when the list has none for the call, the global
// registry's kernels take it, as upstream's Method::resolve_operator does;
// when neither has one, the load fails with OperatorMissing naming the
// operator and key. The registry belongs to the Method (nothing global
// changes), and its list is consulted while the method loads.
struct MethodKernels {
  std::vector<Kernel> kernels;
  // One entry per distinct operator name of `kernels`.
  std::vector<::etr::KernelEntry> entries;
  ::etr::KernelRegistry registry;
};

// The registry of `kernels` for method `method_name` (InvalidArgument for a
// kernel without name or function). Call after the builtins and official
// kernels joined etr's default registry.
Result<std::unique_ptr<MethodKernels>> make_method_kernels(Span<const Kernel> kernels,
                                                           const char* method_name);

// Makes `kernels` the list the method-local kernels consult while a method
// loads on this thread (restored when the scope ends).
class MethodKernelsScope {
 public:
  explicit MethodKernelsScope(const MethodKernels* kernels);
  ~MethodKernelsScope();
  MethodKernelsScope(const MethodKernelsScope&) = delete;
  MethodKernelsScope& operator=(const MethodKernelsScope&) = delete;

 private:
  const MethodKernels* previous_;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
