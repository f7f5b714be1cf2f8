// libFuzzer harness for the .bpte reader: arbitrary bytes -> BundledProgram,
// then the embedded program, every suite's method and every test case
// (inputs, execute, output comparison).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "extension/bundled_program/bundled_program.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"

namespace {

constexpr size_t kMaxPlanned = size_t{1} << 24;  // per buffer; larger plans are skipped
constexpr size_t kPool = size_t{1} << 20;

// Loads `name` with fresh memory and runs every test case on it.
void run_suite(const etr::BundledProgram& bp, const etr::Program& program, const char* name) {
  etr::Result<etr::MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) return;
  std::vector<std::vector<uint8_t>> planned;
  std::vector<etr::Span<uint8_t>> spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    etr::Result<int64_t> size = meta->memory_planned_buffer_size(i);
    if (!size.ok() || *size < 0 || static_cast<uint64_t>(*size) > kMaxPlanned) return;
    planned.emplace_back(static_cast<size_t>(*size));
  }
  for (auto& b : planned) spans.emplace_back(b.data(), b.size());
  std::vector<uint8_t> method_pool(kPool);
  std::vector<uint8_t> temp_pool(kPool);
  etr::MemoryAllocator method_alloc(method_pool.data(), method_pool.size());
  etr::MemoryAllocator temp_alloc(temp_pool.data(), temp_pool.size());
  etr::HierarchicalAllocator planned_alloc(
      etr::Span<etr::Span<uint8_t>>(spans.data(), spans.size()));
  etr::MemoryManager manager(&method_alloc, &planned_alloc, &temp_alloc);
  etr::MethodLoadOptions options;
  options.max_instructions = 100000;
  etr::Result<etr::Method> method = program.load_method(name, &manager, options);
  if (!method.ok()) return;
  etr::Result<size_t> cases = bp.num_test_cases(name);
  for (size_t c = 0; cases.ok() && c < *cases; ++c) {
    if (bp.load_inputs(*method, c) != etr::Error::Ok) continue;
    if (method->execute() != etr::Error::Ok) continue;
    (void)bp.compare_outputs(*method, c, 1e-5, 1e-8);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Rejections are logged; drop the messages so stderr does not slow the run.
  static bool initialised = [] {
    etr::PlatformHooks hooks{};
    hooks.log = [](etr::LogLevel, const char*, int, const char*) {};
    etr::set_platform_hooks(hooks);
    (void)etr::register_kernels(etr::portable_kernel_library());
    (void)etr::register_kernels(etr::prim_ops_library());
    return true;
  }();
  (void)initialised;
  // The reader needs aligned bytes; a copy also gives ASan exact bounds.
  void* copy = std::aligned_alloc(32, (size + 32) & ~size_t{31});
  if (size != 0) std::memcpy(copy, data, size);
  {
    etr::Result<etr::BundledProgram> bp = etr::BundledProgram::load(copy, size);
    if (bp.ok()) {
      (void)bp->suite_method_name(bp->num_suites());  // one past the end must fail cleanly
      etr::BufferDataLoader loader(bp->program_data().data(), bp->program_data().size());
      etr::Result<etr::Program> program = etr::Program::load(&loader);
      for (size_t s = 0; program.ok() && s < bp->num_suites(); ++s) {
        run_suite(*bp, *program, *bp->suite_method_name(s));
      }
    }
  }
  std::free(copy);
  return 0;
}
