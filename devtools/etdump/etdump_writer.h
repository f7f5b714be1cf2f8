// ETDumpWriter: builds an ETDump, the profiling and debug record the official
// ExecuTorch runtime writes (".etdp", read by the Python Inspector). The
// layout is devtools/etdump/etdump.fbs: a size-prefixed flatbuffer with the
// identifier "ED00", one RunData block per method load ("Default") or
// execute ("Execute"), each a list of profile events (timed spans) and debug
// events (logged values). Tensor bytes go to a DataSink (the debug buffer);
// the ETDump keeps only their offsets.
//
//   etr::etdump::ETDumpWriter writer;
//   writer.create_event_block("Execute");
//   writer.add_profile_event("OPERATOR_CALL", 0, 3, start_ns, end_ns);
//   std::vector<uint8_t> bytes = writer.finish();   // the next block starts a new ETDump
//
// etdump_observer.h fills a writer from a running Method. Outside the
// heapless core (it keeps its events in a growing buffer), built without
// exceptions or RTTI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace etr {
namespace etdump {

// What is logged besides timings (the official EventTracerDebugLogLevel):
// nothing, the method's outputs after each execute, or also every kernel's
// and delegate's outputs as the method runs.
enum class DebugLevel : uint8_t { kNoLogging = 0, kProgramOutputs = 1, kIntermediateOutputs = 2 };

// Where the bytes of logged tensors go.
class DataSink {
 public:
  virtual ~DataSink() = default;
  // Stores `size` bytes; returns the offset they start at in the debug output.
  virtual Result<size_t> write(const void* data, size_t size) = 0;
  virtual size_t used_bytes() const = 0;
};

// Blobs stored in caller memory, each at the next address aligned to
// `alignment` (a power of two), the gaps zeroed. Running out of room is an
// OutOfResources error naming what did not fit.
class BufferDataSink final : public DataSink {
 public:
  BufferDataSink() = default;
  BufferDataSink(Span<uint8_t> buffer, size_t alignment = 64)
      : buffer_(buffer), align_(alignment) {}
  Result<size_t> write(const void* data, size_t size) override;
  size_t used_bytes() const override { return used_; }
  Span<uint8_t> buffer() const { return buffer_; }

 private:
  Span<uint8_t> buffer_;
  size_t align_ = 64;
  size_t used_ = 0;
};

// How a delegate names one of its sub-events: by a number or by a string
// (exactly one; -1 / null mean unset).
struct DelegateId {
  int32_t int_id = -1;
  const char* str_id = nullptr;
};

class ETDumpWriter {
 public:
  ETDumpWriter();
  ~ETDumpWriter();
  ETDumpWriter(const ETDumpWriter&) = delete;
  ETDumpWriter& operator=(const ETDumpWriter&) = delete;

  // Starts a new RunData block; the events added next go into it.
  // `bundled_input_index` (-1: none) is written when set.
  void create_event_block(const char* name, int32_t bundled_input_index = -1);
  // A framework or instruction span: chain -1 / instruction 0 outside any
  // instruction (the official values for "Method::execute" and the load events).
  void add_profile_event(const char* name, int32_t chain, int32_t instruction, uint64_t start_ns,
                         uint64_t end_ns);
  // A delegate-internal span: no name, the delegate's own id, and whatever
  // metadata it attaches (written even when empty, as the official writer does).
  Error add_delegate_profile_event(DelegateId id, int32_t chain, int32_t instruction,
                                   uint64_t start_ns, uint64_t end_ns, const void* metadata,
                                   size_t metadata_len);
  // Logs `value` as a debug event of instruction (`chain`, `instruction`);
  // `program_output` marks a method output (tensors and tensor lists get the
  // Value.output flag). Tensor bytes go to the data sink. Returns true when
  // something was logged, false for a value the format does not carry (None,
  // strings, scalar lists, Half / BFloat16 tensors, which the official writer
  // refuses); an error when the sink is missing or full.
  Result<bool> log_value(const EValue& value, uint64_t chain, int32_t instruction,
                         bool program_output, DelegateId delegate = {});

  // Names an allocator of the current block (a RunData's allocator list,
  // which comes before its events as in the official format) and returns its
  // id: 1, 2, ... in the order named within the block. InvalidState when no
  // block is started or the current one has events already.
  Result<uint32_t> add_allocator(const char* name);
  // An allocation of `size` bytes from allocator `allocator_id` of the
  // current block (an Event with only its allocation_event set).
  void add_allocation_event(uint32_t allocator_id, uint64_t size);

  // Where tensor bytes go (not owned; null: tensors cannot be logged).
  void set_data_sink(DataSink* sink) { sink_ = sink; }
  DataSink* data_sink() const { return sink_; }

  size_t num_blocks() const;
  // Finishes the ETDump (every block so far) and returns its bytes; the
  // writer is empty again, and the next block begins a new ETDump.
  std::vector<uint8_t> finish();
  // Drops every block without writing it.
  void reset();

 private:
  struct State;
  Result<int64_t> store_tensor(const Tensor& t);
  std::unique_ptr<State> s_;
  DataSink* sink_ = nullptr;
};

}  // namespace etdump
}  // namespace etr
