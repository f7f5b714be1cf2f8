// The XNNPACK delegate's packed-weight cache (backends/xnnpack/weight_cache.h):
// a first load writes the file, a second maps it (no packing into the
// method allocator) with outputs identical to packing and matching PyTorch,
// and a corrupted, truncated or foreign file is ignored (the weights are
// packed as without a cache) and replaced by a good one.
#include "backends/xnnpack/weight_cache.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "extension/threadpool/pthread_pool.h"
#include "runtime/platform/error_capture.h"
#include "test/support/in_process.h"
#include "test/xnnpack/payload_util.h"

namespace etr {
namespace testing {
namespace {

const BackendRegistry& xnnpack_registry() {
  static const BackendRegistry registry = [] {
    BackendRegistry r;
    EXPECT_EQ(register_xnnpack_backend(&r), Error::Ok);
    return r;
  }();
  return registry;
}

// test/models/xnnpack's `name`.pte case (20 fp32 convolutions and a linear
// layer for resnet18_small, all packed by the delegate).
FixtureCase fixture(const std::string& name) {
  for (const FixtureCase& c : load_manifest(models_dir() + "xnnpack/")) {
    if (c.pte.find("/" + name + ".pte") != std::string::npos) return c;
  }
  ADD_FAILURE() << "no " << name << " case in test/models/xnnpack/manifest.txt";
  return FixtureCase{};
}

// A scratch directory, removed with its files at destruction.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/etr_weight_cacheXXXXXX";
    const char* d = mkdtemp(tmpl);
    path_ = d != nullptr ? d : "";
  }
  ~TempDir() {
    for (const std::string& f : files()) std::remove((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  // The names of the files in it.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    FILE* ls = ::popen(("ls -1 '" + path_ + "' 2>/dev/null").c_str(), "r");
    if (ls == nullptr) return out;
    char line[512];
    while (std::fgets(line, sizeof line, ls) != nullptr) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (!s.empty()) out.push_back(s);
    }
    ::pclose(ls);
    return out;
  }

 private:
  std::string path_;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Bytes the method allocator's alignment padding may differ by between two
// loads (it depends on where the pool starts).
constexpr double kPadding = 4096;

struct RunResult {
  size_t method_bytes = 0;      // what the method allocator handed out
  std::vector<uint8_t> output;  // output 0's bytes
};

// Loads `c` with the cache in `dir` ("": none), on `pool`, runs it and checks
// its outputs against PyTorch's.
RunResult load_and_run(const FixtureCase& c, const std::string& dir, ThreadPool* pool) {
  RunResult r;
  register_all_kernels();
  MethodLoadOptions options;
  options.backends = &xnnpack_registry();
  options.thread_pool = pool;
  const BackendOption opt = BackendOption::of("weight_cache_dir", dir.c_str());
  const DelegateOptions per_backend[] = {{"XnnpackBackend", {&opt, 1}}};
  if (!dir.empty()) options.delegate_options = {per_backend, 1};
  LoadedMethod lm;
  char message[1024];
  ErrorCapture capture(message, sizeof(message));
  if (!load_fixture_method(c, &lm, &options)) {
    ADD_FAILURE() << lm.error << ": " << capture.message();
    return r;
  }
  r.method_bytes = lm.method_alloc->used();
  EXPECT_TRUE(set_fixture_inputs(c, &lm)) << lm.error;
  EXPECT_EQ(lm.method->execute(), Error::Ok) << capture.message();
  EXPECT_EQ(compare_outputs(c, *lm.method), "");
  const EValue& out = lm.method->get_output(0);
  if (out.is_tensor()) {
    const Tensor& t = out.to_tensor();
    const uint8_t* p = static_cast<const uint8_t*>(t.const_data());
    r.output.assign(p, p + t.nbytes());
  }
  return r;
}

// The one cache file in `dir`; fails the test when there is not exactly one
// file (no temporaries left behind) or it is not named <32 hex>.etrwc.
std::string only_cache_file(const TempDir& dir) {
  const std::vector<std::string> files = dir.files();
  EXPECT_EQ(files.size(), 1u);
  if (files.size() != 1) return "";
  EXPECT_EQ(files[0].size(), 32u + 6u) << files[0];
  EXPECT_NE(files[0].find(".etrwc"), std::string::npos) << files[0];
  return dir.path() + "/" + files[0];
}

TEST(XnnpackWeightCacheTest, AHitMapsThePackedWeightsAndGivesIdenticalOutputs) {
  const FixtureCase c = fixture("resnet18_small");
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const RunResult plain = load_and_run(c, "", pool.get());
  ASSERT_FALSE(plain.output.empty());
  EXPECT_TRUE(dir.files().empty());

  // A miss packs as without a cache and writes the file.
  const RunResult miss = load_and_run(c, dir.path(), pool.get());
  EXPECT_EQ(miss.output, plain.output);
  EXPECT_NEAR(double(miss.method_bytes), double(plain.method_bytes), kPadding);
  const std::string file = only_cache_file(dir);
  ASSERT_FALSE(file.empty());
  const std::vector<uint8_t> written = read_file(file);
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);

  // A hit: the packed filters come from the file, not the method allocator
  // (resnet18_small packs over 2 MB of them), and the file stays as it was.
  for (ThreadPool* p : {static_cast<ThreadPool*>(pool.get()), static_cast<ThreadPool*>(nullptr)}) {
    const RunResult hit = load_and_run(c, dir.path(), p);
    EXPECT_EQ(hit.output, plain.output);
    EXPECT_LT(hit.method_bytes + (size_t{2} << 20), plain.method_bytes)
        << "hit " << hit.method_bytes << " bytes, without the cache " << plain.method_bytes;
  }
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(read_file(file), written);
}

TEST(XnnpackWeightCacheTest, ABadFileIsIgnoredAndReplaced) {
  const FixtureCase c = fixture("resnet18_small");
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const RunResult plain = load_and_run(c, "", nullptr);
  ASSERT_FALSE(plain.output.empty());
  load_and_run(c, dir.path(), nullptr);
  const std::string file = only_cache_file(dir);
  ASSERT_FALSE(file.empty());
  const std::vector<uint8_t> good = read_file(file);
  ASSERT_GT(good.size(), size_t{1} << 20);
  const size_t hit_bytes = load_and_run(c, dir.path(), nullptr).method_bytes;
  ASSERT_LT(hit_bytes, plain.method_bytes);

  struct Damage {
    const char* what;
    std::vector<uint8_t> bytes;
    bool whole_repack;  // every filter packed again (else only the damaged one)
  };
  std::vector<Damage> damages;
  std::vector<uint8_t> b = good;
  b[good.size() / 2] ^= 0x40;  // inside a blob
  damages.push_back({"a flipped byte in a packed filter", b, false});
  b = good;
  b[20] ^= 0x01;  // the key in the header
  damages.push_back({"a flipped byte in the header", b, true});
  b = good;
  b[200] ^= 0x10;  // the entry table
  damages.push_back({"a flipped byte in the entry table", b, true});
  damages.push_back({"truncated to half",
                     std::vector<uint8_t>(good.begin(), good.begin() + good.size() / 2), true});
  damages.push_back(
      {"truncated to 10 bytes", std::vector<uint8_t>(good.begin(), good.begin() + 10), true});
  damages.push_back({"empty", {}, true});
  damages.push_back({"text", std::vector<uint8_t>(5000, 'x'), true});
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    write_file(file, d.bytes);
    const RunResult r = load_and_run(c, dir.path(), nullptr);
    EXPECT_EQ(r.output, plain.output);
    if (d.whole_repack) {
      EXPECT_NEAR(double(r.method_bytes), double(plain.method_bytes), kPadding);
    } else {
      // Only the damaged filter is packed again.
      EXPECT_LT(r.method_bytes, plain.method_bytes);
      EXPECT_GT(r.method_bytes, hit_bytes);
    }
    // The file is written anew: the same bytes as the first time.
    EXPECT_EQ(read_file(only_cache_file(dir)), good);
  }
}

// Hands out copies of another map's named data, with one byte of key
// `changed` (when set) flipped: the same program with one weight changed.
class EditedMap final : public NamedDataMap {
 public:
  explicit EditedMap(const NamedDataMap& inner) : inner_(inner) {}
  Result<FreeableBuffer> get_data(StringView key) const override {
    Result<FreeableBuffer> b = inner_.get_data(key);
    if (!b.ok()) return b.error();
    copies_.emplace_back(new std::vector<uint8_t>(b->size()));
    std::memcpy(copies_.back()->data(), b->data(), b->size());
    if (!changed.empty() && key == StringView(changed.c_str()) && b->size() > 100)
      (*copies_.back())[b->size() / 2] ^= 0x20;
    return FreeableBuffer(copies_.back()->data(), b->size());
  }
  Result<TensorLayout> get_layout(StringView key) const override { return inner_.get_layout(key); }
  size_t num_keys() const override { return inner_.num_keys(); }
  Result<const char*> key_at(size_t index) const override { return inner_.key_at(index); }
  std::string changed;

