// libFuzzer harness for the XNNPACK delegate's packed-weight cache reader: the
// input is written as a cache file (DIR/<key>.etrwc) and opened as init
// opens it (map, header, table, blob bounds), then looked up for a few
// (node, slot, size, source) entries, some taken from the input itself so
// the table's own entries are reached.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/xnnpack/weight_cache.h"

namespace {

// One directory per process; every input is written under the same key.
const std::string& cache_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/etr_weight_cache_fuzzXXXXXX";
    const char* d = mkdtemp(tmpl);
    if (d == nullptr) std::abort();
    return std::string(d);
  }();
  return dir;
}

uint32_t read_u32(const uint8_t* data, size_t size, size_t at) {
  uint32_t v = 0;
  if (at + sizeof v <= size) std::memcpy(&v, data + at, sizeof v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using etr::xnnpack::CacheKey;
  using etr::xnnpack::WeightCache;
  const CacheKey key{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  // The path the cache opens for this key: a first open names it.
  std::unique_ptr<WeightCache> probe = WeightCache::open(cache_dir(), key, 0, nullptr);
  if (probe == nullptr) return 0;
  const std::string path = probe->path();
  probe.reset();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!written) return 0;

  std::unique_ptr<WeightCache> cache = WeightCache::open(cache_dir(), key, 0, nullptr);
  if (cache == nullptr) return 0;
  for (uint32_t i = 0; i < 4; ++i) {
    // Node, slot and size from the input's later bytes (a table entry's
    // fields where the input is a real file), and the plain ones.
    const size_t at = 64 + 56 * i;
    const uint32_t node = read_u32(data, size, at);
    const uint32_t slot = read_u32(data, size, at + 4);
    const uint32_t bytes = read_u32(data, size, at + 16);
    const CacheKey source{read_u32(data, size, at + 24), read_u32(data, size, at + 32)};
    (void)cache->find(node, slot, bytes, source, nullptr);
    (void)cache->find(i, 1, 64, source, nullptr);
  }
  return 0;
}
