// Allocation events of the official ETDumpGen (extension/compat), written as
// upstream's ETDumpGen writes them: each block's allocator list (named right
// after the block starts; ids 1, 2, ... per block) and an Event holding only
// an AllocationEvent per track_allocation. Parsed with the reader generated
// from devtools/etdump/etdump.fbs. With ETR_ALLOCATION_ETDUMP=<path> in the
// environment, the first test also writes its ETDump there
// (scripts/etdump_inspector_check.py reads it with the official tools).
#define ET_EVENT_TRACER_ENABLED 1
#include <gtest/gtest.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_generated.h"

namespace {

namespace fb = ::etdump;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::extension::MallocMemoryAllocator;
using executorch::extension::Module;
using executorch::runtime::AllocatorID;
using executorch::runtime::Error;
using executorch::runtime::EventTracer;

const std::string kModels = std::string(ETR_SOURCE_DIR) + "/test/models/";

const fb::ETDump* parse(const ETDumpResult& r) {
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(r.buf), r.size);
  EXPECT_TRUE(fb::VerifySizePrefixedETDumpBuffer(verifier));
  return fb::GetSizePrefixedETDump(r.buf);
}

TEST(OfficialETDumpAllocationTest, AllocatorsAndAllocationEventsAreWrittenAsUpstream) {
  ETDumpGen etdump;
  etdump.create_event_block("Execute");
  const AllocatorID method = etdump.track_allocator("method allocator");
  const AllocatorID temp = etdump.track_allocator("temp allocator");
  EXPECT_EQ(method, 1u);
  EXPECT_EQ(temp, 2u);
  etdump.track_allocation(method, 128);
  etdump.track_allocation(temp, 64);
  auto span = etdump.start_profiling("Method::execute");
  etdump.end_profiling(span);
  etdump.create_event_block("Execute");
  EXPECT_EQ(etdump.track_allocator("temp allocator"), 1u);  // ids count per block
  etdump.track_allocation(1, 32);
  etdump.create_event_block("Execute");  // no allocators: no list
  span = etdump.start_profiling("Method::execute");
  etdump.end_profiling(span);

  ETDumpResult r = etdump.get_etdump_data();
  ASSERT_NE(r.buf, nullptr);
  if (const char* path = std::getenv("ETR_ALLOCATION_ETDUMP")) {
    FILE* f = std::fopen(path, "wb");
    ASSERT_NE(f, nullptr) << path;
    EXPECT_EQ(std::fwrite(r.buf, 1, r.size, f), r.size);
    std::fclose(f);
  }
  const fb::ETDump* dump = parse(r);
  ASSERT_EQ(dump->run_data()->size(), 3u);
  const fb::RunData* first = dump->run_data()->Get(0);
  ASSERT_NE(first->allocators(), nullptr);
  ASSERT_EQ(first->allocators()->size(), 2u);
  EXPECT_EQ(first->allocators()->Get(0)->name()->str(), "method allocator");
  EXPECT_EQ(first->allocators()->Get(1)->name()->str(), "temp allocator");
  ASSERT_EQ(first->events()->size(), 3u);
  const fb::Event* a = first->events()->Get(0);
  ASSERT_NE(a->allocation_event(), nullptr);
  EXPECT_EQ(a->profile_event(), nullptr);
  EXPECT_EQ(a->debug_event(), nullptr);
  EXPECT_EQ(a->allocation_event()->allocator_id(), 1);
  EXPECT_EQ(a->allocation_event()->allocation_size(), 128u);
  EXPECT_EQ(first->events()->Get(1)->allocation_event()->allocator_id(), 2);
  EXPECT_EQ(first->events()->Get(1)->allocation_event()->allocation_size(), 64u);
  ASSERT_NE(first->events()->Get(2)->profile_event(), nullptr);
  EXPECT_EQ(first->events()->Get(2)->profile_event()->name()->str(), "Method::execute");
  const fb::RunData* second = dump->run_data()->Get(1);
  ASSERT_NE(second->allocators(), nullptr);
  ASSERT_EQ(second->allocators()->size(), 1u);
  ASSERT_EQ(second->events()->size(), 1u);
  EXPECT_EQ(second->events()->Get(0)->allocation_event()->allocation_size(), 32u);
  EXPECT_EQ(dump->run_data()->Get(2)->allocators(), nullptr);
  std::free(r.buf);
}

TEST(OfficialETDumpAllocationDeathTest, AllocatorAfterAnEventAborts) {
  EXPECT_DEATH(
      {
        ETDumpGen etdump;
        etdump.create_event_block("Execute");
        auto span = etdump.start_profiling("Method::execute");
        etdump.end_profiling(span);
        (void)etdump.track_allocator("late");
      },
      "Allocators can only be added immediately after a new block is created");
  EXPECT_DEATH(
      {
        ETDumpGen etdump;
        (void)etdump.track_allocator("before any block");
      },
      "Allocators can only be added");
}

// A method allocator that reports itself and each allocation to an event
// tracer through the official hooks (named at its first allocation).
class TracedAllocator final : public MallocMemoryAllocator {
 public:
  explicit TracedAllocator(size_t* bytes) : bytes_(bytes) {}
  void set_tracer(EventTracer* tracer) { tracer_ = tracer; }
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (id_ == 0)
      id_ = executorch::runtime::internal::event_tracer_track_allocator(tracer_, "method");
    executorch::runtime::internal::event_tracer_track_allocation(tracer_, id_, size);
    *bytes_ += size;
    return MallocMemoryAllocator::allocate(size, alignment);
  }

 private:
  size_t* bytes_;
  EventTracer* tracer_ = nullptr;
  AllocatorID id_ = 0;
};

// A Module's method allocator reporting to the Module's ETDumpGen: the load
// block lists the allocator and one allocation event per allocation, whose
// sizes add up to what the allocator handed out.
TEST(OfficialETDumpAllocationTest, MethodAllocationsOfAModuleLoad) {
  executorch::runtime::runtime_init();
  size_t bytes = 0;
  auto allocator = std::make_unique<TracedAllocator>(&bytes);
  TracedAllocator* traced = allocator.get();
  auto tracer = std::make_unique<ETDumpGen>();
  traced->set_tracer(tracer.get());
  Module module(kModels + "mlp.pte", Module::LoadMode::File, std::move(tracer),
                std::move(allocator));
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  EXPECT_GT(bytes, 0u);
  ETDumpResult r = static_cast<ETDumpGen*>(module.event_tracer())->get_etdump_data();
  const fb::ETDump* dump = parse(r);
  ASSERT_EQ(dump->run_data()->size(), 1u);
  const fb::RunData* load = dump->run_data()->Get(0);
  EXPECT_EQ(load->name()->str(), "Default");
  ASSERT_NE(load->allocators(), nullptr);
  ASSERT_EQ(load->allocators()->size(), 1u);
  EXPECT_EQ(load->allocators()->Get(0)->name()->str(), "method");
  size_t allocated = 0, allocations = 0;
  std::vector<std::string> names;
  for (const fb::Event* e : *load->events()) {
    if (const fb::AllocationEvent* a = e->allocation_event()) {
      EXPECT_EQ(a->allocator_id(), 1);
      allocated += a->allocation_size();
      ++allocations;
    } else if (e->profile_event() != nullptr) {
      names.push_back(e->profile_event()->name()->str());
    }
  }
  EXPECT_GT(allocations, 0u);
  EXPECT_EQ(allocated, bytes);
  EXPECT_EQ(names, (std::vector<std::string>{"Method::init", "Program::load_method"}));
  std::free(r.buf);
}

}  // namespace
