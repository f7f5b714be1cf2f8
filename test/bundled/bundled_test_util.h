// Helpers of the BundledProgram tests: aligned file bytes, a method loaded
// from the embedded program, running every test case.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "extension/bundled_program/bundled_program.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"
#include "test/support/in_process.h"

namespace etr {
namespace bundled_test {

// Bytes in 32-byte aligned heap memory (the alignment a .bpte needs).
class AlignedBytes {
 public:
  AlignedBytes() = default;
  AlignedBytes(const void* data, size_t size) : size_(size) {
    ptr_.reset(static_cast<uint8_t*>(std::aligned_alloc(32, (size + 32) / 32 * 32)));
    if (size != 0) std::memcpy(ptr_.get(), data, size);
  }
  explicit AlignedBytes(const std::vector<uint8_t>& v) : AlignedBytes(v.data(), v.size()) {}
  uint8_t* data() const { return ptr_.get(); }
  size_t size() const { return size_; }
  std::vector<uint8_t> vec() const { return std::vector<uint8_t>(data(), data() + size_); }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> ptr_;
  size_t size_ = 0;
};

inline std::string fixture_path(const std::string& name) {
  return std::string(ETR_SOURCE_DIR) + "/test/models/bundled/" + name;
}

// Empty (and a test failure naming the file) when it cannot be read.
inline AlignedBytes read_fixture(const std::string& name) {
  Result<std::string> s = testing::read_file(fixture_path(name));
  if (!s.ok()) {
    ADD_FAILURE() << "cannot read committed fixture " << fixture_path(name);
    return AlignedBytes();
  }
  return AlignedBytes(s->data(), s->size());
}

// The program inside a bundled file, and one method loaded from it with
// memory of its own. Does not take ownership of the bundled bytes.
struct LoadedBundle {
  std::unique_ptr<BufferDataLoader> loader;
  std::unique_ptr<Program> program;
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> spans;
  std::vector<uint8_t> method_pool = std::vector<uint8_t>(size_t{1} << 18);
  std::vector<uint8_t> temp_pool = std::vector<uint8_t>(size_t{1} << 18);
  std::vector<std::vector<uint64_t>> output_storage;
  std::unique_ptr<MemoryAllocator> method_alloc;
  std::unique_ptr<MemoryAllocator> temp_alloc;
  std::unique_ptr<HierarchicalAllocator> planned_alloc;
  std::unique_ptr<MemoryManager> manager;
  std::unique_ptr<Method> method;

  ~LoadedBundle() {
    method.reset();
    program.reset();
  }

  Error load_program(const BundledProgram& bp) {
    loader = std::make_unique<BufferDataLoader>(bp.program_data().data(), bp.program_data().size());
    Result<Program> p = Program::load(loader.get());
    if (!p.ok()) return p.error();
    program = std::make_unique<Program>(std::move(*p));
    return Error::Ok;
  }

  Error load_method(const char* name) {
    method.reset();
    Result<MethodMeta> meta = program->method_meta(name);
    if (!meta.ok()) return meta.error();
    planned.clear();
    spans.clear();
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      Result<int64_t> size = meta->memory_planned_buffer_size(i);
      if (!size.ok()) return size.error();
      if (*size < 0 || *size > (int64_t{1} << 26)) {
        ETR_FAIL(Error::InvalidProgram, "test: planned buffer %zu of %lld bytes is not allocated",
                 i, static_cast<long long>(*size));
      }
      planned.emplace_back(static_cast<size_t>(*size));
    }
    for (auto& b : planned) spans.emplace_back(b.data(), b.size());
    method_alloc = std::make_unique<MemoryAllocator>(method_pool.data(), method_pool.size());
    temp_alloc = std::make_unique<MemoryAllocator>(temp_pool.data(), temp_pool.size());
    planned_alloc =
        std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans.data(), spans.size()));
    manager =
        std::make_unique<MemoryManager>(method_alloc.get(), planned_alloc.get(), temp_alloc.get());
    Result<Method> m = program->load_method(name, manager.get());
    if (!m.ok()) return m.error();
    method = std::make_unique<Method>(std::move(*m));
    return bind_outputs();
  }

  // Heap memory for every tensor output the program did not plan.
  Error bind_outputs() {
    const MethodMeta meta = method->method_meta();
    for (size_t i = 0; i < method->outputs_size(); ++i) {
      const EValue& out = method->get_output(i);
      if (!out.is_tensor() || out.to_tensor().mutable_data() != nullptr) continue;
      Result<TensorInfo> info = meta.output_tensor_meta(i);
      if (!info.ok()) return info.error();
      if (info->is_memory_planned) continue;
      output_storage.emplace_back(info->nbytes / 8 + 1);
      const Error err =
          method->set_output_data_ptr(output_storage.back().data(), info->nbytes + 8, i);
      if (err != Error::Ok) return err;
    }
    return Error::Ok;
  }
};

// Loads inputs of case `c`, executes and compares.
inline Result<BundledComparison> run_case(const BundledProgram& bp, Method& method, size_t c,
                                          double rtol, double atol) {
  const Error in = bp.load_inputs(method, c);
  if (in != Error::Ok) return in;
  const Error ex = method.execute();
  if (ex != Error::Ok) return ex;
  return bp.compare_outputs(method, c, rtol, atol);
}

// Loads `bytes` and runs every test case of every suite; the first error
// (Ok when all ran; mismatches are not errors). `cases`/`passed` count.
// With `execute` false, methods are loaded but no case is run.
inline Error run_everything(const AlignedBytes& bytes, size_t* cases = nullptr,
                            size_t* passed = nullptr, bool execute = true) {
  Result<BundledProgram> bp = BundledProgram::load(bytes.data(), bytes.size());
  if (!bp.ok()) return bp.error();
  LoadedBundle lb;
  ETR_RETURN_IF_ERROR(lb.load_program(*bp));
  Error first = Error::Ok;
  for (size_t s = 0; s < bp->num_suites(); ++s) {
    const char* name = *bp->suite_method_name(s);
    Error err = lb.load_method(name);
    if (err == Error::Ok) {
      Result<size_t> n = bp->num_test_cases(name);
      for (size_t c = 0; execute && n.ok() && c < *n; ++c) {
        Result<BundledComparison> r = run_case(*bp, *lb.method, c, 1e-5, 1e-6);
        if (cases != nullptr) ++*cases;
        if (r.ok() && r->passed && passed != nullptr) ++*passed;
        if (!r.ok() && first == Error::Ok) first = r.error();
      }
    } else if (first == Error::Ok) {
      first = err;
    }
  }
  return first;
}

}  // namespace bundled_test
}  // namespace etr
