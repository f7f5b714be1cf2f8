// The official ETDumpGen and its data sinks over etr's ETDump writer
// (devtools/etdump): official values are handed to the writer as the etr
// values they view; official sinks are wrapped as etr sinks.
#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/emitter.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/platform/log.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_writer.h"
#include "extension/compat/internal.h"

namespace executorch {
namespace etdump {

using ::executorch::runtime::AllocatorID;
using ::executorch::runtime::ChainID;
using ::executorch::runtime::DebugHandle;
using ::executorch::runtime::DelegateDebugIdType;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::EventTracerDebugLogLevel;
using ::executorch::runtime::EventTracerEntry;
using ::executorch::runtime::LoggedEValueType;
using ::executorch::runtime::Span;
using ::executorch::runtime::Tag;

namespace {

Error official(::etr::Error e) { return runtime::internal::to_official_error(static_cast<int>(e)); }

bool power_of_two(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// An official DataSinkBase seen as an etr sink.
class OfficialSink final : public ::etr::etdump::DataSink {
 public:
  DataSinkBase* sink = nullptr;
  ::etr::Result<size_t> write(const void* data, size_t size) override {
    Result<size_t> r = sink->write(data, size);
    if (!r.ok()) return static_cast<::etr::Error>(static_cast<uint8_t>(r.error()));
    return *r;
  }
  size_t used_bytes() const override { return sink->get_used_bytes(); }
};

}  // namespace

// ---- BufferDataSink ----------------------------------------------------------

Result<BufferDataSink> BufferDataSink::create(Span<uint8_t> buffer, size_t alignment) noexcept {
  if (!power_of_two(alignment)) {
    ET_LOG(Error, "BufferDataSink: alignment %zu is not a power of two", alignment);
    return Error::InvalidArgument;
  }
  return BufferDataSink(buffer, alignment);
}

Result<BufferDataSink> BufferDataSink::create(void* ptr, size_t size, size_t alignment) noexcept {
  return create(Span<uint8_t>(static_cast<uint8_t*>(ptr), size), alignment);
}

Result<size_t> BufferDataSink::write(const void* ptr, size_t size) {
  // An etr sink over the unused rest: it aligns absolute addresses, so each
  // blob lands where one sink over the whole buffer would put it.
  ::etr::etdump::BufferDataSink rest(
      Span<uint8_t>(debug_buffer_.data() + offset_, debug_buffer_.size() - offset_), alignment_);
  ::etr::Result<size_t> at = rest.write(ptr, size);
  if (!at.ok()) return official(at.error());
  const size_t start = offset_ + *at;
  offset_ += rest.used_bytes();
  return start;
}

Result<size_t> BufferDataSink::get_storage_size() const { return debug_buffer_.size(); }
size_t BufferDataSink::get_used_bytes() const { return offset_; }

// ---- FileDataSink ------------------------------------------------------------

Result<FileDataSink> FileDataSink::create(const char* file_path) {
  FILE* f = file_path == nullptr ? nullptr : std::fopen(file_path, "wb");
  if (f == nullptr) {
    ET_LOG(Error, "FileDataSink: cannot open '%s' for writing",
           file_path == nullptr ? "(null)" : file_path);
    return Error::AccessFailed;
  }
  return FileDataSink(f);
}

FileDataSink::FileDataSink(FileDataSink&& other) noexcept
    : file_(other.file_), total_written_bytes_(other.total_written_bytes_) {
  other.file_ = nullptr;
}

FileDataSink::~FileDataSink() { close(); }

Result<size_t> FileDataSink::write(const void* ptr, size_t size) {
  if (file_ == nullptr) {
    ET_LOG(Error, "FileDataSink: write after close");
    return Error::AccessFailed;
  }
  if (size != 0 && std::fwrite(ptr, 1, size, file_) != size) {
    ET_LOG(Error, "FileDataSink: writing %zu bytes failed", size);
    return Error::AccessFailed;
  }
  const size_t at = total_written_bytes_;
  total_written_bytes_ += size;
  return at;
}

size_t FileDataSink::get_used_bytes() const { return total_written_bytes_; }

void FileDataSink::close() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
}

// ---- ETDumpGen -----------------------------------------------------------------

struct ETDumpGen::Impl {
  ::etr::etdump::ETDumpWriter writer;
  OfficialSink sink;
  // Names of open events (EventTracerEntry::event_id indexes them).
  std::vector<std::string> names;

