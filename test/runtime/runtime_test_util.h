// Shared helpers for runtime tests: fixture paths, aligned file bytes and a
// heap-backed MemoryManager sized from a method's metadata.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/memory_allocator.h"
#include "runtime/executor/program.h"

namespace etr {
namespace testing {

// The .pte fixtures of test/models that the program and contract tests load
// and the malformed-input sweep mutates (a fixed set, not every fixture).
constexpr const char* kFixtureFiles[] = {"add_mul.pte",
                                         "linear.pte",
                                         "mlp.pte",
                                         "cnn.pte",
                                         "softmax.pte",
                                         "transformer.pte",
                                         "transformer_nn.pte",
                                         "mutable_buffer.pte",
                                         "two_methods.pte",
                                         "dynamic_shape.pte",
                                         "cond.pte",
                                         "int_bool_mix.pte",
                                         "add_xnnpack.pte",
                                         "no_constants.pte",
                                         "legacy_constants.pte"};
static_assert(sizeof(kFixtureFiles) / sizeof(kFixtureFiles[0]) >= 15, "fixture list lost entries");

inline std::string model_path(const std::string& name) {
  return std::string(ETR_SOURCE_DIR) + "/test/models/" + name;
}

// File contents in a 16-byte-aligned buffer.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(size_t n)
      : size_(n), data_(static_cast<uint8_t*>(std::aligned_alloc(64, round(n)))) {}
  AlignedBytes(AlignedBytes&& o) noexcept : size_(o.size_), data_(o.data_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  AlignedBytes& operator=(AlignedBytes&& o) noexcept {
    std::swap(size_, o.size_);
    std::swap(data_, o.data_);
    return *this;
  }
  ~AlignedBytes() { std::free(data_); }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  void truncate(size_t n) { size_ = n < size_ ? n : size_; }

 private:
  static size_t round(size_t n) { return ((n == 0 ? 1 : n) + 63) / 64 * 64; }
  size_t size_ = 0;
  uint8_t* data_ = nullptr;
};

// Empty (and a test failure naming the file) when it cannot be read. Not
// named read_file: test/support/fixtures.h has a read_file with the same
// parameters, and the linker would take either for the other.
inline AlignedBytes read_aligned_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f.good()) {
    ADD_FAILURE() << "cannot open " << path;
    return AlignedBytes();
  }
  const size_t n = static_cast<size_t>(f.tellg());
  AlignedBytes out(n);
  f.seekg(0);
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  return out;
}

// Owns every buffer a method needs; sizes planned buffers from MethodMeta.
class TestMemory {
 public:
  explicit TestMemory(const MethodMeta& meta, size_t method_bytes = 1 << 20,
                      size_t temp_bytes = 1 << 20)
      : method_pool_(method_bytes), temp_pool_(temp_bytes) {
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      Result<int64_t> size = meta.memory_planned_buffer_size(i);
      EXPECT_TRUE(size.ok());
      planned_.emplace_back(static_cast<size_t>(size.ok() ? *size : 0));
    }
    for (auto& b : planned_) spans_.emplace_back(b.data(), b.size());
    method_alloc_ = std::make_unique<MemoryAllocator>(method_pool_.data(), method_pool_.size());
    temp_alloc_ = std::make_unique<MemoryAllocator>(temp_pool_.data(), temp_pool_.size());
    planned_alloc_ = HierarchicalAllocator(Span<Span<uint8_t>>(spans_.data(), spans_.size()));
    manager_ =
        std::make_unique<MemoryManager>(method_alloc_.get(), &planned_alloc_, temp_alloc_.get());
  }
  MemoryManager* manager() { return manager_.get(); }
  MemoryAllocator* method_allocator() { return method_alloc_.get(); }

 private:
  std::vector<uint8_t> method_pool_;
  std::vector<uint8_t> temp_pool_;
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<Span<uint8_t>> spans_;
  std::unique_ptr<MemoryAllocator> method_alloc_;
  std::unique_ptr<MemoryAllocator> temp_alloc_;
  HierarchicalAllocator planned_alloc_;
  std::unique_ptr<MemoryManager> manager_;
};

}  // namespace testing
}  // namespace etr
