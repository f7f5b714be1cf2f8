// The XNNPACK delegate's packed-weight cache on disk (opt-in): the weights
// its native nodes pack at init (the GEMM's B panels of fp32 convolutions
// and linear layers), kept in one file per delegate so that a later load of
// the same program maps them instead of packing again.
//
// Turned on by the directory in the load option "weight_cache_dir"
// (--backend_option=XnnpackBackend:weight_cache_dir=DIR) or, without it, in
// the environment variable ETR_WEIGHT_CACHE_DIR. The file is DIR/<key>.etrwc
// with <key> a 128-bit hash of the delegate's payload (its nodes, the
// named-data keys), the sizes of its named-data buffers and its options.
// Every blob also records the content hash of the weights it was packed
// from and of itself, and the header the format's version and the packed
// layout (GEMM tile widths, CPU features), so a changed model, build or
// machine never uses another's packing. The weights are hashed layer by
// layer as init reaches them, so a hit holds one layer's source at a time,
// as packing does.
//
// A file whose header or entry table does not check out is ignored with an
// Info log line naming the reason; a blob whose hashes do not match is
// skipped the same way. Either way those weights are packed as without a
// cache and the file is written anew (with every blob, reused or packed).
// Files are written to a temporary name and renamed into place, so a reader
// sees either no file or a whole one, and a file in use is never rewritten
// in place. (As with any mapping, truncating a mapped file by other means
// makes the next touch of a lost page raise SIGBUS.) After each write the
// directory is kept within ETR_WEIGHT_CACHE_MAX_MB (2048 MiB by default),
// removing the least recently used cache files first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/span.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace xnnpack {

// A 128-bit content hash.
struct CacheKey {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const CacheKey& o) const { return lo == o.lo && hi == o.hi; }
};

// One byte range to hash.
struct ByteRange {
  const void* data;
  size_t size;
};

// The content hash of `parts` in order (each part's size included, so
// moving bytes between parts changes it); the parts are hashed on `pool`.
CacheKey hash_parts(Span<const ByteRange> parts, ThreadPool* pool);

class WeightCache {
 public:
  // Opens DIR/<key>.etrwc for delegate `delegate` (for log lines). A
  // missing, unreadable or invalid file gives a cache that misses every
  // lookup and records what init packs (write()). Null only when out of memory.
  static std::unique_ptr<WeightCache> open(const std::string& dir, CacheKey key, size_t delegate,
                                           ThreadPool* pool);
  ~WeightCache();
  WeightCache(const WeightCache&) = delete;
  WeightCache& operator=(const WeightCache&) = delete;

  // The blob cached for input `slot` of node `node` when the file has one
  // of exactly `bytes`, packed from weights whose hash is `source`, and its
  // own hash checks out (64-byte aligned, read-only, valid while this cache
  // lives); null otherwise (logged when the entry is there but stale or
  // corrupted). A found blob is added to what write() writes.
  const void* find(uint32_t node, uint32_t slot, size_t bytes, CacheKey source, ThreadPool* pool);

  // Remembers `bytes` at `data` (which must stay valid until write()),
  // packed from weights whose hash is `source`, as the blob of input `slot`
  // of node `node`, and that the file must be written.
  void add(uint32_t node, uint32_t slot, const void* data, size_t bytes, CacheKey source);

  // When a blob was added (not all found): writes the file with every blob
  // found or added (temporary name, then rename). Failure is logged and
  // otherwise ignored.
  void write(ThreadPool* pool) const;

  // True while the file's blobs may be in use: it was valid and mapped.
  bool mapped() const { return map_ != nullptr; }

  // The file's path (for log lines and tests).
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    uint32_t node;
    uint32_t slot;
    uint64_t offset;  // from the start of the data section
    uint64_t bytes;
    uint64_t source_lo, source_hi;  // hash of the weights it was packed from
    uint64_t blob_lo, blob_hi;      // hash of the blob
  };
  struct Pending {
    uint32_t node;
    uint32_t slot;
    const void* data;
    size_t bytes;
    CacheKey source;
  };
  WeightCache(std::string path, CacheKey key, size_t delegate)
      : path_(std::move(path)), key_(key), delegate_(delegate) {}
  // Maps and validates path_; on failure logs why and leaves the cache empty.
  void load(ThreadPool* pool);

  std::string path_;
  CacheKey key_;
  size_t delegate_;
  // A valid file, mapped: its entries and the start of its data section.
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  const Entry* entries_ = nullptr;
  size_t num_entries_ = 0;
  const uint8_t* data_ = nullptr;
  std::vector<Pending> pending_;
  bool dirty_ = false;  // a blob was added: write() writes
};

// The directory the cache is turned on with: the load option's value when
// given (may be empty: off), else ETR_WEIGHT_CACHE_DIR, else empty (off).
std::string weight_cache_dir(const char* option_value);

// The directory's size limit in bytes: ETR_WEIGHT_CACHE_MAX_MB (MiB; 0: no
// limit), 2048 MiB when unset or not a number.
uint64_t weight_cache_budget_bytes();

// Keeps `dir` within `budget_bytes` (0: no limit) after a write: removes
// the *.etrwc files other than `keep`, least recently written or mapped
// first, until the complete cache files total at most the budget, and
// temporary files (*.etrwc.tmp.*) older than an hour, left by writers that
// died. `now` is the current time in seconds (time()). Returns how many
// files it removed; other files and subdirectories are never touched.
size_t prune_weight_cache_dir(const std::string& dir, const std::string& keep,
                              uint64_t budget_bytes, int64_t now);

}  // namespace xnnpack
}  // namespace etr
