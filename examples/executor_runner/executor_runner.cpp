// executor_runner: loads an ExecuTorch .pte program, runs one method on
// .npy inputs (or ones), prints a summary of each output and optionally
// writes the outputs as .npy files. Run with --help for the flags.
//
// On failure it prints exactly one line on stderr,
//   executor_runner: error: <what failed>: <ErrorName> (<detail>)
// where <detail> is the first Error-level message the runtime logged, and
// exits with a code from 1 to 7 (see runner_io.h).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#if defined(ETR_HAVE_VULKAN)
#include "backends/vulkan/vulkan_backend.h"
#endif
#include "devtools/etdump/etdump_observer.h"
#include "devtools/etdump/etdump_writer.h"
#include "examples/executor_runner/inspect.h"
#include "examples/executor_runner/profile_trace.h"
#include "examples/executor_runner/runner_io.h"
#include "extension/bundled_program/bundled_program.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "extension/data_loader/file_data_loader.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "extension/memory/method_memory.h"
#include "extension/module/module.h"
#include "extension/threadpool/pthread_pool.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace runner {
namespace {

constexpr size_t kTempPool = size_t{16} << 20;  // 16 MiB

// All memory a loaded method uses: planned buffers, a method allocator that
// grows as the load asks, the temp allocator (MethodMemory), and the buffers
// bound to outputs the program did not plan. Never moves once set up, since
// the method keeps pointers into it.
struct LoadedMemory {
  std::unique_ptr<MethodMemory> memory;
  std::vector<std::unique_ptr<uint8_t[]>> output_buffers;
};

// The .ptd files given with --data_path, open for as long as the method runs.
struct ExternalData {
  std::vector<std::unique_ptr<DataLoader>> loaders;
  std::vector<std::unique_ptr<FlatTensorDataMap>> maps;
  std::vector<const NamedDataMap*> views;
};

// A loader for `path`: MmapDataLoader with `mmap`, else FileDataLoader (null
// and the error in *err when the file cannot be opened).
std::unique_ptr<DataLoader> open_loader(const std::string& path, bool mmap, Error* err) {
  if (mmap) {
    Result<MmapDataLoader> m = MmapDataLoader::from(path.c_str());
    if (!m.ok()) return *err = m.error(), nullptr;
    return std::make_unique<MmapDataLoader>(std::move(*m));
  }
  Result<FileDataLoader> f = FileDataLoader::from(path.c_str());
  if (!f.ok()) return *err = f.error(), nullptr;
  return std::make_unique<FileDataLoader>(std::move(*f));
}

int load_external_data(const std::vector<std::string>& paths, bool mmap, ExternalData* data) {
  for (const std::string& path : paths) {
    reset_first_error();
    Error err = Error::Ok;
    std::unique_ptr<DataLoader> loader = open_loader(path, mmap, &err);
    if (loader == nullptr) return fail(kExitProgramLoad, "cannot open '" + path + "'", err);
    data->loaders.push_back(std::move(loader));
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(data->loaders.back().get());
    if (!map.ok()) {
      return fail(kExitProgramLoad, "cannot load external data '" + path + "'", map.error());
    }
    data->maps.push_back(std::make_unique<FlatTensorDataMap>(std::move(*map)));
    data->views.push_back(data->maps.back().get());
  }
  return kExitOk;
}

int register_all_kernels() {
  reset_first_error();
  Error err = register_builtins();
#if defined(ETR_HAVE_VULKAN)
  if (err == Error::Ok && find_backend("VulkanBackend") == nullptr) err = register_vulkan_backend();
#endif
  if (err != Error::Ok) return fail(kExitSetup, "cannot register kernels and backends", err);
  return kExitOk;
}

int list_operators() {
  const int rc = register_all_kernels();
  if (rc != kExitOk) return rc;
  // One line per kernel: operator, library, dtypes; sorted by operator name,
  // then by library priority (highest first: the order the loader tries).
  std::vector<std::pair<std::string, std::string>> lines;
  size_t rank = 0;
  default_kernel_registry().for_each([&](const KernelEntry& e, const KernelLibrary& lib) {
    char dtypes[256];
    char order[16];
    std::snprintf(order, sizeof(order), "%08zu", rank++);
    lines.emplace_back(std::string(e.name) + '\t' + order,
                       std::string(e.name) + '\t' + lib.name + '\t' +
                           format_dtypes(e.dtypes, dtypes, sizeof(dtypes)) +
                           (e.prepare != nullptr ? "\tprepare" : ""));
  });
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) std::printf("%s\n", l.second.c_str());
  return kExitOk;
}

