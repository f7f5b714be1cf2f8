#include "backends/xnnpack/weight_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm_internal.h"
#include "runtime/core/checked_math.h"
#include "runtime/platform/log.h"

namespace etr {
namespace xnnpack {
namespace {

// Bump when the file layout or what a blob holds changes.
constexpr uint32_t kVersion = 1;
constexpr char kMagic[8] = {'E', 'T', 'R', 'W', 'C', 'A', 'C', 'H'};
constexpr size_t kBlobAlign = 64;
constexpr size_t kDataAlign = 4096;
// The hash splits every part into pieces of this many bytes (hashed on the
// pool), so a big buffer spreads across threads; the result does not depend
// on the thread count.
constexpr size_t kPiece = size_t{1} << 20;
// The directory's size limit without ETR_WEIGHT_CACHE_MAX_MB, and the age
// after which a temporary file of a writer that never renamed it goes.
constexpr uint64_t kDefaultCacheBudgetMb = 2048;
constexpr int64_t kStaleTempSeconds = 3600;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // sizeof(Header)
  uint64_t key_lo, key_hi;
  uint64_t layout;       // layout_id()
  uint64_t num_entries;  // entries follow the header
  uint64_t data_offset;  // kDataAlign-aligned start of the blobs
  uint64_t data_bytes;
  uint64_t file_bytes;
  // Hash of this header (with these two fields zero) and the entries
  // (hash_parts, in that order); each blob has its own in its entry.
  uint64_t digest_lo, digest_hi;
};

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t step(uint64_t acc, uint64_t w) { return rotl(acc + w * kP2, 31) * kP1; }
// Spreads every input bit over the output (a 64-bit finalizer).
inline uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

// A 128-bit hash of `size` bytes: four independent multiply-rotate lanes
// over 32-byte blocks, then mixed into two words.
CacheKey hash_bytes(const uint8_t* p, size_t size, uint64_t seed) {
  uint64_t v0 = seed + kP1 + kP2, v1 = seed + kP2, v2 = seed, v3 = seed - kP1;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, sizeof w);
    v0 = step(v0, w[0]);
    v1 = step(v1, w[1]);
    v2 = step(v2, w[2]);
    v3 = step(v3, w[3]);
  }
  if (i < size) {
    uint64_t w[4] = {0, 0, 0, 0};
    std::memcpy(w, p + i, size - i);
    v0 = step(v0, w[0]);
    v1 = step(v1, w[1]);
    v2 = step(v2, w[2]);
    v3 = step(v3, w[3]);
  }
  const uint64_t n = static_cast<uint64_t>(size) * kP3;
  CacheKey k;
  k.lo = avalanche(rotl(v0, 1) + rotl(v1, 7) + rotl(v2, 12) + rotl(v3, 18) + n);
  k.hi = avalanche((v0 ^ rotl(v2, 17)) + (v1 ^ rotl(v3, 29)) + (n ^ kP1));
  return k;
}

// The packed layout a cache file holds: the GEMM's panel widths and the
// CPU features the kernels were chosen by.
uint64_t layout_id() {
  const opt::CpuFeatures& f = opt::cpu_features();
  uint64_t id = static_cast<uint64_t>(opt::internal::kGemmNr) |
                static_cast<uint64_t>(opt::internal::kGemmMr) << 8 | uint64_t{sizeof(float)} << 16;
  id |= uint64_t{f.avx2_fma} << 24 | uint64_t{f.avx512f} << 25 | uint64_t{f.f16c} << 26 |
        uint64_t{f.neon} << 27;
  return id;
}

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

std::string hex(CacheKey k) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[15 - i] = kDigits[(k.hi >> (4 * i)) & 15];
    s[31 - i] = kDigits[(k.lo >> (4 * i)) & 15];
  }
  return s;
}

bool write_all(int fd, const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (size != 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    size -= static_cast<size_t>(w);
  }
  return true;
}

bool write_zeros(int fd, size_t size) {
  static const uint8_t kZeros[4096] = {};
  while (size != 0) {
    const size_t n = size < sizeof kZeros ? size : sizeof kZeros;
    if (!write_all(fd, kZeros, n)) return false;
    size -= n;
  }
  return true;
}

}  // namespace