 private:
  const NamedDataMap& inner_;
  mutable std::vector<std::unique_ptr<std::vector<uint8_t>>> copies_;
};

// Inits the first delegate of `file` with `named` and the cache in `dir`;
// the method allocator's bytes afterwards (0 on failure).
size_t init_delegate(const LoadedFile& file, const NamedDataMap& named, const std::string& dir) {
  std::vector<uint8_t> payload = first_xnnpack_payload(file.bytes);
  FreeableBuffer processed(payload.data(), payload.size());
  std::vector<uint8_t> pool(size_t{64} << 20);
  MemoryAllocator alloc(pool.data(), pool.size());
  const BackendOption opt = BackendOption::of("weight_cache_dir", dir.c_str());
  BackendInitContext ctx{&alloc, &named, "forward", 0, nullptr, {&opt, 1}};
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  Result<DelegateHandle*> h = xnnpack_backend().init(ctx, &processed, {});
  if (!h.ok()) {
    ADD_FAILURE() << capture.message();
    return 0;
  }
  xnnpack_backend().destroy(*h);
  return alloc.used();
}

// A changed weight keeps the file's name (its key hashes the payload and the
// sizes) but not its blob: that layer is packed again from the new weights
// and the file rewritten, so the next load maps everything again.
TEST(XnnpackWeightCacheTest, AChangedWeightIsPackedAgain) {
  static const LoadedFile& file = load_fixture_once("xnnpack/resnet18_small.pte");
  ASSERT_NE(file.program, nullptr);
  const NamedDataMap& original = file.program->named_data();
  // The largest named buffer: a convolution filter.
  std::string largest;
  size_t largest_bytes = 0;
  for (size_t i = 0; i < original.num_keys(); ++i) {
    Result<const char*> key = original.key_at(i);
    ASSERT_TRUE(key.ok());
    Result<FreeableBuffer> b = original.get_data(StringView(*key));
    ASSERT_TRUE(b.ok());
    if (b->size() > largest_bytes) largest_bytes = b->size(), largest = *key;
  }
  ASSERT_GT(largest_bytes, size_t{100000});
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  EditedMap named(original);
  const size_t plain = init_delegate(file, named, "");
  init_delegate(file, named, dir.path());  // writes the cache
  const std::string path = only_cache_file(dir);
  ASSERT_FALSE(path.empty());
  const std::vector<uint8_t> first = read_file(path);
  const size_t hit = init_delegate(file, named, dir.path());
  ASSERT_LT(hit + largest_bytes, plain);

  named.changed = largest;
  const size_t repacked = init_delegate(file, named, dir.path());
  EXPECT_GE(repacked, hit + largest_bytes) << "the changed filter is packed again";
  EXPECT_LT(repacked, plain) << "the others still come from the file";
  EXPECT_EQ(only_cache_file(dir), path);  // same name...
  const std::vector<uint8_t> second = read_file(path);
  EXPECT_NE(second, first);  // ...new contents
  EXPECT_EQ(second.size(), first.size());
  EXPECT_NEAR(double(init_delegate(file, named, dir.path())), double(hit), kPadding);
}

TEST(XnnpackWeightCacheTest, TheEnvironmentVariableTurnsItOn) {
  const FixtureCase c = fixture("resnet18_small");
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  ASSERT_EQ(::setenv("ETR_WEIGHT_CACHE_DIR", dir.path().c_str(), 1), 0);
  register_all_kernels();
  MethodLoadOptions options;
  options.backends = &xnnpack_registry();
  LoadedMethod lm;
  const bool loaded = load_fixture_method(c, &lm, &options);
  ::unsetenv("ETR_WEIGHT_CACHE_DIR");
  ASSERT_TRUE(loaded) << lm.error;
  EXPECT_FALSE(only_cache_file(dir).empty());
}

TEST(XnnpackWeightCacheTest, TheOptionTakesAString) {
  const FixtureCase c = fixture("resnet18_small");
  register_all_kernels();
  MethodLoadOptions options;
  options.backends = &xnnpack_registry();
  const BackendOption wrong = BackendOption::of("weight_cache_dir", true);
  const DelegateOptions per_backend[] = {{"XnnpackBackend", {&wrong, 1}}};
  options.delegate_options = {per_backend, 1};
  LoadedMethod lm;
  char message[1024];
  ErrorCapture capture(message, sizeof(message));
  EXPECT_FALSE(load_fixture_method(c, &lm, &options));
  EXPECT_NE(std::string(capture.message()).find("option 'weight_cache_dir' takes a string"),
            std::string::npos)
      << capture.message();
}

TEST(XnnpackWeightCacheTest, AnUnwritableDirectoryOnlyTurnsItOff) {
  const FixtureCase c = fixture("resnet18_small");
  const RunResult plain = load_and_run(c, "", nullptr);
  const RunResult r = load_and_run(c, "/nonexistent/etr/weight/cache", nullptr);
  EXPECT_EQ(r.output, plain.output);
}

// The content hash: every byte and the split into parts count, and the
// thread count does not.
TEST(XnnpackWeightCacheTest, TheHashSeesEveryByteAndNotTheThreads) {
  std::vector<uint8_t> data((size_t{3} << 20) + 77);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 131 + (i >> 9));
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  const xnnpack::ByteRange whole{data.data(), data.size()};
  const xnnpack::CacheKey base =
      xnnpack::hash_parts(Span<const xnnpack::ByteRange>(&whole, 1), nullptr);
  EXPECT_TRUE(xnnpack::hash_parts(Span<const xnnpack::ByteRange>(&whole, 1), pool.get()) == base);
  for (size_t at : {size_t{0}, size_t{31}, size_t{1} << 20, data.size() - 1}) {
    data[at] ^= 1;
    EXPECT_FALSE(xnnpack::hash_parts(Span<const xnnpack::ByteRange>(&whole, 1), nullptr) == base)
        << "byte " << at;
    data[at] ^= 1;
  }
  const xnnpack::ByteRange split[2] = {{data.data(), 1000},
                                       {data.data() + 1000, data.size() - 1000}};
  EXPECT_FALSE(xnnpack::hash_parts(Span<const xnnpack::ByteRange>(split, 2), nullptr) == base);
}