// "forward" when the program has it, else the first method.
int choose_method(const Program& program, const Options& options, std::string* name) {
  if (!options.method.empty()) {
    *name = options.method;
    return kExitOk;
  }
  for (size_t i = 0; i < program.num_methods(); ++i) {
    Result<const char*> n = program.get_method_name(i);
    if (n.ok() && std::string(*n) == "forward") {
      *name = "forward";
      return kExitOk;
    }
  }
  reset_first_error();
  Result<const char*> first = program.get_method_name(0);
  if (!first.ok()) return fail(kExitMethodLoad, "program has no method to run", first.error());
  *name = *first;
  return kExitOk;
}

int allocate_planned(const MethodMeta& meta, LoadedMemory* mem) {
  reset_first_error();
  MethodMemoryOptions options;
  options.temp_bytes = kTempPool;
  Result<std::unique_ptr<MethodMemory>> memory = MethodMemory::create(meta, options);
  if (!memory.ok()) {
    return fail(kExitMethodLoad,
                "cannot allocate the memory of method '" + std::string(meta.name()) + "'",
                memory.error());
  }
  mem->memory = std::move(*memory);
  return kExitOk;
}

// --backend_option values as MethodLoadOptions::delegate_options (the
// strings they point into live here, for the whole run).
struct BackendOptionSet {
  std::vector<std::string> backends, keys, strings;
  std::vector<std::vector<BackendOption>> options;  // per backend
  std::vector<DelegateOptions> per_backend;

  explicit BackendOptionSet(const std::vector<std::string>& specs) {
    backends.reserve(specs.size());
    keys.reserve(specs.size());
    strings.reserve(specs.size());
    for (const std::string& s : specs) {  // BACKEND:KEY=VALUE, checked by parse_options
      const size_t colon = s.find(':');
      const size_t eq = s.find('=', colon);
      const std::string backend = s.substr(0, colon);
      size_t b = std::find(backends.begin(), backends.end(), backend) - backends.begin();
      if (b == backends.size()) {
        backends.push_back(backend);
        options.emplace_back();
      }
      keys.push_back(s.substr(colon + 1, eq - colon - 1));
      strings.push_back(s.substr(eq + 1));
      const std::string& v = strings.back();
      const char* key = keys.back().c_str();
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v == "true" || v == "false") {
        options[b].push_back(BackendOption::of(key, v == "true"));
      } else if (!v.empty() && end != nullptr && *end == '\0') {
        options[b].push_back(BackendOption::of(key, static_cast<int64_t>(n)));
      } else {
        options[b].push_back(BackendOption::of(key, v.c_str()));
      }
    }
    for (size_t b = 0; b < backends.size(); ++b) {
      per_backend.push_back(DelegateOptions{
          backends[b].c_str(), Span<const BackendOption>(options[b].data(), options[b].size())});
    }
  }
};

const BackendOptionSet* g_backend_options = nullptr;
// --etdump_path: sees method loads (and then the method's executes).
ExecuteObserver* g_load_observer = nullptr;

// Loads the method into `mem` (its method allocator grows as the load asks).
// load_method without the failure line: the error, its message in first_error().
Result<Method> try_load_method(const Program& program, const MethodMeta& meta,
                               const ExternalData& external, ThreadPool* threads,
                               LoadedMemory* mem) {
  reset_first_error();
  MethodLoadOptions options;
  options.thread_pool = threads;
  options.observer = g_load_observer;
  // An ETDump has one event per operator of the program, as the official
  // runtime records it: no fused calls.
  options.kernel_fusion = g_load_observer == nullptr;
  if (g_backend_options != nullptr) {
    options.delegate_options = Span<const DelegateOptions>(g_backend_options->per_backend.data(),
                                                           g_backend_options->per_backend.size());
  }
  options.external_data =
      Span<const NamedDataMap* const>(external.views.data(), external.views.size());
  return program.load_method(meta.name(), mem->memory->manager(), options);
}

