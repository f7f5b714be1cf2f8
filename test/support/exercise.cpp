#include "test/support/exercise.h"

#include <memory>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/tensor/host_tensor.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace etr {
namespace testing {
namespace {

// Bounds keep one hostile program's compute small (a fuzzer input must not
// look like a hang just because it asks for a legitimately huge computation).
constexpr size_t kMaxPlannedBytes = 256 << 10;
constexpr size_t kMaxInputBytes = 256 << 10;
constexpr size_t kMaxInstructions = 100000;

void exercise_method(const Program& program, const char* name, ExerciseStats* stats) {
  Result<MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) {
    ++stats->errors;
    return;
  }
  std::vector<std::vector<uint8_t>> planned;
  size_t total = 0;
  for (size_t i = 0; i < meta->num_memory_planned_buffers() && i < 64; ++i) {
    Result<int64_t> size = meta->memory_planned_buffer_size(i);
    const size_t n = size.ok() ? static_cast<size_t>(*size) : 0;
    if (n > kMaxPlannedBytes || total + n > kMaxPlannedBytes) break;  // let load_method refuse it
    total += n;
    planned.emplace_back(n);
  }
  std::vector<Span<uint8_t>> spans;
  for (auto& b : planned) spans.emplace_back(b.data(), b.size());
  std::vector<uint8_t> method_pool(1 << 20);
  std::vector<uint8_t> temp_pool(1 << 20);
  MemoryAllocator method_alloc(method_pool.data(), method_pool.size());
  MemoryAllocator temp_alloc(temp_pool.data(), temp_pool.size());
  HierarchicalAllocator planned_alloc(Span<Span<uint8_t>>(spans.data(), spans.size()));
  MemoryManager mm(&method_alloc, &planned_alloc, &temp_alloc);
  Result<Method> method = program.load_method(name, &mm);
  if (!method.ok()) {
    ++stats->errors;
    return;
  }
  ++stats->methods_loaded;
  method->set_max_instructions(kMaxInstructions);
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    const EValue& declared = method->get_input(i);
    if (!declared.is_tensor()) {
      (void)method->set_input(declared, i);
      continue;
    }
    const Tensor& t = declared.to_tensor();
    if (t.nbytes() > kMaxInputBytes) continue;
    std::vector<int32_t> sizes(t.sizes().begin(), t.sizes().end());
    std::vector<uint8_t> order(t.dim_order().begin(), t.dim_order().end());
    Result<HostTensor> h = HostTensor::zeros(t.dtype(), sizes, order);
    if (!h.ok()) continue;
    (void)h->fill_ones();
    inputs.push_back(std::move(*h));
    (void)method->set_input(inputs.back().tensor(), i);
  }
  if (method->execute() == Error::Ok) {
    ++stats->executions_ok;
  } else {
    ++stats->errors;
  }
}

}  // namespace

void exercise_program(const uint8_t* data, size_t size, ExerciseStats* stats) {
  BufferDataLoader loader(data, size);
  exercise_loader(&loader, stats);
}

void exercise_loader(DataLoader* loader, ExerciseStats* stats) {
  Result<Program> program = Program::load(loader);
  if (!program.ok()) {
    ++stats->errors;
    return;
  }
  ++stats->programs_loaded;
  for (size_t i = 0; i < program->num_methods() && i < 16; ++i) {
    Result<const char*> name = program->get_method_name(i);
    if (!name.ok()) {
      ++stats->errors;
      continue;
    }
    exercise_method(*program, *name, stats);
  }
}

}  // namespace testing
}  // namespace etr
