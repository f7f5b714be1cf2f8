// ETDumpWriter: events are built as flatbuffer tables as they arrive; the
// blocks' event vectors, the RunData tables and the root are written at
// finish(), which ends the buffer with a size prefix and "ED00".
#include "devtools/etdump/etdump_writer.h"

#include <cstdint>
#include <cstring>

#include "devtools/etdump/etdump_generated.h"
#include "runtime/platform/log.h"

namespace etr {
namespace etdump {
namespace {

namespace fb = ::etdump;

// The tensor element types the official writer logs (Half and BFloat16 are
// refused there; the rest have no Inspector reading).
bool loggable_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Bool:
    case ScalarType::Bits16:
    case ScalarType::UInt16: return true;
    default: return false;
  }
}

}  // namespace

Result<size_t> BufferDataSink::write(const void* data, size_t size) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(buffer_.data());
  const uintptr_t cursor = base + used_;
  const uintptr_t aligned = (cursor + (align_ - 1)) & ~static_cast<uintptr_t>(align_ - 1);
  const size_t pad = aligned - cursor;
  const size_t room = buffer_.size() - used_;
  if (align_ == 0 || (align_ & (align_ - 1)) != 0) {
    ETR_FAIL(Error::InvalidArgument, "ETDump debug buffer: alignment %zu is not a power of two",
             align_);
  }
  if (pad > room || size > room - pad) {
    ETR_FAIL(Error::OutOfResources,
             "ETDump debug buffer: %zu more bytes do not fit (%zu of %zu used); give a larger "
             "debug buffer",
             size, used_, buffer_.size());
  }
  if (pad != 0) std::memset(buffer_.data() + used_, 0, pad);
  const size_t offset = used_ + pad;
  if (size != 0) std::memcpy(buffer_.data() + offset, data, size);
  used_ = offset + size;
  return offset;
}

struct Block {
  flatbuffers::Offset<flatbuffers::String> name;
  int32_t bundled_input_index;
  std::vector<flatbuffers::Offset<fb::Event>> events;
  // Written only when the block names allocators (as the official writer).
  std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
};

struct ETDumpWriter::State {
  flatbuffers::FlatBufferBuilder fbb{1024};
  std::vector<Block> blocks;
  bool warned_dtype = false;

  // The block events go into; one named "Default" if none was started.
  Block& current() {
    if (blocks.empty()) blocks.push_back(Block{fbb.CreateString("Default"), -1, {}});
    return blocks.back();
  }
};

ETDumpWriter::ETDumpWriter() : s_(new State) {}
ETDumpWriter::~ETDumpWriter() = default;

void ETDumpWriter::create_event_block(const char* name, int32_t bundled_input_index) {
  s_->blocks.push_back(
      Block{s_->fbb.CreateString(name == nullptr ? "" : name), bundled_input_index, {}});
}

Result<uint32_t> ETDumpWriter::add_allocator(const char* name) {
  if (s_->blocks.empty() || !s_->blocks.back().events.empty()) {
    ETR_FAIL(Error::InvalidState,
             "ETDump: allocators are named right after a block starts, before its events");
  }
  Block& b = s_->blocks.back();
  if (b.allocators.size() >= static_cast<size_t>(INT32_MAX)) {
    ETR_FAIL(Error::InvalidArgument, "ETDump: too many allocators in one block");
  }
  b.allocators.push_back(
      fb::CreateAllocator(s_->fbb, s_->fbb.CreateString(name == nullptr ? "" : name)));
  return static_cast<uint32_t>(b.allocators.size());
}

void ETDumpWriter::add_allocation_event(uint32_t allocator_id, uint64_t size) {
  flatbuffers::FlatBufferBuilder& fbb = s_->fbb;
  // The schema's allocator_id is an int; ids past INT32_MAX cannot be named.
  const auto event = fb::CreateAllocationEvent(fbb, static_cast<int32_t>(allocator_id), size);
  s_->current().events.push_back(fb::CreateEvent(fbb, 0, event, 0));
}

void ETDumpWriter::add_profile_event(const char* name, int32_t chain, int32_t instruction,
                                     uint64_t start_ns, uint64_t end_ns) {
  flatbuffers::FlatBufferBuilder& fbb = s_->fbb;
  const auto name_off = fbb.CreateString(name == nullptr ? "" : name);
  const auto event =
      fb::CreateProfileEvent(fbb, name_off, chain, instruction, -1, 0, 0, start_ns, end_ns);
  s_->current().events.push_back(fb::CreateEvent(fbb, event));
}

Error ETDumpWriter::add_delegate_profile_event(DelegateId id, int32_t chain, int32_t instruction,
                                               uint64_t start_ns, uint64_t end_ns,
                                               const void* metadata, size_t metadata_len) {
  if ((id.int_id == -1) == (id.str_id == nullptr)) {
    ETR_FAIL(Error::InvalidArgument,
             "ETDump: a delegate event needs exactly one of an int id and a string id");
  }
  flatbuffers::FlatBufferBuilder& fbb = s_->fbb;
  static const uint8_t kNone = 0;
  const auto meta = fbb.CreateVector(
      metadata_len == 0 ? &kNone : static_cast<const uint8_t*>(metadata), metadata_len);
  flatbuffers::Offset<flatbuffers::String> str_id = 0;
  if (id.str_id != nullptr) str_id = fbb.CreateString(id.str_id);
  const auto event =
      fb::CreateProfileEvent(fbb, 0, chain, instruction, id.int_id, str_id, meta, start_ns, end_ns);
  s_->current().events.push_back(fb::CreateEvent(fbb, event));
  return Error::Ok;
}

