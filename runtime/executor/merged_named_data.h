// Internal: the program's named data followed by the caller's external maps,
// seen as one NamedDataMap (what delegates and EXTERNAL tensors resolve from).
#pragma once

#include "runtime/core/named_data_map.h"

namespace etr {
namespace internal {

class MergedNamedData final : public NamedDataMap {
 public:
  static constexpr size_t kMaxMaps = 8;

  // Appends a map (null maps are skipped); false when kMaxMaps are held.
  bool add(const NamedDataMap* map) {
    if (map == nullptr) return true;
    if (count_ == kMaxMaps) return false;
    maps_[count_++] = map;
    return true;
  }

  // The first map that has the key wins; NotFound when none has it.
  Result<FreeableBuffer> get_data(StringView key) const override {
    for (size_t i = 0; i < count_; ++i) {
      Result<FreeableBuffer> r = maps_[i]->get_data(key);
      if (r.ok() || r.error() != Error::NotFound) return r;
    }
    return Error::NotFound;
  }
  Result<TensorLayout> get_layout(StringView key) const override {
    for (size_t i = 0; i < count_; ++i) {
      Result<TensorLayout> r = maps_[i]->get_layout(key);
      if (r.ok() || r.error() != Error::NotFound) return r;
    }
    return Error::NotFound;
  }
  size_t num_keys() const override {
    size_t n = 0;
    for (size_t i = 0; i < count_; ++i) n += maps_[i]->num_keys();
    return n;
  }
  Result<const char*> key_at(size_t index) const override {
    for (size_t i = 0; i < count_; ++i) {
      const size_t n = maps_[i]->num_keys();
      if (index < n) return maps_[i]->key_at(index);
      index -= n;
    }
    return Error::InvalidArgument;
  }

 private:
  const NamedDataMap* maps_[kMaxMaps] = {};
  size_t count_ = 0;
};

}  // namespace internal
}  // namespace etr