  int64_t name_id(const char* name) {
    names.emplace_back(name == nullptr ? "" : name);
    return static_cast<int64_t>(names.size() - 1);
  }
  const char* name_at(int64_t id) const {
    return id >= 0 && static_cast<size_t>(id) < names.size()
               ? names[static_cast<size_t>(id)].c_str()
               : "";
  }
};

ETDumpGen::ETDumpGen(Span<uint8_t> buffer) : impl_(new Impl), static_buffer_(buffer) {}

ETDumpGen::~ETDumpGen() { delete impl_; }

void ETDumpGen::clear_builder() {
  impl_->writer.reset();
  impl_->names.clear();
}

void ETDumpGen::reset() {
  clear_builder();
  data_sink_ = nullptr;
  impl_->writer.set_data_sink(nullptr);
}

void ETDumpGen::create_event_block(const char* name) {
  impl_->writer.create_event_block(name, bundled_input_index());
}

EventTracerEntry ETDumpGen::start_profiling(const char* name, ChainID chain_id,
                                            DebugHandle debug_handle) {
  EventTracerEntry e{};
  e.event_id = impl_->name_id(name);
  e.chain_id = chain_id == -1 ? chain_id_ : chain_id;
  e.debug_handle = chain_id == -1 ? debug_handle_ : debug_handle;
  e.start_time = et_pal_current_ticks();
  e.delegate_event_id_type = DelegateDebugIdType::kNone;
  return e;
}

void ETDumpGen::end_profiling(EventTracerEntry prof_entry) {
  const et_timestamp_t end = et_pal_current_ticks();
  impl_->writer.add_profile_event(impl_->name_at(prof_entry.event_id), prof_entry.chain_id,
                                  static_cast<int32_t>(prof_entry.debug_handle),
                                  prof_entry.start_time, end);
}

EventTracerEntry ETDumpGen::start_profiling_delegate(const char* name,
                                                     DelegateDebugIntId delegate_debug_index) {
  EventTracerEntry e{};
  if ((name == nullptr) == (delegate_debug_index == -1)) {
    ET_LOG(Error, "start_profiling_delegate: give a name or an int id, not both or neither");
  }
  if (name != nullptr) {
    e.event_id = impl_->name_id(name);
    e.delegate_event_id_type = DelegateDebugIdType::kStr;
  } else {
    e.event_id = delegate_debug_index;
    e.delegate_event_id_type = DelegateDebugIdType::kInt;
  }
  e.chain_id = chain_id_;
  e.debug_handle = debug_handle_;
  e.start_time = et_pal_current_ticks();
  return e;
}

void ETDumpGen::end_profiling_delegate(EventTracerEntry prof_entry, const void* metadata,
                                       size_t metadata_len) {
  const et_timestamp_t end = et_pal_current_ticks();
  ::etr::etdump::DelegateId id;
  if (prof_entry.delegate_event_id_type == DelegateDebugIdType::kStr) {
    id.str_id = impl_->name_at(prof_entry.event_id);
  } else {
    id.int_id = static_cast<int32_t>(prof_entry.event_id);
  }
  (void)impl_->writer.add_delegate_profile_event(
      id, prof_entry.chain_id, static_cast<int32_t>(prof_entry.debug_handle), prof_entry.start_time,
      end, metadata, metadata_len);
}

void ETDumpGen::log_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                       et_timestamp_t start_time, et_timestamp_t end_time,
                                       const void* metadata, size_t metadata_len) {
  (void)impl_->writer.add_delegate_profile_event(
      {name == nullptr ? delegate_debug_index : -1, name}, chain_id_,
      static_cast<int32_t>(debug_handle_), start_time, end_time, metadata, metadata_len);
}

AllocatorID ETDumpGen::track_allocator(const char* name) {
  // As the official ETDumpGen: only right after a block is created, before
  // any event (the RunData's allocator list comes before its events).
  ::etr::Result<uint32_t> id = impl_->writer.add_allocator(name);
  ET_CHECK_MSG(id.ok(),
               "Allocators can only be added immediately after a new block is created and before "
               "any events are added.");
  return *id;
}

void ETDumpGen::track_allocation(AllocatorID id, size_t size) {
  impl_->writer.add_allocation_event(id, size);
}

namespace {

// The chain of a debug event: the tracer's int32 chain widened to uint64
// (-1, outside any instruction, becomes 2^64 - 1), as the official writer does.
uint64_t debug_chain(ChainID chain) { return static_cast<uint64_t>(static_cast<int64_t>(chain)); }

// Logs `value` (an etr value) through `writer`; official Result.
Result<bool> log_with(::etr::etdump::ETDumpWriter& writer, const ::etr::EValue& value,
                      ChainID chain, DebugHandle handle, bool output,
                      ::etr::etdump::DelegateId delegate = {}) {
  ::etr::Result<bool> r =
      writer.log_value(value, debug_chain(chain), static_cast<int32_t>(handle), output, delegate);
  if (!r.ok()) return official(r.error());
  return *r;
}

// The etr tensors behind official ones, as an etr TensorList value.
struct TensorListView {
  std::vector<::etr::EValue> items;
  std::vector<::etr::EValue*> pointers;
  explicit TensorListView(executorch::aten::ArrayRef<executorch::aten::Tensor> tensors) {
    items.reserve(tensors.size());
    for (const executorch::aten::Tensor& t : tensors) items.emplace_back(t.unsafeGetTensorImpl());
    for (::etr::EValue& v : items) pointers.push_back(&v);
  }
  ::etr::EValue value() const {
    return ::etr::EValue(::etr::BoxedTensorList(pointers.data(), pointers.size()), false);
  }
};

}  // namespace

Result<bool> ETDumpGen::log_evalue(const EValue& evalue, LoggedEValueType evalue_type) {
  if (event_tracer_debug_level_ == EventTracerDebugLogLevel::kNoLogging) return false;
  if (event_tracer_debug_level_ == EventTracerDebugLogLevel::kProgramOutputs &&
      evalue_type == LoggedEValueType::kIntermediateOutput) {
    return false;
  }
  const bool output = evalue_type == LoggedEValueType::kProgramOutput;
  switch (evalue.tag) {
    case Tag::Tensor: {
      if (evalue.toTensor().unsafeGetTensorImpl() == nullptr) return false;
      return log_with(impl_->writer, ::etr::EValue(evalue.toTensor().unsafeGetTensorImpl()),
                      chain_id_, debug_handle_, output);
    }
    case Tag::ListTensor: {
      const TensorListView list(evalue.toTensorList());
      for (const ::etr::EValue& v : list.items) {
        if (v.tensor_ptr() == nullptr) return false;
      }
      return log_with(impl_->writer, list.value(), chain_id_, debug_handle_, output);
    }
    case Tag::Int:
      return log_with(impl_->writer, ::etr::EValue(evalue.toInt()), chain_id_, debug_handle_,
                      output);
    case Tag::Double:
      return log_with(impl_->writer, ::etr::EValue(evalue.toDouble()), chain_id_, debug_handle_,
                      output);
    case Tag::Bool:
      return log_with(impl_->writer, ::etr::EValue(evalue.toBool()), chain_id_, debug_handle_,
                      output);
    default: return false;
  }
}

template <typename T>
Result<bool> ETDumpGen::log_delegate_output(const char* name,
                                            DelegateDebugIntId delegate_debug_index,
                                            const T& output) {
  if ((name == nullptr) == (delegate_debug_index == -1)) {
    ET_LOG(Error, "log_intermediate_output_delegate: give a name or an int id, not both");
    return Error::InvalidArgument;
  }
  if (event_tracer_debug_level_ == EventTracerDebugLogLevel::kNoLogging) return false;
  if (filter_ != nullptr) {
    Result<bool> keep = filter_->filter(name, delegate_debug_index);
    if (!keep.ok()) return keep.error();
    if (!*keep) return false;
  }
  const ::etr::etdump::DelegateId id{name == nullptr ? delegate_debug_index : -1, name};
  if constexpr (std::is_same<T, executorch::aten::Tensor>::value) {
    if (output.unsafeGetTensorImpl() == nullptr) return false;
    return log_with(impl_->writer, ::etr::EValue(output.unsafeGetTensorImpl()), chain_id_,
                    debug_handle_, false, id);
  } else if constexpr (std::is_same<
                           T, ::executorch::runtime::ArrayRef<executorch::aten::Tensor>>::value) {
    const TensorListView list(output);
    return log_with(impl_->writer, list.value(), chain_id_, debug_handle_, false, id);
  } else if constexpr (std::is_same<T, int>::value) {
    return log_with(impl_->writer, ::etr::EValue(static_cast<int64_t>(output)), chain_id_,
                    debug_handle_, false, id);
  } else {
    return log_with(impl_->writer, ::etr::EValue(output), chain_id_, debug_handle_, false, id);
  }
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name,
                                                         DelegateDebugIntId delegate_debug_index,
                                                         const executorch::aten::Tensor& output) {
  return log_delegate_output(name, delegate_debug_index, output);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(
    const char* name, DelegateDebugIntId delegate_debug_index,
    const ::executorch::runtime::ArrayRef<executorch::aten::Tensor> output) {
  return log_delegate_output(name, delegate_debug_index, output);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name,
                                                         DelegateDebugIntId delegate_debug_index,
                                                         const int& output) {
  return log_delegate_output(name, delegate_debug_index, output);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name,
                                                         DelegateDebugIntId delegate_debug_index,
                                                         const bool& output) {
  return log_delegate_output(name, delegate_debug_index, output);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name,
                                                         DelegateDebugIntId delegate_debug_index,
                                                         const double& output) {
  return log_delegate_output(name, delegate_debug_index, output);
}

void ETDumpGen::set_delegation_intermediate_output_filter(
    EventTracerFilterBase* event_tracer_filter) {
  filter_ = event_tracer_filter;
}

Result<bool> ETDumpGen::set_debug_buffer(Span<uint8_t> buffer) {
  Result<BufferDataSink> sink = BufferDataSink::create(buffer, 64);
  if (!sink.ok()) return sink.error();
  buffer_data_sink_ = std::move(*sink);
  set_data_sink(&buffer_data_sink_);
  return true;
}

void ETDumpGen::set_data_sink(DataSinkBase* data_sink) {
  data_sink_ = data_sink;
  impl_->sink.sink = data_sink;
  impl_->writer.set_data_sink(data_sink == nullptr ? nullptr : &impl_->sink);
}

ETDumpResult ETDumpGen::get_etdump_data() {
  ETDumpResult result{nullptr, 0};
  if (impl_->writer.num_blocks() == 0) return result;
  const std::vector<uint8_t> bytes = impl_->writer.finish();
  impl_->names.clear();
  if (is_static_etdump()) {
    if (bytes.size() > static_buffer_.size()) {
      ET_LOG(Error, "ETDumpGen: the ETDump (%zu bytes) does not fit the %zu-byte buffer",
             bytes.size(), static_buffer_.size());
      return result;
    }
    std::memcpy(static_buffer_.data(), bytes.data(), bytes.size());
    return ETDumpResult{static_buffer_.data(), bytes.size()};
  }
  void* buf = std::malloc(bytes.size());
  if (buf == nullptr) {
    ET_LOG(Error, "ETDumpGen: cannot allocate %zu bytes for the ETDump", bytes.size());
    return result;
  }
  std::memcpy(buf, bytes.data(), bytes.size());
  return ETDumpResult{buf, bytes.size()};
}

size_t ETDumpGen::get_num_blocks() { return impl_->writer.num_blocks(); }
DataSinkBase* ETDumpGen::get_data_sink() { return data_sink_; }
bool ETDumpGen::is_static_etdump() { return static_buffer_.data() != nullptr; }

namespace internal {

int etdump_flatcc_custom_init(flatcc_builder_t* builder, internal::ETDumpStaticAllocator* alloc) {
  (void)builder;
  (void)alloc;
  ET_LOG(Error, "etdump_flatcc_custom_init: this ETDumpGen does not build with flatcc");
  return -1;
}

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
