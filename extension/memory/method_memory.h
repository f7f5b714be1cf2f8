// MethodMemory: all the memory one method needs, set up from its MethodMeta.
//
//   etr::Result<etr::MethodMeta> meta = program.method_meta("forward");
//   auto memory = etr::MethodMemory::create(*meta);   // planned buffers, method
//                                                     // allocator, temp allocator
//   etr::Result<etr::Method> method = program.load_method("forward", (*memory)->manager());
//   (*memory)->method_bytes_used();   // exact method-allocator bytes of that load
//
// Planned buffers: one per MethodMeta::memory_planned_buffer_size(i), from
// the platform heap (platform_allocate, 64-byte aligned), zeroed. Method allocator:
// by default a PlatformArena, which grows in chunks as the load asks, so
// nothing is guessed and the method is loaded once; with
// MethodMemoryOptions::method_bytes set, one fixed buffer of that many bytes
// (e.g. a figure from MethodMeta::method_allocator_bytes(), measured once).
// Temp allocator: a fixed buffer of temp_bytes (kernels size their scratch
// and worker split from its free space, so it cannot grow).
//
// Needs a heap; targets without one (examples/bare_metal) use static buffers.
// Everything stays where it is until the MethodMemory is destroyed, which
// must happen after every Method loaded with it.
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/platform_arena.h"

namespace etr {

struct MethodMemoryOptions {
  // 0: a growing PlatformArena. Otherwise a fixed method allocator of this
  // many bytes (64-byte aligned, as MethodMeta::method_allocator_bytes assumes).
  size_t method_bytes = 0;
  // The PlatformArena's chunk size (its small requests share chunks).
  size_t arena_chunk_bytes = PlatformArena::kDefaultChunkBytes;
  // The temp allocator: per-kernel scratch, reset after every instruction.
  size_t temp_bytes = size_t{16} << 20;
};

class MethodMemory final {
 public:
  // Fails with InvalidProgram for a negative planned-buffer size and
  // MemoryAllocationFailed (naming the buffer and its size) when the heap
  // refuses one.
  [[nodiscard]] static Result<std::unique_ptr<MethodMemory>> create(
      const MethodMeta& meta, const MethodMemoryOptions& options = MethodMemoryOptions());
  ~MethodMemory();
  MethodMemory(const MethodMemory&) = delete;
  MethodMemory& operator=(const MethodMemory&) = delete;

  MemoryManager* manager() { return &manager_; }
  MemoryAllocator* method_allocator() { return method_allocator_; }
  MemoryAllocator* temp_allocator() { return &temp_; }

  // Bytes a fixed method allocator (64-byte aligned) needs for what was
  // allocated so far: after a load, what MethodMeta::method_allocator_bytes()
  // reports for the same options.
  size_t method_bytes_used() const;
  // Heap bytes the method allocator holds (arena chunks, or the fixed buffer).
  size_t method_bytes_reserved() const;
  // The most temp memory one instruction used so far.
  size_t temp_bytes_peak() const { return temp_.peak(); }
  // Sum of the planned buffers.
  size_t planned_bytes() const { return planned_bytes_; }

 private:
  MethodMemory(size_t chunk_bytes, void* temp, size_t temp_bytes);

  std::unique_ptr<void*[]> planned_data_;
  std::unique_ptr<Span<uint8_t>[]> planned_spans_;
  size_t num_planned_ = 0;
  size_t planned_bytes_ = 0;
  HierarchicalAllocator planned_;
  PlatformArena arena_;
  void* fixed_data_ = nullptr;
  std::unique_ptr<MemoryAllocator> fixed_;
  MemoryAllocator* method_allocator_ = &arena_;
  void* temp_data_;
  MemoryAllocator temp_;
  MemoryManager manager_;
};

}  // namespace etr