// Writes `bytes` bytes to dir/name with modification time `mtime`.
void make_file(const std::string& dir, const std::string& name, size_t bytes, time_t mtime) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
  const timespec times[2] = {{mtime, 0}, {mtime, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// The directory stays within its budget: the least recently used cache files
// go first, never the one just written, other files and fresh temporaries
// stay, stale temporaries go; no budget removes no cache file.
TEST(XnnpackWeightCacheTest, PruningKeepsTheDirectoryWithinItsBudget) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const time_t now = 1800000000;
  make_file(dir.path(), "a.etrwc", 4000, now - 500);  // oldest
  make_file(dir.path(), "b.etrwc", 3000, now - 400);
  make_file(dir.path(), "c.etrwc", 2000, now - 300);
  make_file(dir.path(), "new.etrwc", 5000, now - 900);  // just written: kept although older
  make_file(dir.path(), "notes.txt", 9000, now - 1000);
  make_file(dir.path(), "c.etrwc.tmp.77.0", 100, now - 7200);  // a dead writer's
  make_file(dir.path(), "c.etrwc.tmp.78.0", 100, now - 60);    // a live writer's
  const std::string keep = dir.path() + "/new.etrwc";

  EXPECT_EQ(xnnpack::prune_weight_cache_dir(dir.path(), keep, 0, now), 1u);  // no limit
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"a.etrwc", "b.etrwc", "c.etrwc",
                                                   "c.etrwc.tmp.78.0", "new.etrwc", "notes.txt"}));
  // 14000 bytes of cache files; a 10000-byte budget removes a (oldest), then fits.
  EXPECT_EQ(xnnpack::prune_weight_cache_dir(dir.path(), keep, 10000, now), 1u);
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"b.etrwc", "c.etrwc", "c.etrwc.tmp.78.0",
                                                   "new.etrwc", "notes.txt"}));
  // A budget below the kept file alone removes every other cache file.
  EXPECT_EQ(xnnpack::prune_weight_cache_dir(dir.path(), keep, 100, now), 2u);
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"c.etrwc.tmp.78.0", "new.etrwc", "notes.txt"}));
  EXPECT_EQ(xnnpack::prune_weight_cache_dir(dir.path() + "/missing", keep, 100, now), 0u);
}

TEST(XnnpackWeightCacheTest, TheBudgetComesFromTheEnvironment) {
  const char* old = std::getenv("ETR_WEIGHT_CACHE_MAX_MB");
  const std::string saved = old != nullptr ? old : "";
  ::unsetenv("ETR_WEIGHT_CACHE_MAX_MB");
  EXPECT_EQ(xnnpack::weight_cache_budget_bytes(), uint64_t{2048} << 20);
  ::setenv("ETR_WEIGHT_CACHE_MAX_MB", "3", 1);
  EXPECT_EQ(xnnpack::weight_cache_budget_bytes(), uint64_t{3} << 20);
  ::setenv("ETR_WEIGHT_CACHE_MAX_MB", "0", 1);
  EXPECT_EQ(xnnpack::weight_cache_budget_bytes(), 0u);
  ::setenv("ETR_WEIGHT_CACHE_MAX_MB", "12x", 1);
  EXPECT_EQ(xnnpack::weight_cache_budget_bytes(), uint64_t{2048} << 20);
  if (old != nullptr) {
    ::setenv("ETR_WEIGHT_CACHE_MAX_MB", saved.c_str(), 1);
  } else {
    ::unsetenv("ETR_WEIGHT_CACHE_MAX_MB");
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
