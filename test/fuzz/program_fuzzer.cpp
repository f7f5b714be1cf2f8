// libFuzzer harness: arbitrary bytes -> Program::load -> load_method ->
// set inputs -> execute, with every kernel library registered (the optimized
// one included when built, so kernel fusion is exercised too).
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if ETR_HAVE_OPTIMIZED_KERNELS
#include "kernels/optimized/optimized_kernels.h"
#include "runtime/kernel/registry.h"
#endif
#include "runtime/platform/platform.h"
#include "test/support/exercise.h"
#include "test/support/in_process.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool initialised = [] {
    etr::PlatformHooks hooks{};
    hooks.log = [](etr::LogLevel, const char*, int, const char*) {};
    etr::set_platform_hooks(hooks);
    etr::testing::register_all_kernels();
#if ETR_HAVE_OPTIMIZED_KERNELS
    // Above the portable kernels, as in the runner: optimized kernels and fusion.
    (void)etr::register_kernels(etr::optimized_kernel_library());
#endif
    return true;
  }();
  (void)initialised;
  // The runtime requires 16-byte-aligned program bytes.
  void* copy = std::aligned_alloc(16, (size + 16) & ~size_t{15});
  if (size != 0) std::memcpy(copy, data, size);
  etr::testing::ExerciseStats stats;
  etr::testing::exercise_program(static_cast<const uint8_t*>(copy), size, &stats);
  std::free(copy);
  return 0;
}