CacheKey hash_parts(Span<const ByteRange> parts, ThreadPool* pool) {
  // Pieces of every part, in order: (part, offset within it).
  struct Piece {
    size_t part;
    size_t offset;
  };
  std::vector<Piece> pieces;
  std::vector<size_t> first(parts.size() + 1, 0);
  for (size_t i = 0; i < parts.size(); ++i) {
    first[i] = pieces.size();
    size_t off = 0;
    do {
      pieces.push_back(Piece{i, off});
      off += kPiece;
    } while (off < parts[i].size);
  }
  first[parts.size()] = pieces.size();
  std::vector<CacheKey> piece_keys(pieces.size());
  parallel_for(pool, pieces.size(), 1, [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j) {
      const ByteRange& r = parts[pieces[j].part];
      const size_t off = pieces[j].offset;
      const size_t n = r.size - off < kPiece ? r.size - off : kPiece;
      piece_keys[j] = hash_bytes(static_cast<const uint8_t*>(r.data) + off, n, off / kPiece);
    }
  });
  // Each part: the hash of its pieces' hashes and its size; the whole: the
  // hash of the parts' hashes.
  std::vector<CacheKey> part_keys(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    const size_t count = first[i + 1] - first[i];
    part_keys[i] = hash_bytes(reinterpret_cast<const uint8_t*>(&piece_keys[first[i]]),
                              count * sizeof(CacheKey), parts[i].size);
  }
  return hash_bytes(reinterpret_cast<const uint8_t*>(part_keys.data()),
                    part_keys.size() * sizeof(CacheKey), parts.size());
}

std::string weight_cache_dir(const char* option_value) {
  if (option_value != nullptr) return option_value;
  const char* env = std::getenv("ETR_WEIGHT_CACHE_DIR");
  return env != nullptr ? env : "";
}

std::unique_ptr<WeightCache> WeightCache::open(const std::string& dir, CacheKey key,
                                               size_t delegate, ThreadPool* pool) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path += '/';
  path += hex(key) + ".etrwc";
  std::unique_ptr<WeightCache> c(new (std::nothrow) WeightCache(std::move(path), key, delegate));
  if (c != nullptr) c->load(pool);
  return c;
}

WeightCache::~WeightCache() {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
}

void WeightCache::load(ThreadPool* pool) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache %s: %s (packing, then writing it)",
            delegate_, path_.c_str(), errno == ENOENT ? "no such file yet" : std::strerror(errno));
    return;
  }
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const size_t size = regular ? static_cast<size_t>(st.st_size) : 0;
  void* m =
      size >= sizeof(Header) ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  ::close(fd);
  const char* why = nullptr;
  if (!regular) {
    why = "not a regular file";
  } else if (m == MAP_FAILED) {
    why = size < sizeof(Header) ? "truncated (shorter than its header)" : "cannot be mapped";
  }
  if (why != nullptr) {
    ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache %s ignored: %s", delegate_,
            path_.c_str(), why);
    return;
  }
  const uint8_t* base = static_cast<const uint8_t*>(m);
  Header h;
  std::memcpy(&h, base, sizeof h);
  size_t table_end = 0, table_bytes = 0;
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    why = "not a weight cache file (bad magic)";
  } else if (h.version != kVersion || h.header_bytes != sizeof(Header)) {
    why = "written by another version";
  } else if (h.key_lo != key_.lo || h.key_hi != key_.hi) {
    why = "its key does not match its name";
  } else if (h.layout != layout_id()) {
    why = "packed for another layout or CPU";
  } else if (h.file_bytes != size) {
    why = "truncated or extended (size differs from its header)";
  } else if (!checked_mul(static_cast<size_t>(h.num_entries), sizeof(Entry), &table_bytes) ||
             !checked_add(sizeof(Header), table_bytes, &table_end) || table_end > h.data_offset ||
             h.data_offset % kDataAlign != 0 || h.data_offset > size ||
             h.data_bytes != size - h.data_offset) {
    why = "inconsistent sizes in its header";
  }
  const Entry* entries = reinterpret_cast<const Entry*>(base + sizeof(Header));
  for (size_t i = 0; why == nullptr && i < h.num_entries; ++i) {
    const Entry& e = entries[i];
    if (e.offset % kBlobAlign != 0 || e.offset > h.data_bytes || e.bytes > h.data_bytes - e.offset)
      why = "an entry lies outside the data";
  }
  if (why == nullptr) {
    Header zeroed = h;
    zeroed.digest_lo = zeroed.digest_hi = 0;
    const ByteRange parts[2] = {{&zeroed, sizeof zeroed}, {entries, table_bytes}};
    const CacheKey digest = hash_parts(Span<const ByteRange>(parts, 2), pool);
    if (digest.lo != h.digest_lo || digest.hi != h.digest_hi)
      why = "corrupted header or entry table (hash mismatch)";
  }
  if (why != nullptr) {
    ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache %s ignored: %s", delegate_,
            path_.c_str(), why);
    ::munmap(m, size);
    return;
  }
  map_ = m;
  // A use counts as recent for prune_weight_cache_dir (oldest first).
  (void)::utimensat(AT_FDCWD, path_.c_str(), nullptr, 0);
  map_bytes_ = size;
  entries_ = entries;
  num_entries_ = static_cast<size_t>(h.num_entries);
  data_ = base + h.data_offset;
  ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache %s: %zu packed blobs mapped", delegate_,
          path_.c_str(), num_entries_);
}

