// Drives arbitrary bytes through the whole runtime: Program::load, then for
// every method load_method, set every input, execute. Used by the malformed-
// input tests and the program fuzzer. Never asserts: any Error is a valid
// outcome; only crashes, hangs and sanitizer reports are bugs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/data_loader.h"
#include "runtime/core/error.h"

namespace etr {
namespace testing {

struct ExerciseStats {
  size_t programs_loaded = 0;
  size_t methods_loaded = 0;
  size_t executions_ok = 0;
  size_t errors = 0;
};

// `data` must be 16-byte aligned. Kernels must already be registered.
void exercise_program(const uint8_t* data, size_t size, ExerciseStats* stats);
// The same through any data loader (e.g. the mmap loader over a file).
void exercise_loader(DataLoader* loader, ExerciseStats* stats);

}  // namespace testing
}  // namespace etr
