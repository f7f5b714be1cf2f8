// Named data stored inside the program (Program.named_data -> segments).
#include "runtime/executor/method_loader.h"

namespace etr {

Result<FreeableBuffer> Program::PteNamedData::get_data(StringView key) const {
  const auto* named = program->flatbuffer()->named_data();
  const size_t n = named == nullptr ? 0 : named->size();
  for (size_t i = 0; i < n; ++i) {
    const etr_fb::NamedData* nd = named->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (StringView(nd->key()->c_str(), nd->key()->size()) == key) {
      return program->load_segment(nd->segment_index(), SegmentKind::External);
    }
  }
  return Error::NotFound;
}

Result<TensorLayout> Program::PteNamedData::get_layout(StringView key) const {
  (void)key;
  return Error::NotFound;  // the program format records no layouts for named data
}

size_t Program::PteNamedData::num_keys() const {
  const auto* named = program->flatbuffer()->named_data();
  return named == nullptr ? 0 : named->size();
}

Result<const char*> Program::PteNamedData::key_at(size_t index) const {
  if (index >= num_keys()) {
    ETR_FAIL(Error::InvalidArgument, "named data index %zu is out of range (%zu keys)", index,
             num_keys());
  }
  return program->flatbuffer()
      ->named_data()
      ->Get(static_cast<flatbuffers::uoffset_t>(index))
      ->key()
      ->c_str();
}

}  // namespace etr
