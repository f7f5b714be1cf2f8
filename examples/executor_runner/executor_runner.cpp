// executor_runner: loads an ExecuTorch .pte program, runs one method on
// .npy inputs (or ones), prints a summary of each output and optionally
// writes the outputs as .npy files. Run with --help for the flags.
//
// On failure it prints exactly one line on stderr,
//   executor_runner: error: <what failed>: <ErrorName> (<detail>)
// where <detail> is the first Error-level message the runtime logged, and
// exits with a code from 1 to 7 (see runner_io.h).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "examples/executor_runner/runner_io.h"
#include "extension/data_loader/file_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "extension/threadpool/pthread_pool.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/platform.h"
#if defined(ETR_HAVE_XNNPACK)
#include "backends/xnnpack/xnnpack_backend.h"
#endif

namespace etr {
namespace runner {
namespace {

// Method-allocator room for kernel prepare state and delegates, on top of
// MethodMeta::method_allocator_bytes().
constexpr size_t kStatePool = size_t{16} << 20;  // 16 MiB
constexpr size_t kTempPool = size_t{16} << 20;   // 16 MiB
constexpr size_t kBufferAlignment = 64;

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

// Uninitialised, 64-byte aligned heap memory (at least one byte).
AlignedBuffer allocate_aligned(size_t size) {
  const size_t rounded =
      (std::max<size_t>(size, 1) + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  return AlignedBuffer(static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded)));
}

// All memory a loaded method uses. Members never move once set up, since
// the method keeps pointers to them.
struct MethodMemory {
  std::vector<AlignedBuffer> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  HierarchicalAllocator planned;
  AlignedBuffer method_pool;
  std::unique_ptr<MemoryAllocator> method_allocator;
  AlignedBuffer temp_pool;
  std::unique_ptr<MemoryAllocator> temp_allocator;
  std::unique_ptr<MemoryManager> manager;
  std::vector<std::unique_ptr<uint8_t[]>> output_buffers;
};

// The .ptd files given with --data_path, open for as long as the method runs.
struct ExternalData {
  std::vector<std::unique_ptr<FileDataLoader>> loaders;
  std::vector<std::unique_ptr<FlatTensorDataMap>> maps;
  std::vector<const NamedDataMap*> views;
};

int load_external_data(const std::vector<std::string>& paths, ExternalData* data) {
  for (const std::string& path : paths) {
    reset_first_error();
    Result<FileDataLoader> loader = FileDataLoader::from(path.c_str());
    if (!loader.ok()) return fail(kExitProgramLoad, "cannot open '" + path + "'", loader.error());
    data->loaders.push_back(std::make_unique<FileDataLoader>(std::move(*loader)));
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
  Error err = register_kernels(portable_kernel_library());
  if (err == Error::Ok) err = register_kernels(prim_ops_library());
  if (err != Error::Ok) return fail(kExitSetup, "cannot register kernels", err);
#if defined(ETR_HAVE_XNNPACK)
  err = register_xnnpack_backend();
  if (err != Error::Ok) return fail(kExitSetup, "cannot register the XNNPACK backend", err);
#endif
  return kExitOk;
}

int list_operators() {
  const int rc = register_all_kernels();
  if (rc != kExitOk) return rc;
  // One line per kernel: operator, library (highest priority first), dtypes.
  default_kernel_registry().for_each([&](const KernelEntry& e, const KernelLibrary& lib) {
    char dtypes[256];
    std::printf("%s\t%s\t%s%s\n", e.name, lib.name, format_dtypes(e.dtypes, dtypes, sizeof(dtypes)),
                e.prepare != nullptr ? "\tprepare" : "");
  });
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

int allocate_planned(const MethodMeta& meta, MethodMemory* mem) {
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    Result<int64_t> size = meta.memory_planned_buffer_size(i);
    if (!size.ok() || *size < 0) {
      return fail(kExitMethodLoad, "cannot size planned buffer " + std::to_string(i),
                  size.ok() ? Error::InvalidProgram : size.error());
    }
    const size_t bytes = static_cast<size_t>(*size);
    mem->planned_buffers.push_back(allocate_aligned(bytes));
    if (!mem->planned_buffers.back()) {
      return fail(kExitMethodLoad, "cannot allocate planned buffer " + std::to_string(i),
                  Error::MemoryAllocationFailed, std::to_string(bytes) + " bytes");
    }
    mem->planned_spans.emplace_back(mem->planned_buffers.back().get(), bytes);
  }
  mem->planned = HierarchicalAllocator(
      Span<Span<uint8_t>>(mem->planned_spans.data(), mem->planned_spans.size()));
  mem->temp_pool = allocate_aligned(kTempPool);
  if (!mem->temp_pool) {
    return fail(kExitMethodLoad, "cannot allocate the temp pool", Error::MemoryAllocationFailed);
  }
  mem->temp_allocator = std::make_unique<MemoryAllocator>(mem->temp_pool.get(), kTempPool);
  return kExitOk;
}

// Loads the method with a method allocator of the size MethodMeta reports
// for its tables plus room for kernel and delegate state.
int load_method(const Program& program, const MethodMeta& meta, const ExternalData& external,
                ThreadPool* threads, MethodMemory* mem, std::optional<Method>* method) {
  const std::string name = meta.name();
  const size_t pool = meta.method_allocator_bytes() + kStatePool;
  mem->method_pool = allocate_aligned(pool);
  if (!mem->method_pool) {
    return fail(kExitMethodLoad, "cannot allocate the method pool", Error::MemoryAllocationFailed,
                std::to_string(pool) + " bytes");
  }
  mem->method_allocator = std::make_unique<MemoryAllocator>(mem->method_pool.get(), pool);
  mem->manager = std::make_unique<MemoryManager>(mem->method_allocator.get(), &mem->planned,
                                                 mem->temp_allocator.get());
  reset_first_error();
  MethodLoadOptions options;
  options.thread_pool = threads;
  options.external_data =
      Span<const NamedDataMap* const>(external.views.data(), external.views.size());
  Result<Method> loaded = program.load_method(name.c_str(), mem->manager.get(), options);
  if (!loaded.ok())
    return fail(kExitMethodLoad, "cannot load method '" + name + "'", loaded.error());
  method->emplace(std::move(*loaded));
  return kExitOk;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int execute(Method& method, const InputSet& inputs, int64_t runs) {
  std::vector<double> ms;
  for (int64_t r = 0; r < runs; ++r) {
    // Inputs are set again each time: a method may reuse their planned memory.
    const int rc = apply_inputs(method, inputs);
    if (rc != kExitOk) return rc;
    reset_first_error();
    const uint64_t start = platform_now_ns();
    const Error err = method.execute();
    const uint64_t end = platform_now_ns();
    if (err != Error::Ok) {
      return fail(
          kExitExecute,
          "execution " + std::to_string(r + 1) + " of method '" + method.name() + "' failed", err);
    }
    ms.push_back(static_cast<double>(end - start) / 1e6);
  }
  if (runs > 1) {
    std::printf("executed %lld times: min %.3f ms, median %.3f ms, max %.3f ms\n",
                static_cast<long long>(runs), *std::min_element(ms.begin(), ms.end()), median(ms),
                *std::max_element(ms.begin(), ms.end()));
  } else {
    std::printf("executed once: %.3f ms\n", ms[0]);
  }
  return kExitOk;
}

int run(const Options& options) {
  int rc = register_all_kernels();
  if (rc != kExitOk) return rc;
  const std::string& path = options.model_path;
  reset_first_error();
  Result<FileDataLoader> loader = FileDataLoader::from(path.c_str());
  if (!loader.ok()) return fail(kExitProgramLoad, "cannot open '" + path + "'", loader.error());
  reset_first_error();
  Result<Program> program = Program::load(&*loader);
  if (!program.ok()) {
    return fail(kExitProgramLoad, "cannot load program '" + path + "'", program.error());
  }
  ExternalData external;
  rc = load_external_data(options.data_paths, &external);
  if (rc != kExitOk) return rc;
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
  MethodMemory mem;
  std::optional<Method> method;
  rc = allocate_planned(*meta, &mem);
  if (rc == kExitOk) rc = load_method(*program, *meta, external, pool.get(), &mem, &method);
  if (rc == kExitOk) rc = bind_unplanned_outputs(*method, &mem.output_buffers);
  if (rc != kExitOk) return rc;
  std::printf("loaded method '%s' of '%s' (%zu inputs, %zu outputs)\n", name.c_str(), path.c_str(),
              method->inputs_size(), method->outputs_size());

  InputSet inputs;
  rc = prepare_inputs(*method, options.inputs, &inputs);
  if (rc == kExitOk) rc = execute(*method, inputs, options.num_executions);
  if (rc != kExitOk) return rc;
  print_outputs(*method);
  if (!options.output_dir.empty()) return write_outputs(*method, options.output_dir);
  return kExitOk;
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
  return run(options);
}
