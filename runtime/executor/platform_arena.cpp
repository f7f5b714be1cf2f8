#include "runtime/executor/platform_arena.h"

#include "runtime/core/checked_math.h"
#include "runtime/platform/platform.h"

namespace etr {

// Chunk header; the chunk's data starts kHeaderBytes after it, so data is
// aligned like the chunk (kBufferAlignment).
struct PlatformArena::Chunk {
  Chunk* next;
  size_t size;  // data bytes
  size_t used;  // data bytes handed out (with padding)
};

namespace {
constexpr size_t kHeaderBytes = PlatformArena::kBufferAlignment;
static_assert(sizeof(void*) * 3 <= kHeaderBytes, "chunk header must fit its slot");

uint8_t* data_of(void* chunk) { return static_cast<uint8_t*>(chunk) + kHeaderBytes; }
}  // namespace

PlatformArena::PlatformArena(size_t chunk_bytes)
    : MemoryAllocator(nullptr, 0), chunk_bytes_(chunk_bytes < 1024 ? 1024 : chunk_bytes) {}

PlatformArena::~PlatformArena() { reset(); }

void PlatformArena::reset() {
  while (chunks_ != nullptr) {
    Chunk* next = chunks_->next;
    platform_deallocate(chunks_);
    chunks_ = next;
  }
  current_ = nullptr;
  slab_ = nullptr;
  large_bytes_ = 0;
  needed_ = 0;
  reserved_ = 0;
  num_chunks_ = 0;
  heap_failed_ = false;
}

PlatformArena::Chunk* PlatformArena::new_chunk(size_t data_bytes) {
  size_t total = 0;
  if (!checked_add(data_bytes, kHeaderBytes, &total)) return nullptr;
  void* p = platform_allocate(total, kBufferAlignment);
  if (p == nullptr) {
    heap_failed_ = true;
    return nullptr;
  }
  Chunk* c = static_cast<Chunk*>(p);
  c->next = chunks_;
  c->size = data_bytes;
  c->used = 0;
  chunks_ = c;
  reserved_ += total;
  ++num_chunks_;
  return c;
}

bool PlatformArena::simulate(size_t size, size_t alignment) {
  // The simulated buffer starts kBufferAlignment-aligned: up to that
  // alignment the padding is exactly MemoryAllocator's; beyond it the worst case.
  const size_t a = alignment < kBufferAlignment ? alignment : kBufferAlignment;
  size_t start = 0;
  if (!checked_add(needed_, a - 1, &start)) return false;
  start &= ~(a - 1);
  if (alignment > kBufferAlignment && !checked_add(start, alignment - a, &start)) return false;
  size_t end = 0;
  if (!checked_add(start, size, &end)) return false;
  needed_ = end;
  return true;
}

uint8_t* PlatformArena::bump(Chunk** open, size_t chunk_data_bytes, size_t size, size_t alignment) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (*open != nullptr) {
      Chunk* c = *open;
      const uintptr_t base = reinterpret_cast<uintptr_t>(data_of(c));
      const uintptr_t at = (base + c->used + alignment - 1) & ~(uintptr_t{alignment} - 1);
      const size_t off = static_cast<size_t>(at - base);
      if (off <= c->size && size <= c->size - off) {
        c->used = off + size;
        return reinterpret_cast<uint8_t*>(at);
      }
    }
    *open = new_chunk(chunk_data_bytes);
    if (*open == nullptr) return nullptr;
  }
  return nullptr;
}

void* PlatformArena::allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  size_t worst = 0;  // bytes of a chunk that surely hold the request
  if (!checked_add(size, alignment - 1, &worst)) return nullptr;
  uint8_t* out = nullptr;
  if (worst > chunk_bytes_ / 4 && worst <= kSlabBytes / 4 && large_bytes_ >= kSlabAfterBytes) {
    out = bump(&slab_, kSlabBytes - kHeaderBytes, size, alignment);
    if (out == nullptr) return nullptr;
  } else if (worst > chunk_bytes_ / 4) {
    Chunk* c = new_chunk(worst);
    if (c == nullptr) return nullptr;
    const uintptr_t base = reinterpret_cast<uintptr_t>(data_of(c));
    out = reinterpret_cast<uint8_t*>((base + alignment - 1) & ~(uintptr_t{alignment} - 1));
    c->used = c->size;
    large_bytes_ += worst;
  } else {
    out = bump(&current_, chunk_bytes_, size, alignment);
    if (out == nullptr) return nullptr;
  }
  if (out == nullptr || !simulate(size, alignment)) return nullptr;
  return out;
}

}  // namespace etr
