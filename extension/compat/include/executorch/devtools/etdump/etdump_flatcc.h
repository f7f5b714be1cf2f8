// Compatibility layer (extension/compat): the official ETDumpGen, an
// EventTracer that records profiling and debug events into an ETDump (the
// ".etdp" file the Python Inspector reads), written by etr's ETDump writer
// (devtools/etdump) in the official layout: size-prefixed, identifier "ED00".
//
//   executorch::etdump::ETDumpGen etdump;
//   Result<Method> method = program->load_method("forward", &memory, &etdump);
//   ... method->execute() ...
//   executorch::etdump::ETDumpResult r = etdump.get_etdump_data();
//   fwrite(r.buf, 1, r.size, f);
//   free(r.buf);   // unless a buffer was given to the constructor
//
// Logged tensors need a debug buffer (set_debug_buffer) or a data sink, and
// a debug level (set_event_tracer_debug_level). Allocator tracking is
// written as the official ETDumpGen writes it: track_allocator (right after
// create_event_block, before any event; it aborts otherwise, as upstream)
// adds to the block's allocator list and returns the allocator's id (1, 2,
// ... within the block); track_allocation adds an Event holding only an
// AllocationEvent. The official Python Inspector (1.5.1) reads the allocator
// list but refuses any allocation event ("Unable to find populated event"),
// in the official runtime's files too: leave allocations out of an ETDump
// meant for the Inspector (scripts/etdump_inspector_check.py shows both).
#pragma once

#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/platform.h>

#include <cstddef>
#include <cstdint>

#define ETDUMP_VERSION 0

struct flatcc_builder;

namespace executorch {
namespace etdump {

using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::EventTracerFilterBase;
using ::executorch::runtime::Result;

namespace internal {
// The official static-buffer bookkeeping (kept for source compatibility;
// etr's writer does not use it).
struct ETDumpStaticAllocator {
  ETDumpStaticAllocator() = default;
  void set_buffer(uint8_t* buffer, size_t total_buf_size, size_t alloc_buf_size) {
    data = buffer;
    data_size = alloc_buf_size;
    allocated = 0;
    out_size = total_buf_size - alloc_buf_size;
    front_cursor = &buffer[alloc_buf_size + out_size];
    front_left = out_size;
  }
  uint8_t* data{nullptr};
  size_t data_size{0};
  size_t allocated{0};
  size_t out_size{0};
  uint8_t* front_cursor{nullptr};
  size_t front_left{0};
};
}  // namespace internal

// The finished ETDump: `buf` is malloc'ed (the caller frees it) unless the
// ETDumpGen was given a buffer, which then holds it.
struct ETDumpResult {
  void* buf;
  size_t size;
};

class ETDumpGen : public ::executorch::runtime::EventTracer {
 public:
  // `buffer`: where get_etdump_data() puts the ETDump (empty: malloc).
  ETDumpGen(::executorch::runtime::Span<uint8_t> buffer = {nullptr, (size_t)0});
  ~ETDumpGen() override;
  ETDumpGen(const ETDumpGen&) = delete;
  ETDumpGen& operator=(const ETDumpGen&) = delete;
  // Drops every recorded block.
  void clear_builder();

  void create_event_block(const char* name) override;
  ::executorch::runtime::EventTracerEntry start_profiling(
      const char* name, ::executorch::runtime::ChainID chain_id = -1,
      ::executorch::runtime::DebugHandle debug_handle = 0) override;
  void end_profiling(::executorch::runtime::EventTracerEntry prof_entry) override;
  ::executorch::runtime::EventTracerEntry start_profiling_delegate(
      const char* name, DelegateDebugIntId delegate_debug_index) override;
  void end_profiling_delegate(::executorch::runtime::EventTracerEntry prof_entry,
                              const void* metadata, size_t metadata_len) override;
  void log_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                              et_timestamp_t start_time, et_timestamp_t end_time,
                              const void* metadata, size_t metadata_len) override;
  void track_allocation(::executorch::runtime::AllocatorID id, size_t size) override;
  ::executorch::runtime::AllocatorID track_allocator(const char* name) override;
  Result<bool> log_evalue(
      const ::executorch::runtime::EValue& evalue,
      ::executorch::runtime::LoggedEValueType evalue_type =
          ::executorch::runtime::LoggedEValueType::kIntermediateOutput) override;
  Result<bool> log_intermediate_output_delegate(const char* name,
                                                DelegateDebugIntId delegate_debug_index,
                                                const executorch::aten::Tensor& output) override;
  Result<bool> log_intermediate_output_delegate(
      const char* name, DelegateDebugIntId delegate_debug_index,
      const ::executorch::runtime::ArrayRef<executorch::aten::Tensor> output) override;
  Result<bool> log_intermediate_output_delegate(const char* name,
                                                DelegateDebugIntId delegate_debug_index,
                                                const int& output) override;
  Result<bool> log_intermediate_output_delegate(const char* name,
                                                DelegateDebugIntId delegate_debug_index,
                                                const bool& output) override;
  Result<bool> log_intermediate_output_delegate(const char* name,
                                                DelegateDebugIntId delegate_debug_index,
                                                const double& output) override;
  void set_delegation_intermediate_output_filter(
      EventTracerFilterBase* event_tracer_filter) override;

  // Logged tensors go to `buffer` (a BufferDataSink with 64-byte alignment).
  Result<bool> set_debug_buffer(::executorch::runtime::Span<uint8_t> buffer);
  void set_data_sink(DataSinkBase* data_sink);
  // Finishes the ETDump of every block so far; the next block starts a new one.
  ETDumpResult get_etdump_data();
  size_t get_num_blocks();
  DataSinkBase* get_data_sink();
  bool is_static_etdump();
  // Drops every block and forgets the data sink.
  void reset();

 private:
  struct Impl;
  template <typename T>
  Result<bool> log_delegate_output(const char* name, DelegateDebugIntId delegate_debug_index,
                                   const T& output);
  Impl* impl_;
  ::executorch::runtime::Span<uint8_t> static_buffer_;
  DataSinkBase* data_sink_ = nullptr;
  BufferDataSink buffer_data_sink_;
  EventTracerFilterBase* filter_ = nullptr;
};

}  // namespace etdump
}  // namespace executorch

namespace torch {
namespace executor {
using etdump_result = ::executorch::etdump::ETDumpResult;
using ::executorch::etdump::ETDumpGen;
}  // namespace executor
}  // namespace torch
