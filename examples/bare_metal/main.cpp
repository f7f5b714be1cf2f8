// Bare-metal example: runs a keyword-spotting-sized CNN embedded in flash with
// static arenas, compares its output with PyTorch's and prints it with the cycle
// count. Exit status (semihosting): 0 when the output matches.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "examples/bare_metal/model/kws_cnn_reference.h"
#include "examples/bare_metal/selected_kernels.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "kernels/portable/activation.h"
#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/pooling.h"
#include "kernels/portable/shape.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/bare_metal.h"

extern const unsigned char kModelPte[];
extern const size_t kModelPte_size;

namespace {

// The model's operators (the header lists them; load fails naming any other).
constexpr const char* kOperators[] = {"aten::addmm.out", "aten::convolution.out",
                                      "aten::max_pool2d_with_indices.out", "aten::permute_copy.out",
                                      "aten::relu.out"};
constexpr auto kKernels =
    etr_example::select_kernels(kOperators, etr::kActivationKernels, etr::kLinearAlgebraKernels,
                                etr::kPoolingKernels, etr::kShapeKernels);

// Static arenas: the planned buffers exactly as the program's plan says; the method
// allocator as MethodMeta::method_allocator_bytes() measures it on a host with the same
// kernels (it needs a heap, which this target lacks), rounded up; 64-byte aligned as that
// figure assumes. load_method fails, naming what did not fit, when it is too small.
alignas(16) uint8_t g_planned[model::kPlannedBytes];
alignas(64) uint8_t g_method_arena[8 * 1024];
alignas(16) uint8_t g_temp_arena[1024];

void print(const char* text) { etr::bare_metal::semihosting_write(text); }

// Prints v with 6 decimals without printf's float support (not linked).
void print_float(float v) {
  char text[32];
  const long scaled = std::lround(std::fabs(v) * 1e6f);
  std::snprintf(text, sizeof(text), "%s%ld.%06ld", v < 0.0f ? "-" : "", scaled / 1000000,
                scaled % 1000000);
  print(text);
}

int fail(const char* what) {
  print("FAIL: ");
  print(what);
  print("\n");
  return 1;
}

}  // namespace

int main() {
  char line[160];
  const etr::bare_metal::CycleSource source = etr::bare_metal::start_cycle_counter();
  if (etr::register_kernels({"kws", etr::kPortablePriority, {kKernels.data(), kKernels.size()}}) !=
      etr::Error::Ok) {
    return fail("register_kernels");
  }
  etr::BufferDataLoader loader(kModelPte, kModelPte_size);
  etr::Result<etr::Program> program = etr::Program::load(&loader);
  if (!program.ok()) return fail("Program::load");
  etr::Result<etr::MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok()) return fail("method_meta");
  if (meta->num_memory_planned_buffers() != model::kNumPlannedBuffers) return fail("plan");
  etr::Span<uint8_t> buffers[model::kNumPlannedBuffers];
  size_t offset = 0;
  for (size_t i = 0; i < model::kNumPlannedBuffers; ++i) {
    etr::Result<int64_t> size = meta->memory_planned_buffer_size(i);
    if (!size.ok() || static_cast<size_t>(*size) != model::kPlannedBufferBytes[i]) {
      return fail("planned buffer size differs from the header");
    }
    buffers[i] = etr::Span<uint8_t>(g_planned + offset, model::kPlannedBufferBytes[i]);
    offset += model::kPlannedBufferBytes[i];
  }
  etr::HierarchicalAllocator planned(
      etr::Span<etr::Span<uint8_t>>(buffers, model::kNumPlannedBuffers));
  etr::MemoryAllocator method_allocator(g_method_arena, sizeof(g_method_arena));
  etr::MemoryAllocator temp_allocator(g_temp_arena, sizeof(g_temp_arena));
  etr::MemoryManager memory(&method_allocator, &planned, &temp_allocator);

  const uint64_t load_start = etr::bare_metal::cycle_count();
  etr::Result<etr::Method> method = program->load_method("forward", &memory);
  if (!method.ok()) return fail("load_method");
  const uint64_t load_cycles = etr::bare_metal::cycle_count() - load_start;

  etr::Tensor& input = method->get_input(0).to_tensor();
  if (input.nbytes() != sizeof(model::kInput)) return fail("input size");
  std::memcpy(input.data_ptr<float>(), model::kInput, sizeof(model::kInput));
  if (method->set_input(method->get_input(0), 0) != etr::Error::Ok) return fail("set_input");
  const uint64_t start = etr::bare_metal::cycle_count();
  if (method->execute() != etr::Error::Ok) return fail("execute");
  const uint64_t cycles = etr::bare_metal::cycle_count() - start;

  const etr::Tensor& out = method->get_output(0).to_tensor();
  constexpr size_t kClasses = sizeof(model::kExpected) / sizeof(float);
  if (static_cast<size_t>(out.numel()) != kClasses) return fail("output size");
  const float* got = out.const_data_ptr<float>();
  bool match = true;
  print("output:   ");
  for (size_t i = 0; i < kClasses; ++i) {
    print_float(got[i]);
    print(i + 1 < kClasses ? " " : "\n");
    // Tolerance as the fixture suite: |got - expected| <= 1e-5 + 1e-4 * |expected|.
    if (!(std::fabs(got[i] - model::kExpected[i]) <=
          1e-5f + 1e-4f * std::fabs(model::kExpected[i]))) {
      match = false;
    }
  }
  print("expected: ");
  for (size_t i = 0; i < kClasses; ++i) {
    print_float(model::kExpected[i]);
    print(i + 1 < kClasses ? " " : "\n");
  }
  std::snprintf(
      line, sizeof(line), "kernels linked: %u; method arena: %u of %u bytes; planned: %u bytes\n",
      static_cast<unsigned>(kKernels.size()), static_cast<unsigned>(method_allocator.used()),
      static_cast<unsigned>(sizeof(g_method_arena)), static_cast<unsigned>(model::kPlannedBytes));
  print(line);
  std::snprintf(line, sizeof(line), "cycles: load_method %lu, execute %lu (%s)\n",
                static_cast<unsigned long>(load_cycles), static_cast<unsigned long>(cycles),
                etr::bare_metal::to_string(source));
  print(line);
  print(match ? "PASS: output matches PyTorch\n" : "FAIL: output differs from PyTorch\n");
  return match ? 0 : 1;
}