int load_method(const Program& program, const MethodMeta& meta, const ExternalData& external,
                ThreadPool* threads, LoadedMemory* mem, std::optional<Method>* method) {
  const std::string name = meta.name();
  Result<Method> loaded = try_load_method(program, meta, external, threads, mem);
  if (!loaded.ok())
    return fail(kExitMethodLoad, "cannot load method '" + name + "'", loaded.error());
  method->emplace(std::move(*loaded));
  return kExitOk;
}

// Linux: the process's peak resident set so far and its resident set now, in MiB (VmHWM
// and VmRSS of /proc/self/status); false elsewhere. The runner prints them after the load
// and after the executions so a benchmark can tell the init peak from the steady state.
// (getrusage's ru_maxrss is no use here: Linux carries it across fork and exec, so a
// runner started by a bigger process, e.g. a Python benchmark, reports that one's peak.)
bool resident_mib(double* peak, double* now) {
#if defined(__linux__)
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return false;
  char line[256];
  unsigned long long hwm_kib = 0, rss_kib = 0;
  bool have_hwm = false, have_rss = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %llu kB", &hwm_kib) == 1) have_hwm = true;
    if (std::sscanf(line, "VmRSS: %llu kB", &rss_kib) == 1) have_rss = true;
  }
  std::fclose(f);
  if (!have_hwm || !have_rss) return false;
  *peak = static_cast<double>(hwm_kib) / 1024.0;
  *now = static_cast<double>(rss_kib) / 1024.0;
  return true;
#else
  (void)peak;
  (void)now;
  return false;
#endif
}

