// Framework tax: the cost of loading a program, loading a method and running
// it, on small fixtures where kernel time is negligible, and loading the
// methods of real models (test/models/transformer.pte, and
// bench/models/mobilenet_v2.pte when bench/export_bench_models.py has written
// it). Method load runs every kernel's prepare step; the `_optimized` variants
// stack the optimized library above the portable one, so their load includes
// packing the constant weights. Prints figures only.
//   ./build/framework_tax_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#if ETR_BENCH_OPTIMIZED
#include "kernels/optimized/optimized_kernels.h"
#endif
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/executor/method.h"
#include "runtime/executor/platform_arena.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"

namespace {

struct Fixture {
  std::vector<uint8_t> storage;
  uint8_t* data = nullptr;
  size_t size = 0;
  // `name` is under test/models/ unless it holds a '/' (then: under the source tree).
  explicit Fixture(const char* name) {
    const std::string dir = std::strchr(name, '/') == nullptr ? "/test/models/" : "/";
    std::ifstream f(std::string(ETR_SOURCE_DIR) + dir + name, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    storage.resize(bytes.size() + 64);
    data = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
    std::memcpy(data, bytes.data(), bytes.size());
    size = bytes.size();
  }
};

// Portable kernels and prim ops; with `optimized`, the optimized library above them.
const etr::KernelRegistry* registry(bool optimized) {
  static etr::KernelRegistry portable, stacked;
  static bool done = [] {
    for (etr::KernelRegistry* r : {&portable, &stacked}) {
      (void)r->add(etr::portable_kernel_library());
      (void)r->add(etr::prim_ops_library());
    }
#if ETR_BENCH_OPTIMIZED
    (void)stacked.add(etr::optimized_kernel_library());
#endif
    return true;
  }();
  (void)done;
  return optimized ? &stacked : &portable;
}

void BM_ProgramLoad(benchmark::State& state, const char* name) {
  Fixture fx(name);
  for (auto _ : state) {
    etr::BufferDataLoader loader(fx.data, fx.size);
    etr::Result<etr::Program> p = etr::Program::load(&loader);
    benchmark::DoNotOptimize(p.ok());
  }
}

struct Loaded {
  Fixture fx;
  etr::BufferDataLoader loader;
  etr::Result<etr::Program> program;
  std::vector<uint8_t> arena, pool_storage;
  uint8_t* pool = nullptr;  // 64-byte aligned, pool_size bytes
  size_t pool_size = 0;
  std::vector<etr::Span<uint8_t>> spans;
  explicit Loaded(const char* name)
      : fx(name), loader(fx.data, fx.size), program(etr::Program::load(&loader)) {
    if (!program.ok()) return;
    etr::Result<etr::MethodMeta> meta = program->method_meta("forward");
    arena.resize(static_cast<size_t>(*meta->memory_planned_buffer_size(0)));
    spans.emplace_back(arena.data(), arena.size());
  }
  // Sizes the method pool exactly for a load with `options` (measured once, untimed).
  bool size_pool(const etr::MethodLoadOptions& options) {
    etr::Result<etr::MethodMeta> meta = program->method_meta("forward");
    etr::Result<size_t> bytes = meta->method_allocator_bytes(options);
    if (!bytes.ok()) return false;
    pool_size = *bytes;
    pool_storage.resize(pool_size + etr::PlatformArena::kBufferAlignment);
    const size_t a = etr::PlatformArena::kBufferAlignment;
    pool = pool_storage.data() + (a - reinterpret_cast<uintptr_t>(pool_storage.data()) % a) % a;
    return true;
  }
};

void BM_MethodLoad(benchmark::State& state, const char* name, bool optimized) {
  Loaded l(name);
  if (!l.program.ok()) {
    state.SkipWithError(
        "cannot load the program (bench/models/: run bench/export_bench_models.py)");
    return;
  }
  etr::MethodLoadOptions options;
  options.kernels = registry(optimized);
  if (!l.size_pool(options)) {
    state.SkipWithError("cannot measure the method allocator");
    return;
  }
  etr::HierarchicalAllocator planned(etr::Span<etr::Span<uint8_t>>(l.spans.data(), 1));
  for (auto _ : state) {
    etr::MemoryAllocator method_alloc(l.pool, l.pool_size);
    etr::MemoryManager mm(&method_alloc, &planned);
    etr::Result<etr::Method> m = l.program->load_method("forward", &mm, options);
    if (!m.ok()) {
      state.SkipWithError("load_method failed");
      return;
    }
    benchmark::DoNotOptimize(m.ok());
  }
}

// Method load as executor_runner and Module do it: the method allocator is a
// PlatformArena that grows as the load asks (its chunks are part of the cost).
void BM_MethodLoadArena(benchmark::State& state, const char* name, bool optimized) {
  Loaded l(name);
  if (!l.program.ok()) {
    state.SkipWithError(
        "cannot load the program (bench/models/: run bench/export_bench_models.py)");
    return;
  }
  etr::MethodLoadOptions options;
  options.kernels = registry(optimized);
  etr::HierarchicalAllocator planned(etr::Span<etr::Span<uint8_t>>(l.spans.data(), 1));
  for (auto _ : state) {
    etr::PlatformArena arena;
    etr::MemoryManager mm(&arena, &planned);
    etr::Result<etr::Method> m = l.program->load_method("forward", &mm, options);
    if (!m.ok()) {
      state.SkipWithError("load_method failed");
      return;
    }
    benchmark::DoNotOptimize(m.ok());
  }
}

void BM_Execute(benchmark::State& state, const char* name) {
  Loaded l(name);
  etr::MethodLoadOptions options;
  options.kernels = registry(false);
  if (!l.size_pool(options)) {
    state.SkipWithError("cannot measure the method allocator");
    return;
  }
  etr::HierarchicalAllocator planned(etr::Span<etr::Span<uint8_t>>(l.spans.data(), 1));
  etr::MemoryAllocator method_alloc(l.pool, l.pool_size);
  etr::MemoryManager mm(&method_alloc, &planned);
  etr::Result<etr::Method> m = l.program->load_method("forward", &mm, options);
  for (size_t i = 0; i < m->inputs_size(); ++i) (void)m->set_input(m->get_input(i), i);
  const size_t instructions = m->method_meta().num_instructions();
  // Only inputs that execute consumes are set again inside the timed loop;
  // the others stay set, as they would for a caller.
  std::vector<size_t> reset;
  for (size_t i = 0; i < m->inputs_size(); ++i) {
    if (m->input_consumed(i)) reset.push_back(i);
  }
  for (auto _ : state) {
    for (size_t i : reset) (void)m->set_input(m->get_input(i), i);
    benchmark::DoNotOptimize(m->execute());
  }
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["inputs_set_per_run"] = static_cast<double>(reset.size());
  state.counters["ns_per_instruction"] = benchmark::Counter(
      static_cast<double>(instructions) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_ProgramLoad, no_constants, "no_constants.pte");
BENCHMARK_CAPTURE(BM_ProgramLoad, transformer, "transformer.pte");
BENCHMARK_CAPTURE(BM_ProgramLoad, mobilenet_v2, "bench/models/mobilenet_v2.pte");
BENCHMARK_CAPTURE(BM_MethodLoad, no_constants, "no_constants.pte", false);
BENCHMARK_CAPTURE(BM_MethodLoad, op_chain, "op_chain.pte", false);
BENCHMARK_CAPTURE(BM_MethodLoad, transformer, "transformer.pte", false);
BENCHMARK_CAPTURE(BM_MethodLoad, mobilenet_v2, "bench/models/mobilenet_v2.pte", false);
#if ETR_BENCH_OPTIMIZED
BENCHMARK_CAPTURE(BM_MethodLoad, transformer_optimized, "transformer.pte", true);
BENCHMARK_CAPTURE(BM_MethodLoad, mobilenet_v2_optimized, "bench/models/mobilenet_v2.pte", true);
BENCHMARK_CAPTURE(BM_MethodLoadArena, transformer_optimized, "transformer.pte", true);
BENCHMARK_CAPTURE(BM_MethodLoadArena, mobilenet_v2_optimized, "bench/models/mobilenet_v2.pte",
                  true);
#endif
BENCHMARK_CAPTURE(BM_Execute, no_constants, "no_constants.pte");
BENCHMARK_CAPTURE(BM_Execute, add_mul, "add_mul.pte");
BENCHMARK_CAPTURE(BM_Execute, op_chain, "op_chain.pte");

}  // namespace

BENCHMARK_MAIN();
