// An ETDumpGen given to the official Module (extension/compat) records the
// method's load and every execute exactly as one given to
// Program::load_method does; a tracer given to load_method takes precedence.
// The ETDump is parsed with the reader generated from devtools/etdump/etdump.fbs;
// the logged output is checked against PyTorch's (fixture .npy).
#define ET_EVENT_TRACER_ENABLED 1
#include <gtest/gtest.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "devtools/etdump/etdump_generated.h"

namespace {

namespace fb = ::etdump;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::extension::FileDataLoader;
using executorch::extension::from_blob;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Span;

const std::string kModels = std::string(ETR_SOURCE_DIR) + "/test/models/";

// The data of a version-1 .npy file.
std::vector<char> npy_data(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 10) return {};
  const size_t start = 10 + static_cast<uint8_t>(b[8]) + 256 * static_cast<uint8_t>(b[9]);
  return std::vector<char>(b.begin() + static_cast<std::ptrdiff_t>(std::min(start, b.size())),
                           b.end());
}

const fb::ETDump* parse(const ETDumpResult& r) {
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(r.buf), r.size);
  EXPECT_TRUE(fb::VerifySizePrefixedETDumpBuffer(verifier));
  return fb::GetSizePrefixedETDump(r.buf);
}

// (kind, name, chain, instruction) of each event of a block: what must be
// the same in two ETDumps of the same run (times and offsets are not).
using EventKey = std::tuple<char, std::string, uint64_t, int64_t>;
std::vector<EventKey> keys(const fb::RunData* block) {
  std::vector<EventKey> out;
  for (const fb::Event* e : *block->events()) {
    if (const fb::ProfileEvent* p = e->profile_event()) {
      out.emplace_back('p', p->name() == nullptr ? "" : p->name()->str(),
                       static_cast<uint64_t>(p->chain_index()), p->instruction_id());
    } else if (const fb::DebugEvent* d = e->debug_event()) {
      out.emplace_back('d', "", d->chain_index(), d->instruction_id());
    } else {
      out.emplace_back('?', "", 0, 0);
    }
  }
  return out;
}

// The logged program output of an Execute block (its last event) equals mlp's reference.
void expect_logged_output(const fb::RunData* block, const uint8_t* debug) {
  const fb::DebugEvent* out = block->events()->Get(block->events()->size() - 1)->debug_event();
  ASSERT_NE(out, nullptr);
  ASSERT_NE(out->debug_entry()->output(), nullptr);
  const std::vector<char> want = npy_data(kModels + "mlp/a_out0.npy");
  ASSERT_EQ(want.size(), 8 * sizeof(float));
  const int64_t offset = out->debug_entry()->tensor()->offset();
  ASSERT_GE(offset, 0);
  for (size_t i = 0; i < 8; ++i) {
    float w, got;
    std::memcpy(&w, want.data() + 4 * i, 4);
    std::memcpy(&got, debug + offset + 4 * i, 4);
    EXPECT_NEAR(got, w, 1e-5) << i;
  }
}