void print_resident(const char* when) {
  double peak = 0.0, now = 0.0;
  if (resident_mib(&peak, &now)) {
    std::printf("memory %s: peak RSS %.1f MiB, RSS %.1f MiB\n", when, peak, now);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// Hands every hook to two observers (--profile and --etdump_path together).
class ObserverPair final : public ExecuteObserver {
 public:
  ObserverPair(ExecuteObserver* a, ExecuteObserver* b) : a_(a), b_(b) {}
  void on_begin(const InstructionEvent& e) override {
    a_->on_begin(e);
    b_->on_begin(e);
  }
  void on_end(const InstructionEvent& e, Error status) override {
    a_->on_end(e, status);
    b_->on_end(e, status);
  }
  void on_execute_begin(const Method& m) override {
    a_->on_execute_begin(m);
    b_->on_execute_begin(m);
  }
  void on_execute_end(const Method& m, Error status) override {
    a_->on_execute_end(m, status);
    b_->on_execute_end(m, status);
  }

 private:
  ExecuteObserver* a_;
  ExecuteObserver* b_;
};

// --etdump_path: the writer, its observer and the debug buffer it logs into.
struct ETDumpRecording {
  etdump::ETDumpWriter writer;
  etdump::ETDumpObserver observer{&writer};
  std::unique_ptr<uint8_t, decltype(&std::free)> debug_buffer{nullptr, &std::free};
  size_t debug_buffer_size = 0;
  etdump::BufferDataSink sink;
};

std::unique_ptr<ETDumpRecording> start_etdump(const Options& options) {
  if (options.etdump_path.empty()) return nullptr;
  auto rec = std::make_unique<ETDumpRecording>();
  rec->observer.set_debug_level(static_cast<etdump::DebugLevel>(options.etdump_debug_level));
  if (!options.debug_buffer_path.empty()) {
    rec->debug_buffer_size = static_cast<size_t>(options.debug_buffer_size);
    // 64-byte aligned like the official sink's blobs, so offsets are multiples of 64.
    const size_t rounded = (rec->debug_buffer_size + 63) / 64 * 64;
    rec->debug_buffer.reset(static_cast<uint8_t*>(std::aligned_alloc(64, rounded)));
    if (rec->debug_buffer == nullptr) return nullptr;
    std::memset(rec->debug_buffer.get(), 0, rounded);
    rec->sink = etdump::BufferDataSink({rec->debug_buffer.get(), rec->debug_buffer_size}, 64);
    rec->writer.set_data_sink(&rec->sink);
  }
  return rec;
}

bool write_file(const std::string& path, const void* data, size_t size) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash != 0 && make_directories(path.substr(0, slash)) != 0)
    return false;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

// Writes the ETDump and (when asked) the whole debug buffer, as the official runners do.
int finish_etdump(ETDumpRecording* rec, const Options& options) {
  if (rec->observer.logging_error() != Error::Ok) {
    return fail(kExitOutput, "cannot log the values asked for in the ETDump",
                rec->observer.logging_error());
  }
  const std::vector<uint8_t> bytes = rec->writer.finish();
  if (!write_file(options.etdump_path, bytes.data(), bytes.size())) {
    return fail(kExitOutput, "cannot write the ETDump '" + options.etdump_path + "'",
                Error::AccessFailed, std::strerror(errno));
  }
  std::printf("etdump: %zu bytes written to %s\n", bytes.size(), options.etdump_path.c_str());
  if (rec->debug_buffer != nullptr) {
    if (!write_file(options.debug_buffer_path, rec->debug_buffer.get(), rec->debug_buffer_size)) {
      return fail(kExitOutput, "cannot write the debug buffer '" + options.debug_buffer_path + "'",
                  Error::AccessFailed, std::strerror(errno));
    }
    std::printf("etdump: debug buffer (%zu of %zu bytes used) written to %s\n",
                rec->sink.used_bytes(), rec->debug_buffer_size, options.debug_buffer_path.c_str());
  }
  return kExitOk;
}

int execute(Method& method, const InputSet& inputs, int64_t runs, TraceRecorder* trace,
            ExecuteObserver* etdump) {
  std::vector<double> ms;
  // The process's CPU time per execution (all threads; std::clock): a benchmark on a shared
  // machine can compare it where the wall time moves with the other processes' load.
  std::vector<double> cpu_ms;
  std::optional<ObserverPair> pair;
  if (trace != nullptr && etdump != nullptr) pair.emplace(trace, etdump);
  method.set_observer(pair    ? static_cast<ExecuteObserver*>(&*pair)
                      : trace ? static_cast<ExecuteObserver*>(trace)
                              : etdump);
  for (int64_t r = 0; r < runs; ++r) {
    // Inputs are set again each time: a method may reuse their planned memory.
    const int rc = apply_inputs(method, inputs);
    if (rc != kExitOk) return rc;
    reset_first_error();
    if (trace != nullptr) trace->begin_execute();
    const std::clock_t cpu_start = std::clock();
    const uint64_t start = platform_now_ns();
    const Error err = method.execute();
    const uint64_t end = platform_now_ns();
    const std::clock_t cpu_end = std::clock();
    if (trace != nullptr) trace->end_execute();
    if (err != Error::Ok) {
      return fail(
          kExitExecute,
          "execution " + std::to_string(r + 1) + " of method '" + method.name() + "' failed", err);
    }
    ms.push_back(static_cast<double>(end - start) / 1e6);
    cpu_ms.push_back(static_cast<double>(cpu_end - cpu_start) * 1e3 / CLOCKS_PER_SEC);
  }
  if (runs > 1) {
    // The first execute apart: it may pay one-off costs (a delegate's first
    // submission, caches warming) that the later ones do not.
    const std::vector<double> later(ms.begin() + 1, ms.end());
    std::printf(
        "executed %lld times: min %.3f ms, median %.3f ms, max %.3f ms; first %.3f ms, later "
        "median %.3f ms\n",
        static_cast<long long>(runs), *std::min_element(ms.begin(), ms.end()), median(ms),
        *std::max_element(ms.begin(), ms.end()), ms[0], median(later));
    std::printf("first execution %.3f ms (cpu time %.3f ms)\n", ms[0], cpu_ms[0]);
    std::printf("cpu time per execution: median %.3f ms (all threads)\n", median(cpu_ms));
  } else {
    std::printf("executed once: %.3f ms\n", ms[0]);
  }
  return kExitOk;
}

// --model_path and its --data_path files, open (the loader outlives the program).
struct OpenedProgram {
  std::unique_ptr<DataLoader> loader;
  std::optional<Program> program;
  ExternalData external;
};

// Registers the kernels, then opens and verifies the program and its .ptd files.
int open_program(const Options& options, OpenedProgram* out) {
  int rc = register_all_kernels();
  if (rc != kExitOk) return rc;
  const std::string& path = options.model_path;
  reset_first_error();
  Error err = Error::Ok;
  out->loader = open_loader(path, options.mmap_loader, &err);
  if (out->loader == nullptr) return fail(kExitProgramLoad, "cannot open '" + path + "'", err);
  reset_first_error();
  Result<Program> program = Program::load(out->loader.get());
  if (!program.ok()) {
    return fail(kExitProgramLoad, "cannot load program '" + path + "'", program.error());
  }
  out->program.emplace(std::move(*program));
  return load_external_data(options.data_paths, options.mmap_loader, &out->external);
}

int run(const Options& options) {
  const std::clock_t load_cpu_start = std::clock();
  const uint64_t load_start = platform_now_ns();
  OpenedProgram opened;
  int rc = open_program(options, &opened);
  if (rc != kExitOk) return rc;
  const std::string& path = options.model_path;
  const Program* program = &*opened.program;
  const ExternalData& external = opened.external;
  std::string name;
  rc = choose_method(*program, options, &name);
  if (rc != kExitOk) return rc;
  reset_first_error();
  Result<MethodMeta> meta = program->method_meta(name.c_str());
  if (!meta.ok())
    return fail(kExitMethodLoad, "no method '" + name + "' in '" + path + "'", meta.error());

  // One pool for kernels and delegates (declared before the method, which uses it).
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(static_cast<size_t>(options.threads));
  if (pool == nullptr)
    return fail(kExitSetup, "cannot start the thread pool", Error::OutOfResources);
  LoadedMemory mem;
  std::optional<Method> method;
  std::unique_ptr<ETDumpRecording> etdump = start_etdump(options);
  if (!options.etdump_path.empty() && etdump == nullptr) {
    return fail(kExitSetup, "cannot allocate the debug buffer", Error::MemoryAllocationFailed);
  }
  g_load_observer = etdump != nullptr ? &etdump->observer : nullptr;
  rc = allocate_planned(*meta, &mem);
  if (rc == kExitOk) rc = load_method(*program, *meta, external, pool.get(), &mem, &method);
  g_load_observer = nullptr;
  if (rc == kExitOk) rc = bind_unplanned_outputs(*method, &mem.output_buffers);
  if (rc != kExitOk) return rc;
  // Program load + method load (kernel prepare steps, delegate init), thread pool start included.
  const double load_ms = static_cast<double>(platform_now_ns() - load_start) / 1e6;
  std::printf("loaded method '%s' of '%s' (%zu inputs, %zu outputs) in %.3f ms\n", name.c_str(),
              path.c_str(), method->inputs_size(), method->outputs_size(), load_ms);
  std::printf("load cpu time %.3f ms (all threads)\n",
              static_cast<double>(std::clock() - load_cpu_start) * 1e3 / CLOCKS_PER_SEC);
  print_resident("after load");

  InputSet inputs;
  rc = prepare_inputs(*method, options.inputs, &inputs);
  std::unique_ptr<TraceRecorder> trace;
  if (!options.profile.empty()) trace = std::make_unique<TraceRecorder>();
  if (rc == kExitOk) {
    rc = execute(*method, inputs, options.num_executions, trace.get(),
                 etdump != nullptr ? &etdump->observer : nullptr);
  }
  if (rc != kExitOk) return rc;
  print_resident("after execution");
  if (etdump != nullptr) {
    rc = finish_etdump(etdump.get(), options);
    if (rc != kExitOk) return rc;
  }
  if (trace != nullptr) {
    const size_t slash = options.profile.rfind('/');
    const bool dir_ok = slash == std::string::npos || slash == 0 ||
                        make_directories(options.profile.substr(0, slash)) == 0;
    if (!dir_ok || !trace->write(options.profile, name)) {
      return fail(kExitOutput, "cannot write the profile '" + options.profile + "'",
                  Error::AccessFailed, std::strerror(errno));
    }
    std::printf("profile: %zu events written to %s\n", trace->num_events(),
                options.profile.c_str());
  }
  print_outputs(*method);
  if (options.verbose) {
    const MethodMemory& m = *mem.memory;
    std::fprintf(stderr,
                 "method memory used: %zu bytes (%zu bytes of heap held); temp peak: %zu bytes; "
                 "planned: %zu bytes\n",
                 m.method_bytes_used(), m.method_bytes_reserved(), m.temp_bytes_peak(),
                 m.planned_bytes());
  }
  if (!options.output_dir.empty()) return write_outputs(*method, options.output_dir);
  return kExitOk;
}

// The metadata methods ExecuTorch's LLM exporter adds (constant methods
// without inputs); printed as one "llm:" block when the program has any.
void print_llm_metadata(const Options& options, const std::vector<std::string>& methods) {
  static const char* const kNames[] = {
      "get_bos_id",          "get_eos_ids",  "get_max_seq_len", "get_max_context_len",
      "get_vocab_size",      "get_n_layers", "use_kv_cache",    "use_sdpa_with_kv_cache",
      "enable_dynamic_shape"};
  std::vector<std::string> present;
  for (const char* name : kNames) {
    if (std::find(methods.begin(), methods.end(), name) != methods.end()) present.push_back(name);
  }
  if (present.empty() || options.model_path.empty()) return;
  Module module(options.model_path, options.data_paths);
  std::printf("llm:\n");
  for (const std::string& name : present) {
    Result<std::vector<Value>> out = module.execute(name, {});
    std::string text;
    if (!out.ok()) {
      text = std::string("FAILED: ") + to_string(out.error());
    } else {
      for (const Value& v : *out) {
        if (!text.empty()) text += ", ";
        if (v.is_int()) {
          text += std::to_string(v.to_int());
        } else if (v.is_bool()) {
          text += v.to_bool() ? "true" : "false";
        } else if (v.is_double()) {
          text += std::to_string(v.to_double());
        } else {
          text += "(not a scalar)";
        }
      }
      if (name == "get_eos_ids") text = "[" + text + "]";
    }
    std::printf("  %s: %s\n", name.c_str(), text.c_str());
  }
  if (std::find(present.begin(), present.end(), "get_max_seq_len") == present.end()) {
    std::printf("  (no get_max_seq_len: llm_runner refuses this program)\n");
  }
}

// --info: prints what the file needs and tries to load every method (or
// --method) with this build's kernels and backends. Exit 0 when all load.
int info(const Options& options) {
  OpenedProgram opened;
  const int rc = open_program(options, &opened);
  if (rc != kExitOk) return rc;
  const std::string& path = options.model_path;
  const Program* program = &*opened.program;
  const ExternalData& external = opened.external;
  Result<size_t> file_size = opened.loader->size();
  print_program_info(*program, path, file_size.ok() ? *file_size : 0);
  std::vector<std::string> names;
  for (size_t i = 0; i < program->num_methods(); ++i) {
    Result<const char*> n = program->get_method_name(i);
    if (n.ok() && (options.method.empty() || options.method == *n)) names.emplace_back(*n);
  }
  if (names.empty()) {
    return fail(kExitMethodLoad, "no method named '" + options.method + "'", Error::NotFound);
  }
  std::string first_failure;
  for (const std::string& name : names) {
    // The real test: load the method as a run would (memory, kernels'
    // prepare steps, delegates' init); its figures are printed with the rest.
    Result<MethodMeta> meta = program->method_meta(name.c_str());
    LoadedMemory mem;
    std::string verdict = "ok";
    if (!meta.ok()) {
      verdict = to_string(meta.error());
    } else if (allocate_planned(*meta, &mem) != kExitOk) {
      verdict = "cannot allocate its planned memory";
    } else {
      Result<Method> loaded = try_load_method(*program, *meta, external, nullptr, &mem);
      if (!loaded.ok()) verdict = std::string(to_string(loaded.error())) + ": " + first_error();
    }
    const size_t used = verdict == "ok" ? mem.memory->method_bytes_used() : 0;
    const bool complete = print_method_info(*program, name.c_str(), used);
    if (verdict == "ok") {
      std::printf("  load: ok (method memory used: %zu bytes)\n", used);
    } else {
      std::printf("  load: FAILED: %s\n", verdict.c_str());
      if (first_failure.empty()) first_failure = "method '" + name + "': " + verdict;
    }
    if (!complete && first_failure.empty()) {
      first_failure = "method '" + name + "' needs an operator or backend this build lacks";
    }
  }
  std::vector<std::string> all_names;
  for (size_t i = 0; i < program->num_methods(); ++i) {
    Result<const char*> n = program->get_method_name(i);
    if (n.ok()) all_names.emplace_back(*n);
  }
  print_llm_metadata(options, all_names);
  if (!first_failure.empty()) {
    std::printf("verdict: this build cannot run '%s'\n", path.c_str());
    return fail(kExitMethodLoad, "cannot run '" + path + "'", Error::NotSupported, first_failure);
  }
  std::printf("verdict: this build can run every method of '%s'\n", path.c_str());
  return kExitOk;
}

// --bundled_program with --etdump_path: the recording observer.
etdump::ETDumpObserver* g_bundled_etdump = nullptr;

// --bundled_program: what happened over every test case of the file.
struct BundledTally {
  size_t cases = 0;
  size_t passed = 0;
  size_t failed = 0;
  size_t errors = 0;
  // The first case that could not run, or else the first mismatch.
  int code = kExitOk;
  std::string what;
  Error error = Error::Ok;
  std::string detail;

  void note(int exit_code, const std::string& label, Error err, const std::string& why) {
    std::printf("%s: ERROR %s: %s (%s)\n", label.c_str(), to_string(err), why.c_str(),
                first_error().c_str());
    if (errors++ == 0) {
      code = exit_code;
      what = label + ": " + why;
      error = err;
      detail = first_error();
    }
  }
};

// Loads test case `c`'s inputs, executes, compares and prints one line.
void run_bundled_case(const BundledProgram& bp, Method& method, size_t c, const Options& options,
                      BundledTally* tally) {
  ++tally->cases;
  const std::string label = "method '" + std::string(method.name()) + "' case " + std::to_string(c);
  reset_first_error();
  // --etdump_path: each execute's block carries its test case, so the
  // Inspector keeps the cases apart (and can attach their expected outputs).
  if (g_bundled_etdump != nullptr)
    g_bundled_etdump->set_bundled_input_index(static_cast<int32_t>(c));
  Error err = bp.load_inputs(method, c);
  if (err != Error::Ok) return tally->note(kExitInput, label, err, "cannot set the inputs");
  reset_first_error();
  err = method.execute();
  if (err != Error::Ok) return tally->note(kExitExecute, label, err, "execution failed");
  reset_first_error();
  Result<BundledComparison> cmp = bp.compare_outputs(method, c, options.rtol, options.atol);
  if (!cmp.ok()) return tally->note(kExitOutput, label, cmp.error(), "cannot compare outputs");
  char worst[192] = "";
  if (!cmp->passed) {
    std::snprintf(worst, sizeof(worst),
                  "%zu elements differ, worst: output %zu element %zu = %.9g, expected %.9g",
                  cmp->mismatches, cmp->worst_output, cmp->worst_index, cmp->worst_actual,
                  cmp->worst_expected);
    if (tally->failed == 0 && tally->errors == 0) tally->detail = label + ": " + worst;
  }
  std::printf("%s: %s (max abs error %.6g, max rel error %.6g%s%s)\n", label.c_str(),
              cmp->passed ? "PASS" : "FAIL", cmp->max_abs_error, cmp->max_rel_error,
              cmp->passed ? "" : "; ", worst);
  ++(cmp->passed ? tally->passed : tally->failed);
}

// Loads the method of one test suite and runs its cases; an exit code when
// the method cannot be loaded.
int run_bundled_suite(const BundledProgram& bp, const Program& program, const std::string& name,
                      const Options& options, const ExternalData& external, ThreadPool* threads,
                      BundledTally* tally) {
  reset_first_error();
  Result<size_t> cases = bp.num_test_cases(name.c_str());
  if (!cases.ok()) return fail(kExitInput, "bundled suite '" + name + "'", cases.error());
  Result<MethodMeta> meta = program.method_meta(name.c_str());
  if (!meta.ok()) {
    return fail(kExitMethodLoad, "a bundled test suite names method '" + name + "'", meta.error());
  }
  LoadedMemory mem;
  std::optional<Method> method;
  int rc = allocate_planned(*meta, &mem);
  if (rc == kExitOk) rc = load_method(program, *meta, external, threads, &mem, &method);
  if (rc == kExitOk) rc = bind_unplanned_outputs(*method, &mem.output_buffers);
  if (rc != kExitOk) return rc;
  for (size_t c = 0; c < *cases; ++c) run_bundled_case(bp, *method, c, options, tally);
  return kExitOk;
}

// The summary line, and the one stderr line when a case failed or erred.
int finish_bundled(const std::string& path, const Options& options, const BundledTally& t) {
  std::printf("bundled program '%s': %zu cases, %zu passed, %zu failed, %zu errors\n", path.c_str(),
              t.cases, t.passed, t.failed, t.errors);
  reset_first_error();
  if (t.errors != 0) {
    return fail(t.code,
                std::to_string(t.errors) + " of " + std::to_string(t.cases) +
                    " bundled cases could not run; first: " + t.what,
                t.error, t.detail);
  }
  if (t.failed != 0) {
    return fail(kExitMismatch,
                std::to_string(t.failed) + " of " + std::to_string(t.cases) +
                    " bundled cases differ from the expected outputs",
                Error::NotFound, t.detail);
  }
  if (t.cases == 0) {
    return fail(kExitInput,
                "'" + path + "' has no test case" +
                    (options.method.empty() ? "" : " for method '" + options.method + "'"),
                Error::NotFound);
  }
  return kExitOk;
}

// Runs every test case of every method in a .bpte (or of --method only).
int run_bundled(const Options& options) {
  int rc = register_all_kernels();
  if (rc != kExitOk) return rc;
  const std::string& path = options.bundled_program;
  reset_first_error();
  Result<FileDataLoader> file = FileDataLoader::from(path.c_str(), 32);
  if (!file.ok()) return fail(kExitProgramLoad, "cannot open '" + path + "'", file.error());
  Result<FreeableBuffer> bytes = file->load(0, *file->size(), SegmentKind::Program);
  if (!bytes.ok()) return fail(kExitProgramLoad, "cannot read '" + path + "'", bytes.error());
  Result<BundledProgram> bp = BundledProgram::load(bytes->data(), bytes->size());
  if (!bp.ok()) {
    return fail(kExitProgramLoad, "cannot load bundled program '" + path + "'", bp.error());
  }
  BufferDataLoader inner(bp->program_data().data(), bp->program_data().size());
  Result<Program> program = Program::load(&inner);
  if (!program.ok()) {
    return fail(kExitProgramLoad, "cannot load the program inside '" + path + "'", program.error());
  }
  ExternalData external;
  rc = load_external_data(options.data_paths, options.mmap_loader, &external);
  if (rc != kExitOk) return rc;
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(static_cast<size_t>(options.threads));
  if (pool == nullptr)
    return fail(kExitSetup, "cannot start the thread pool", Error::OutOfResources);
  std::unique_ptr<ETDumpRecording> etdump = start_etdump(options);
  if (!options.etdump_path.empty() && etdump == nullptr) {
    return fail(kExitSetup, "cannot allocate the debug buffer", Error::MemoryAllocationFailed);
  }
  g_load_observer = etdump != nullptr ? &etdump->observer : nullptr;
  g_bundled_etdump = etdump != nullptr ? &etdump->observer : nullptr;
  BundledTally tally;
  for (size_t s = 0; s < bp->num_suites() && rc == kExitOk; ++s) {
    const std::string name = *bp->suite_method_name(s);
    if (!options.method.empty() && options.method != name) continue;
    rc = run_bundled_suite(*bp, *program, name, options, external, pool.get(), &tally);
  }
  g_load_observer = nullptr;
  g_bundled_etdump = nullptr;
  if (rc != kExitOk) return rc;
  rc = finish_bundled(path, options, tally);
  if (etdump != nullptr) {
    const int written = finish_etdump(etdump.get(), options);
    if (written != kExitOk) return written;
  }
  return rc;
}

}  // namespace
}  // namespace runner
}  // namespace etr

int main(int argc, char** argv) {
  using namespace etr::runner;  // NOLINT
  Options options;
  std::string error;
  const bool parsed = parse_options(argc, argv, &options, &error);
  install_log_hook(parsed && options.verbose);
  if (!parsed) {
    return fail(kExitUsage, "invalid command line", etr::Error::InvalidArgument,
                error + "; run with --help for usage");
  }
  if (options.help) {
    print_usage(stdout);
    return kExitOk;
  }
  if (options.list_operators) return list_operators();
  const BackendOptionSet backend_options(options.backend_options);
  g_backend_options = &backend_options;
  if (!options.bundled_program.empty()) return run_bundled(options);
  if (options.info) return info(options);
  return run(options);
}
