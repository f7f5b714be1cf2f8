// MethodLoadOptions: everything a method load can be given besides memory.
//
//   etr::MethodLoadOptions options;
//   options.thread_pool = pool;                  // kernels and delegates share it
//   const etr::NamedDataMap* maps[] = {&weights_ptd};
//   options.external_data = maps;
//   etr::Result<etr::Method> m = program.load_method("forward", &memory, options);
//
// Every member has a working default; nothing here takes ownership, and
// everything named must outlive the Method.
#pragma once

#include <cstddef>

#include "runtime/backend/backend.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/span.h"
#include "runtime/core/thread_pool.h"
#include "runtime/executor/execute_observer.h"

namespace etr {

class KernelRegistry;

struct MethodLoadOptions {
  // Where operators are resolved; null: default_kernel_registry().
  const KernelRegistry* kernels = nullptr;
  // Where delegates find their backend; null: default_backend_registry().
  const BackendRegistry* backends = nullptr;
  // External named data (.ptd files), searched in order after the program's
  // own named data, for EXTERNAL tensors and for delegates.
  Span<const NamedDataMap* const> external_data;
  // The pool kernels and delegates run on; null: single-threaded.
  ThreadPool* thread_pool = nullptr;
  // Caps the instructions one execute may run, so a program whose jumps loop
  // forever fails with OutOfResources instead of hanging.
  size_t max_instructions = 10'000'000;
  // Per-backend options handed to each delegate's init (BackendInitContext::options).
  Span<const DelegateOptions> delegate_options;
  // Where delegates allocate their state (BackendInitContext::method_allocator);
  // null: the memory manager's method allocator. E.g. to put a delegate's
  // large weights in another memory region. Must outlive the Method.
  MemoryAllocator* delegate_allocator = nullptr;
  // Lets the loader fuse chains of kernel calls where a kernel library's
  // rule applies (kernel_fusion.cpp; builds with ETR_KERNEL_FUSION) and run
  // view copies (squeeze, unsqueeze, contiguous select/slice, ...) as
  // aliases of their inputs, laying the planned memory out again around them
  // (view_elision.cpp). False runs every instruction on its own, e.g. so
  // that a profile has one event per operator of the program.
  bool kernel_fusion = true;
  // Sees the load (ExecuteObserver::on_load_begin / on_load_end) and becomes
  // the loaded method's observer (Method::set_observer); null: none.
  ExecuteObserver* observer = nullptr;
};

}  // namespace etr