const void* WeightCache::find(uint32_t node, uint32_t slot, size_t bytes, CacheKey source,
                              ThreadPool* pool) {
  for (size_t i = 0; i < num_entries_; ++i) {
    const Entry& e = entries_[i];
    if (e.node != node || e.slot != slot) continue;
    const char* why = nullptr;
    if (e.bytes != bytes) {
      why = "a blob of another size";
    } else if (e.source_lo != source.lo || e.source_hi != source.hi) {
      why = "packed from other weights";
    } else {
      const ByteRange blob{data_ + e.offset, bytes};
      const CacheKey h = hash_parts(Span<const ByteRange>(&blob, 1), pool);
      if (h.lo != e.blob_lo || h.hi != e.blob_hi) why = "a corrupted blob (hash mismatch)";
    }
    if (why != nullptr) {
      ETR_LOG(Info,
              "XnnpackBackend: delegate %zu: weight cache %s: node %u input %u ignored: %s "
              "(packing it)",
              delegate_, path_.c_str(), node, slot, why);
      return nullptr;
    }
    pending_.push_back(Pending{node, slot, data_ + e.offset, bytes, source});
    return data_ + e.offset;
  }
  return nullptr;
}

void WeightCache::add(uint32_t node, uint32_t slot, const void* data, size_t bytes,
                      CacheKey source) {
  pending_.push_back(Pending{node, slot, data, bytes, source});
  dirty_ = true;
}

