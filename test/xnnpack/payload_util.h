// Test helpers for crafting XNNPACK payloads from committed fixtures: a
// fixture loaded once per process, and its first delegate payload.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "runtime/executor/program.h"
#include "test/support/in_process.h"

namespace etr {
namespace testing {

struct LoadedFile {
  std::vector<uint8_t> bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::unique_ptr<Program> program;  // null when the file did not load (the test then fails)
};

// test/models/<relative>, read and loaded once; kept for the whole process.
inline const LoadedFile& load_fixture_once(const std::string& relative) {
  auto* f = new LoadedFile;
  std::ifstream in(models_dir() + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << "committed fixture missing: test/models/" << relative;
  f->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  f->loader = std::make_unique<BufferDataLoader>(f->bytes.data(), f->bytes.size());
  Result<Program> p = Program::load(f->loader.get());
  EXPECT_TRUE(p.ok()) << relative;
  if (p.ok()) f->program = std::make_unique<Program>(std::move(*p));
  return *f;
}

// The file's first XNNPACK payload: from its XH00 header to the end of the
// constant region the header records (empty when there is none).
inline std::vector<uint8_t> first_xnnpack_payload(const std::vector<uint8_t>& b) {
  for (size_t i = 0; i + 30 < b.size(); ++i) {
    if (std::memcmp(&b[i + 4], "XH00", 4) != 0) continue;
    uint32_t cd_off = 0;
    uint64_t cd_size = 0;
    std::memcpy(&cd_off, &b[i + 18], 4);
    std::memcpy(&cd_size, &b[i + 22], 8);
    const size_t end = i + cd_off + static_cast<size_t>(cd_size);
    if (end <= b.size()) return std::vector<uint8_t>(b.begin() + i, b.begin() + end);
  }
  return {};
}

}  // namespace testing
}  // namespace etr