TEST(OfficialModuleETDumpTest, ModuleTracerRecordsAsProgramLoadMethodDoes) {
  executorch::runtime::runtime_init();
  std::vector<char> input = npy_data(kModels + "mlp/a_in0.npy");
  ASSERT_EQ(input.size(), 16 * sizeof(float));

  // The reference: mlp loaded with Program::load_method and run once.
  alignas(64) static uint8_t reference_debug[1 << 16];
  ETDumpGen reference;
  ASSERT_TRUE(
      reference.set_debug_buffer(Span<uint8_t>(reference_debug, sizeof(reference_debug))).ok());
  reference.set_event_tracer_debug_level(EventTracerDebugLogLevel::kProgramOutputs);
  {
    auto loader = FileDataLoader::from((kModels + "mlp.pte").c_str());
    ASSERT_TRUE(loader.ok());
    auto program = Program::load(&*loader);
    ASSERT_TRUE(program.ok());
    auto meta = program->method_meta("forward");
    ASSERT_TRUE(meta.ok());
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<Span<uint8_t>> spans;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
      spans.emplace_back(buffers.back().data(), buffers.back().size());
    }
    HierarchicalAllocator planned(Span<Span<uint8_t>>(spans.data(), spans.size()));
    std::vector<uint8_t> pool(1 << 20), temp_pool(1 << 20);
    MemoryAllocator method_allocator(pool.size(), pool.data());
    MemoryAllocator temp_allocator(temp_pool.size(), temp_pool.data());
    MemoryManager memory(&method_allocator, &planned, &temp_allocator);
    auto method = program->load_method("forward", &memory, &reference);
    ASSERT_EQ(method.error(), Error::Ok);
    auto x = from_blob(input.data(), {2, 8});
    ASSERT_EQ(method->set_input(x, 0), Error::Ok);
    ASSERT_EQ(method->execute(), Error::Ok);
  }
  ETDumpResult want_dump = reference.get_etdump_data();
  const fb::ETDump* want = parse(want_dump);
  ASSERT_EQ(want->run_data()->size(), 2u);

  // The Module: its tracer sees the load once and each of two executes.
  alignas(64) static uint8_t debug[1 << 16];
  auto tracer = std::make_unique<ETDumpGen>();
  ETDumpGen* etdump = tracer.get();
  ASSERT_TRUE(etdump->set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  etdump->set_event_tracer_debug_level(EventTracerDebugLogLevel::kProgramOutputs);
  Module module(kModels + "mlp.pte", Module::LoadMode::File, std::move(tracer));
  EXPECT_EQ(module.event_tracer(), etdump);
  auto x = from_blob(input.data(), {2, 8});
  for (int run = 0; run < 2; ++run) {
    auto out = module.forward(x);
    ASSERT_EQ(out.error(), Error::Ok);
  }
  EXPECT_EQ(etdump->get_num_blocks(), 3u);
  ETDumpResult got_dump = etdump->get_etdump_data();
  const fb::ETDump* got = parse(got_dump);
  ASSERT_EQ(got->run_data()->size(), 3u);
  EXPECT_EQ(got->run_data()->Get(0)->name()->str(), "Default");
  EXPECT_EQ(keys(got->run_data()->Get(0)), keys(want->run_data()->Get(0)));
  EXPECT_EQ(keys(want->run_data()->Get(0)).size(), 2u);  // Method::init, Program::load_method
  // Per kernel call OPERATOR_CALL and native_call_<op>, then Method::execute
  // and the output.
  EXPECT_EQ(keys(want->run_data()->Get(1)).size(), 2 * 8u + 2);
  for (flatbuffers::uoffset_t block = 1; block < 3; ++block) {
    EXPECT_EQ(got->run_data()->Get(block)->name()->str(), "Execute");
    EXPECT_EQ(keys(got->run_data()->Get(block)), keys(want->run_data()->Get(1))) << block;
    expect_logged_output(got->run_data()->Get(block), debug);
  }
  expect_logged_output(want->run_data()->Get(1), reference_debug);
  std::free(want_dump.buf);
  std::free(got_dump.buf);
}

TEST(OfficialModuleETDumpTest, LoadMethodTracerTakesPrecedence) {
  executorch::runtime::runtime_init();
  std::vector<char> input = npy_data(kModels + "mlp/a_in0.npy");
  auto tracer = std::make_unique<ETDumpGen>();
  ETDumpGen* module_tracer = tracer.get();
  Module module(kModels + "mlp.pte", Module::LoadMode::File, std::move(tracer));
  ETDumpGen own;
  ASSERT_EQ(module.load_method("forward", nullptr, &own), Error::Ok);
  ASSERT_EQ(module.forward(from_blob(input.data(), {2, 8})).error(), Error::Ok);
  EXPECT_EQ(own.get_num_blocks(), 2u);  // the load and the execute
  EXPECT_EQ(module_tracer->get_num_blocks(), 0u);
  ETDumpResult r = own.get_etdump_data();
  std::free(r.buf);
}

}  // namespace
