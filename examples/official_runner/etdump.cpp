// An app written only against the official ExecuTorch C++ API that profiles
// with ETDumpGen, as the official runners do: loads MODEL.pte with an
// ETDumpGen as the method's EventTracer (debug buffer, intermediate outputs
// logged), runs it on IN.npy, writes OUT.etdp and OUT.bin (the debug
// buffer, whole) for the Python Inspector, and checks the ETDump's framing
// ("ED00", size prefix), the block count and that the debug buffer holds
// output 0 as EXPECTED.npy (float32). Exit 0 when every check passes.
//   official_etdump MODEL.pte IN.npy EXPECTED.npy OUT.etdp OUT.bin
#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/devtools/etdump/utils.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

using executorch::etdump::BufferDataSink;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::extension::FileDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                                \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

std::vector<char> npy_data(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 10) return {};
  const size_t start = 10 + static_cast<uint8_t>(b[8]) + 256 * static_cast<uint8_t>(b[9]);
  return std::vector<char>(b.begin() + static_cast<std::ptrdiff_t>(std::min(start, b.size())),
                           b.end());
}

bool write_file(const char* path, const void* data, size_t size) {
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

static uint8_t method_allocator_pool[4 * 1024U * 1024U];
static uint8_t temp_allocator_pool[1024U * 1024U];
alignas(64) static uint8_t debug_buffer[1024U * 1024U];

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s MODEL.pte IN.npy EXPECTED.npy OUT.etdp OUT.bin\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  std::vector<char> input = npy_data(argv[2]);
  const std::vector<char> expected = npy_data(argv[3]);

  // The data sinks and helpers of the official API.
  EXPECT(BufferDataSink::create(debug_buffer, sizeof(debug_buffer), 3).error() ==
         Error::InvalidArgument);
  EXPECT(executorch::etdump::internal::align_pointer(debug_buffer + 1, 64) == debug_buffer + 64);
  EXPECT(executorch::etdump::FileDataSink::create("/nonexistent/dir/x.bin").error() ==
         Error::AccessFailed);

  Result<FileDataLoader> loader = FileDataLoader::from(argv[1]);
  EXPECT(loader.ok());
  if (!loader.ok()) return 1;
  Result<Program> program = Program::load(&loader.get());
  EXPECT(program.ok());
  if (!program.ok()) return 1;
  Result<MethodMeta> meta = program->method_meta("forward");
  EXPECT(meta.ok());
  if (!meta.ok()) return 1;
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
  std::vector<Span<uint8_t>> spans;
  for (size_t id = 0; id < meta->num_memory_planned_buffers(); ++id) {
    const size_t size = static_cast<size_t>(meta->memory_planned_buffer_size(id).get());
    buffers.push_back(std::make_unique<uint8_t[]>(size));
    spans.push_back({buffers.back().get(), size});
  }
  HierarchicalAllocator planned(Span<Span<uint8_t>>(spans.data(), spans.size()));
  MemoryAllocator method_allocator(sizeof(method_allocator_pool), method_allocator_pool);
  MemoryAllocator temp_allocator(sizeof(temp_allocator_pool), temp_allocator_pool);
  MemoryManager memory_manager(&method_allocator, &planned, &temp_allocator);

  ETDumpGen etdump;
  EXPECT(!etdump.is_static_etdump());
  EXPECT(etdump.set_debug_buffer(Span<uint8_t>(debug_buffer, sizeof(debug_buffer))).ok());
  etdump.set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  Result<Method> method = program->load_method("forward", &memory_manager, &etdump);
  EXPECT(method.ok());
  if (!method.ok()) return 1;
  EXPECT(method->get_event_tracer() == &etdump);
  EXPECT(etdump.get_num_blocks() == 1);  // the load

  std::vector<std::pair<char*, size_t>> inputs = {{input.data(), input.size()}};
  auto prepared = executorch::extension::prepare_input_tensors(*method, {}, inputs);
  EXPECT(prepared.ok());
  EXPECT(method->execute() == Error::Ok);
  EXPECT(etdump.get_num_blocks() == 2);

  // Output 0 is PyTorch's value, in the method and in the debug buffer
  // (the last blob the data sink stored is the logged program output).
  const EValue& out = method->get_output(0);
  EXPECT(out.isTensor() && static_cast<size_t>(out.toTensor().nbytes()) == expected.size());
  const size_t used = etdump.get_data_sink()->get_used_bytes();
  EXPECT(used >= expected.size());
  float worst = 0;
  for (size_t i = 0; used >= expected.size() && i < expected.size() / sizeof(float); ++i) {
    float want, logged;
    std::memcpy(&want, expected.data() + i * sizeof(float), sizeof(float));
    std::memcpy(&logged, debug_buffer + used - expected.size() + i * sizeof(float), sizeof(float));
    worst = std::fmax(worst, std::fabs(logged - want));
  }
  std::printf("official etdump: logged output 0 within %g of PyTorch's\n",
              static_cast<double>(worst));
  EXPECT(worst <= 1e-5f);

  ETDumpResult result = etdump.get_etdump_data();
  EXPECT(result.buf != nullptr && result.size > 12);
  if (result.buf == nullptr) return 1;
  uint32_t prefix = 0;
  std::memcpy(&prefix, result.buf, 4);
  EXPECT(prefix == result.size - 4);
  EXPECT(std::memcmp(static_cast<const char*>(result.buf) + 8, "ED00", 4) == 0);
  EXPECT(write_file(argv[4], result.buf, result.size));
  EXPECT(write_file(argv[5], debug_buffer, sizeof(debug_buffer)));
  std::free(result.buf);
  // A new ETDump starts after get_etdump_data.
  EXPECT(etdump.get_num_blocks() == 0);
  std::printf("official etdump: %s written\n", argv[4]);
  return g_failures == 0 ? 0 : 1;
}
