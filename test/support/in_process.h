// Runs the fixture manifest (test/models/manifest.txt) in-process through
// Program/Method, for runtime tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/tensor/host_tensor.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_load_options.h"
#include "runtime/executor/program.h"

namespace etr {
namespace testing {

struct FixtureCase {
  std::string line;  // "add_mul.pte:forward (manifest line 12)", for messages
  std::string pte;
  std::string method;
  std::vector<std::string> inputs;    // absolute paths
  std::vector<std::string> expected;  // absolute paths
  int executions = 1;
  double rtol = 1e-5;
  double atol = 1e-6;
  std::string expect_error;
  std::vector<std::string> data;  // external .ptd files (absolute paths)
};

std::string models_dir();
// The checks of `dir`/manifest.txt (default: test/models/), paths made absolute.
// Parsed by parse_manifest (fixtures.h); none when the file is missing or a
// line is malformed (the reason is printed to stderr), so every suite built
// on it asserts a minimum count (kMinManifestCases).
std::vector<FixtureCase> load_manifest(const std::string& dir = models_dir(),
                                       const std::string& file = "manifest.txt");
// Registers portable kernels and prim ops in the default registry once.
void register_all_kernels();

struct LoadedMethod {
  std::string error;
  void* program_bytes = nullptr;
  std::unique_ptr<BufferDataLoader> loader;
  std::unique_ptr<Program> program;
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> spans;
  std::vector<uint8_t> method_pool;
  std::vector<uint8_t> temp_pool;
  std::unique_ptr<MemoryAllocator> method_alloc;
  std::unique_ptr<MemoryAllocator> temp_alloc;
  std::unique_ptr<HierarchicalAllocator> planned_alloc;
  std::unique_ptr<MemoryManager> manager;
  std::unique_ptr<Method> method;
  std::vector<HostTensor> inputs;
  Error load_error = Error::Ok;
  ~LoadedMethod();
};

// Loads c.pte and c.method; false with lm->error / lm->load_error set on failure.
// `options` (may be null) chooses registries, pool and external data.
bool load_fixture_method(const FixtureCase& c, LoadedMethod* lm,
                         const MethodLoadOptions* options = nullptr);
// Reads the inputs and calls set_input for each.
bool set_fixture_inputs(const FixtureCase& c, LoadedMethod* lm);
// Compares every output with the expected files; returns "" when all match.
std::string compare_outputs(const FixtureCase& c, const Method& m);

}  // namespace testing
}  // namespace etr
