// PlatformArena: a method allocator that grows on the platform heap and
// reports the exact size a fixed buffer would need for the same requests.
//
//   etr::PlatformArena arena;                      // nothing allocated yet
//   etr::MemoryManager memory(&arena, &planned, &temp);
//   auto method = program.load_method("forward", &memory);
//   arena.bytes_needed();    // what a MemoryAllocator over a 64-byte-aligned
//                            // buffer needs for this load (exact)
//
// Memory comes from platform_allocate() in chunks: requests are bumped within
// the current chunk; when it is full a new chunk of `chunk_bytes` starts; a
// request larger than a quarter of a chunk gets a chunk of its own (the
// current chunk stays open for small requests). Once kSlabAfterBytes have
// gone to such chunks, the larger requests up to a quarter of kSlabBytes
// (packed weights, a delegate's buffers) are bumped in slabs of kSlabBytes
// instead: the platform allocator advises blocks that large to use huge
// pages, so the kernel maps and zeroes them 2 MiB per fault instead of
// 4 KiB (faulting 4 KiB pages was a third of a MobileNet's load time), and a
// slab's tail that no request reaches is never touched. A model with few
// large requests keeps its small chunks. Everything is freed by
// reset() and the destructor. On a platform without a heap (the allocate hook
// returns nullptr) every request fails and heap_failed() is set.
//
// Besides handing out real memory it replays every request against a
// simulated MemoryAllocator whose buffer starts at an address aligned to
// kBufferAlignment: bytes_needed() is that allocator's used(), the exact
// capacity with which a MemoryAllocator over a kBufferAlignment-aligned
// buffer grants the same requests in the same order (the largest alignment
// this library's kernels ask for is 64). A request aligned to more than
// kBufferAlignment is counted with the worst-case padding
// (alignment - kBufferAlignment extra), so the figure stays sufficient but
// may then exceed the minimum.
//
// MemoryAllocator's used(), peak() and capacity() describe a fixed buffer and
// stay 0 here; use bytes_needed() and bytes_reserved().
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/memory_allocator.h"

namespace etr {

class PlatformArena final : public MemoryAllocator {
 public:
  // The alignment of the buffer bytes_needed() is computed for.
  static constexpr size_t kBufferAlignment = 64;
  static constexpr size_t kDefaultChunkBytes = size_t{64} << 10;
  // The slabs for larger requests (header included), and the bytes of
  // chunks of their own the large requests get before slabs start.
  static constexpr size_t kSlabBytes = size_t{16} << 20;
  static constexpr size_t kSlabAfterBytes = size_t{2} << 20;

  explicit PlatformArena(size_t chunk_bytes = kDefaultChunkBytes);
  ~PlatformArena() override;
  PlatformArena(const PlatformArena&) = delete;
  PlatformArena& operator=(const PlatformArena&) = delete;

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override;
  // Frees every chunk and starts over (bytes_needed() back to 0).
  void reset() override;

  // Bytes a MemoryAllocator over a kBufferAlignment-aligned buffer needs to
  // grant every request granted so far.
  size_t bytes_needed() const { return needed_; }
  // Heap bytes held in chunks (what this arena costs).
  size_t bytes_reserved() const { return reserved_; }
  size_t num_chunks() const { return num_chunks_; }
  // True when the platform allocator refused a chunk since the last reset.
  bool heap_failed() const { return heap_failed_; }

 private:
  struct Chunk;
  Chunk* new_chunk(size_t data_bytes);
  // `size` bytes bumped in *open, or in a new chunk of chunk_data_bytes that
  // becomes *open when they do not fit; null when the heap refuses.
  uint8_t* bump(Chunk** open, size_t chunk_data_bytes, size_t size, size_t alignment);
  // Advances the simulated buffer; false when its offsets would overflow.
  bool simulate(size_t size, size_t alignment);

  size_t chunk_bytes_;
  Chunk* chunks_ = nullptr;   // every chunk, newest first
  Chunk* current_ = nullptr;  // the chunk small requests are bumped in
  Chunk* slab_ = nullptr;     // the slab larger requests are bumped in
  size_t large_bytes_ = 0;    // bytes of the chunks of their own
  size_t needed_ = 0;
  size_t reserved_ = 0;
  size_t num_chunks_ = 0;
  bool heap_failed_ = false;
};

}  // namespace etr