Result<int64_t> ETDumpWriter::store_tensor(const Tensor& t) {
  const size_t nbytes = t.nbytes();
  if (nbytes == 0) return int64_t{-1};
  if (sink_ == nullptr) {
    ETR_FAIL(Error::InvalidState,
             "ETDump: a tensor cannot be logged without a debug buffer (set_data_sink)");
  }
  if (t.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "ETDump: a logged tensor of %zu bytes has no data", nbytes);
  }
  ETR_ASSIGN_OR_RETURN(size_t offset, sink_->write(t.const_data(), nbytes));
  return static_cast<int64_t>(offset);
}

Result<bool> ETDumpWriter::log_value(const EValue& value, uint64_t chain, int32_t instruction,
                                     bool program_output, DelegateId delegate) {
  flatbuffers::FlatBufferBuilder& fbb = s_->fbb;
  // Tensor metadata (its bytes stored first); a null offset when not loggable.
  auto tensor_table = [&](const Tensor& t) -> Result<flatbuffers::Offset<fb::Tensor>> {
    if (!loggable_dtype(t.dtype())) {
      if (!s_->warned_dtype) {
        ETR_LOG(Info, "ETDump: %s tensors are not logged (the format's readers refuse them)",
                to_string(t.dtype()));
        s_->warned_dtype = true;
      }
      return flatbuffers::Offset<fb::Tensor>(0);
    }
    ETR_ASSIGN_OR_RETURN(int64_t offset, store_tensor(t));
    // Both vectors are written even when empty (a 0-d tensor): readers need them.
    int64_t sizes[kTensorMaxDim] = {};
    int64_t strides[kTensorMaxDim] = {};
    for (size_t d = 0; d < t.dim(); ++d) {
      sizes[d] = t.size(d);
      strides[d] = t.stride(d);
    }
    const auto sizes_off = fbb.CreateVector(sizes, t.dim());
    const auto strides_off = fbb.CreateVector(strides, t.dim());
    return fb::CreateTensor(fbb, static_cast<fb::ScalarType>(t.dtype()), sizes_off, strides_off,
                            offset);
  };
  fb::ValueType type = fb::ValueType::Null;
  flatbuffers::Offset<fb::Tensor> tensor = 0;
  flatbuffers::Offset<fb::TensorList> list = 0;
  flatbuffers::Offset<fb::Int> int_value = 0;
  flatbuffers::Offset<fb::Double> double_value = 0;
  flatbuffers::Offset<fb::Bool> bool_value = 0;
  bool flag_output = false;
  switch (value.tag()) {
    case Tag::Tensor: {
      ETR_ASSIGN_OR_RETURN(tensor, tensor_table(value.to_tensor()));
      if (tensor.IsNull()) return false;
      type = fb::ValueType::Tensor;
      flag_output = program_output;
      break;
    }
    case Tag::TensorList: {
      const BoxedTensorList& items = value.to_tensor_list();
      for (size_t i = 0; i < items.size(); ++i) {
        if (!loggable_dtype(items[i].dtype())) return false;
      }
      std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
      for (size_t i = 0; i < items.size(); ++i) {
        ETR_ASSIGN_OR_RETURN(auto t, tensor_table(items[i]));
        tensors.push_back(t);
      }
      list = fb::CreateTensorList(fbb, fbb.CreateVector(tensors));
      type = fb::ValueType::TensorList;
      flag_output = program_output;
      break;
    }
    case Tag::Int:
      int_value = fb::CreateInt(fbb, value.to_int());
      type = fb::ValueType::Int;
      break;
    case Tag::Double:
      double_value = fb::CreateDouble(fbb, value.to_double());
      type = fb::ValueType::Double;
      break;
    case Tag::Bool:
      bool_value = fb::CreateBool(fbb, value.to_bool());
      type = fb::ValueType::Bool;
      break;
    default: return false;
  }
  // The official writer flags only tensor and tensor-list outputs.
  const auto output = flag_output ? fb::CreateBool(fbb, true) : flatbuffers::Offset<fb::Bool>(0);
  const auto entry =
      fb::CreateValue(fbb, type, tensor, list, int_value, 0, double_value, bool_value, output);
  flatbuffers::Offset<flatbuffers::String> str_id = 0;
  if (delegate.str_id != nullptr) str_id = fbb.CreateString(delegate.str_id);
  const auto event =
      fb::CreateDebugEvent(fbb, chain, instruction, entry, delegate.int_id, str_id, 0);
  s_->current().events.push_back(fb::CreateEvent(fbb, 0, 0, event));
  return true;
}

size_t ETDumpWriter::num_blocks() const { return s_->blocks.size(); }

std::vector<uint8_t> ETDumpWriter::finish() {
  flatbuffers::FlatBufferBuilder& fbb = s_->fbb;
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  for (const Block& b : s_->blocks) {
    const auto allocators = b.allocators.empty() ? 0 : fbb.CreateVector(b.allocators);
    const auto events = fbb.CreateVector(b.events);
    runs.push_back(fb::CreateRunData(fbb, b.name, b.bundled_input_index, allocators, events));
  }
  const auto root = fb::CreateETDump(fbb, 0, fbb.CreateVector(runs));
  fbb.FinishSizePrefixed(root, fb::ETDumpIdentifier());
  std::vector<uint8_t> out(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  reset();
  return out;
}

void ETDumpWriter::reset() {
  s_->fbb.Clear();
  s_->blocks.clear();
}

}  // namespace etdump
}  // namespace etr
