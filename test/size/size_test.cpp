// Minimal application for measuring the runtime's footprint: core, executor,
// platform and the file loader, with no kernels and no prim ops. It loads a
// program, loads a method and executes it (a method with no kernel calls runs;
// others fail cleanly at load with OperatorMissing).
#include <cstdio>

#include "extension/data_loader/file_data_loader.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace {
alignas(16) uint8_t g_method_pool[64 * 1024];
alignas(16) uint8_t g_planned_pool[256 * 1024];
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.pte [METHOD]\n", argv[0]);
    return 1;
  }
  etr::Result<etr::FileDataLoader> loader = etr::FileDataLoader::from(argv[1]);
  if (!loader.ok()) return 2;
  etr::Result<etr::Program> program = etr::Program::load(&*loader);
  if (!program.ok()) return 3;
  const char* name = argc > 2 ? argv[2] : "forward";
  etr::Result<etr::MethodMeta> meta = program->method_meta(name);
  if (!meta.ok()) return 4;
  etr::Span<uint8_t> buffers[4];
  size_t used = 0, n = 0;
  for (; n < meta->num_memory_planned_buffers() && n < 4; ++n) {
    const size_t size = static_cast<size_t>(*meta->memory_planned_buffer_size(n));
    if (used + size > sizeof(g_planned_pool)) return 5;
    buffers[n] = etr::Span<uint8_t>(g_planned_pool + used, size);
    used += size;
  }
  etr::HierarchicalAllocator planned(etr::Span<etr::Span<uint8_t>>(buffers, n));
  etr::MemoryAllocator method_alloc(g_method_pool, sizeof(g_method_pool));
  etr::MemoryManager memory(&method_alloc, &planned);
  etr::Result<etr::Method> method = program->load_method(name, &memory);
  if (!method.ok()) return 6;
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    if (method->set_input(method->get_input(i), i) != etr::Error::Ok) return 7;
  }
  const etr::Error err = method->execute();
  std::printf("execute: %s, %zu outputs\n", etr::to_string(err), method->outputs_size());
  return err == etr::Error::Ok ? 0 : 8;
}