void WeightCache::write(ThreadPool* pool) const {
  if (!dirty_ || pending_.empty()) return;
  std::vector<Entry> entries(pending_.size());
  size_t data_bytes = 0;
  for (size_t i = 0; i < pending_.size(); ++i) {
    const Pending& p = pending_[i];
    data_bytes = round_up(data_bytes, kBlobAlign);
    const ByteRange blob{p.data, p.bytes};
    const CacheKey h = hash_parts(Span<const ByteRange>(&blob, 1), pool);
    entries[i] = Entry{p.node, p.slot, data_bytes, p.bytes, p.source.lo, p.source.hi, h.lo, h.hi};
    data_bytes += p.bytes;
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.header_bytes = sizeof(Header);
  h.key_lo = key_.lo;
  h.key_hi = key_.hi;
  h.layout = layout_id();
  h.num_entries = entries.size();
  h.data_offset = round_up(sizeof(Header) + entries.size() * sizeof(Entry), kDataAlign);
  h.data_bytes = data_bytes;
  h.file_bytes = h.data_offset + data_bytes;
  const ByteRange parts[2] = {{&h, sizeof h}, {entries.data(), entries.size() * sizeof(Entry)}};
  const CacheKey digest = hash_parts(Span<const ByteRange>(parts, 2), pool);
  h.digest_lo = digest.lo;
  h.digest_hi = digest.hi;

  // Unique per process and call, so concurrent writers never share one.
  static std::atomic<unsigned> serial{0};
  const std::string tmp = path_ + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(serial.fetch_add(1, std::memory_order_relaxed));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  const int open_errno = errno;
  size_t at = 0;
  if (ok) ok = write_all(fd, &h, sizeof h) && write_all(fd, entries.data(), parts[1].size);
  at = sizeof h + parts[1].size;
  if (ok) ok = write_zeros(fd, h.data_offset - at);
  at = 0;
  for (size_t i = 0; ok && i < pending_.size(); ++i) {
    ok = write_zeros(fd, entries[i].offset - at) &&
         write_all(fd, pending_[i].data, pending_[i].bytes);
    at = entries[i].offset + pending_[i].bytes;
  }
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (ok && ::rename(tmp.c_str(), path_.c_str()) != 0) ok = false;
  if (!ok) {
    ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache %s not written: %s", delegate_,
            path_.c_str(), std::strerror(fd < 0 ? open_errno : errno));
    if (fd >= 0) ::unlink(tmp.c_str());
    return;
  }
  ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache %s written (%zu blobs, %zu bytes)",
          delegate_, path_.c_str(), pending_.size(), static_cast<size_t>(h.file_bytes));
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const size_t removed =
      prune_weight_cache_dir(dir, path_, weight_cache_budget_bytes(), ::time(nullptr));
  if (removed > 0) {
    ETR_LOG(Info, "XnnpackBackend: delegate %zu: weight cache directory %s: %zu old files removed",
            delegate_, dir.c_str(), removed);
  }
}

uint64_t weight_cache_budget_bytes() {
  const char* env = std::getenv("ETR_WEIGHT_CACHE_MAX_MB");
  uint64_t mb = kDefaultCacheBudgetMb;
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end != nullptr && *end == '\0') mb = v;
  }
  // 0 means no limit; the product cannot overflow below 2^44 MiB.
  if (mb == 0 || mb >= (uint64_t{1} << 44)) return 0;
  return mb << 20;
}

size_t prune_weight_cache_dir(const std::string& dir, const std::string& keep,
                              uint64_t budget_bytes, int64_t now) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  std::string base = dir;
  if (!base.empty() && base.back() != '/') base += '/';
  struct File {
    std::string path;
    uint64_t bytes;
    int64_t mtime;
  };
  std::vector<File> caches;
  size_t removed = 0;
  uint64_t total = 0;
  constexpr char kExt[] = ".etrwc";
  constexpr size_t kExtLen = sizeof kExt - 1;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const size_t ext = name.find(kExt);
    if (ext == std::string::npos || ext == 0) continue;
    const std::string path = base + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const bool complete = ext + kExtLen == name.size();
    const bool temporary = name.compare(ext + kExtLen, 5, ".tmp.") == 0;
    if (temporary) {
      // A writer that died before its rename; a live one finishes in well under an hour.
      if (now - static_cast<int64_t>(st.st_mtime) > kStaleTempSeconds &&
          ::unlink(path.c_str()) == 0) {
        ++removed;
      }
      continue;
    }
    if (!complete) continue;
    total += static_cast<uint64_t>(st.st_size);
    if (path != keep) {
      caches.push_back(
          File{path, static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtime)});
    }
  }
  ::closedir(d);
  if (budget_bytes == 0 || total <= budget_bytes) return removed;
  // Oldest (least recently written or mapped) first; a process that still
  // maps a removed file keeps its pages until it unmaps them.
  std::sort(caches.begin(), caches.end(),
            [](const File& a, const File& b) { return a.mtime < b.mtime; });
  for (const File& f : caches) {
    if (total <= budget_bytes) break;
    if (::unlink(f.path.c_str()) == 0) {
      total -= f.bytes;
      ++removed;
    }
  }
  return removed;
}

}  // namespace xnnpack
}  // namespace etr
