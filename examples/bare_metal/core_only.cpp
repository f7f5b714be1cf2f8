// Footprint probe for the bare-metal core alone: platform, core, executor and the
// buffer loader, no kernels. Loads the embedded program and its method (which fails
// with OperatorMissing: no kernel is registered) and exits 0 when that is what happened.
#include "extension/data_loader/buffer_data_loader.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

extern const unsigned char kModelPte[];
extern const size_t kModelPte_size;

namespace {
alignas(16) uint8_t g_method_arena[8 * 1024];
alignas(16) uint8_t g_planned[16 * 1024];
}  // namespace

int main() {
  etr::BufferDataLoader loader(kModelPte, kModelPte_size);
  etr::Result<etr::Program> program = etr::Program::load(&loader);
  if (!program.ok()) return 2;
  etr::Span<uint8_t> buffer(g_planned, sizeof(g_planned));
  etr::HierarchicalAllocator planned(etr::Span<etr::Span<uint8_t>>(&buffer, 1));
  etr::MemoryAllocator method_allocator(g_method_arena, sizeof(g_method_arena));
  etr::MemoryManager memory(&method_allocator, &planned);
  etr::Result<etr::Method> method = program->load_method("forward", &memory);
  return !method.ok() && method.error() == etr::Error::OperatorMissing ? 0 : 1;
}
