// Method-load time of the OFFICIAL runtime's C++ library (the pip executorch
// wheel's libexecutorch.so, with every kernel library the wheel's Python
// runtime registers), for comparison with framework_tax_bench's
// BM_MethodLoad on the same files. Tooling only: built by
// bench/official_method_load.sh against an installed wheel, never part of
// the project's build.
//
// Per file: loads the program once, then times Program::load_method("forward")
// 2000 times into a fresh MemoryManager (the planned buffers are allocated
// once, outside the timing, as framework_tax_bench does) and prints the
// minimum and median.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

namespace et = executorch::runtime;

int main(int argc, char** argv) {
  et::runtime_init();
  int status = 0;
  for (int a = 1; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    executorch::extension::BufferDataLoader loader(bytes.data(), bytes.size());
    auto program = et::Program::load(&loader);
    if (!program.ok()) {
      std::printf("%s: program load failed (error 0x%x)\n", argv[a],
                  static_cast<unsigned>(program.error()));
      status = 1;
      continue;
    }
    auto meta = program->method_meta("forward");
    if (!meta.ok()) {
      std::printf("%s: no method 'forward'\n", argv[a]);
      status = 1;
      continue;
    }
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<et::Span<uint8_t>> spans;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& b : buffers) spans.emplace_back(b.data(), b.size());
    et::HierarchicalAllocator planned({spans.data(), spans.size()});
    std::vector<uint8_t> pool(size_t{64} << 20);
    std::vector<double> us;
    for (int r = 0; r < 2000; ++r) {
      et::MemoryAllocator method_alloc(static_cast<uint32_t>(pool.size()), pool.data());
      et::MemoryManager mm(&method_alloc, &planned);
      const auto t0 = std::chrono::steady_clock::now();
      auto method = program->load_method("forward", &mm);
      const auto t1 = std::chrono::steady_clock::now();
      if (!method.ok()) {
        std::printf("%s: load_method failed (error 0x%x)\n", argv[a],
                    static_cast<unsigned>(method.error()));
        status = 1;
        break;
      }
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    if (us.empty()) continue;
    std::sort(us.begin(), us.end());
    std::printf("%-40s official load_method min %9.3f us  median %9.3f us  (%zu runs)\n", argv[a],
                us.front(), us[us.size() / 2], us.size());
  }
  return status;
}
