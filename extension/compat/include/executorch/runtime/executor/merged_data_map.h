// Compatibility layer (extension/compat): the official runtime-internal
// MergedDataMap, a NamedDataMap over exactly two maps (a program's own named
// data and an external one). Keys must not repeat across the two; lookups
// try the first map, then the second. Neither map is owned.
#pragma once

#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/platform/compiler.h>

#include <cinttypes>
#include <cstdint>

namespace executorch {
namespace runtime {
namespace internal {

class MergedDataMap final : public NamedDataMap {
 public:
  // Fails with InvalidArgument on a null map or a key present in both.
  static Result<MergedDataMap> load(const NamedDataMap* first, const NamedDataMap* second) {
    ET_CHECK_OR_RETURN_ERROR(first != nullptr && second != nullptr, InvalidArgument,
                             "MergedDataMap: a data map is null");
    Result<uint32_t> count = first->get_num_keys();
    if (!count.ok()) return count.error();
    for (uint32_t i = 0; i < *count; ++i) {
      Result<const char*> key = first->get_key(i);
      if (!key.ok()) return key.error();
      const Error found = second->get_tensor_layout(*key).error();
      ET_CHECK_OR_RETURN_ERROR(found == Error::NotFound || found == Error::NotImplemented,
                               InvalidArgument, "MergedDataMap: key '%s' is in both maps", *key);
    }
    return MergedDataMap(first, second);
  }

  ET_NODISCARD Result<const TensorLayout> get_tensor_layout(std::string_view key) const override {
    Result<const TensorLayout> layout = first_->get_tensor_layout(key);
    if (layout.ok() || layout.error() != Error::NotFound) return layout;
    return second_->get_tensor_layout(key);
  }

  ET_NODISCARD Result<FreeableBuffer> get_data(std::string_view key) const override {
    Result<FreeableBuffer> data = first_->get_data(key);
    if (data.error() != Error::NotFound) return data;
    return second_->get_data(key);
  }

  ET_NODISCARD Error load_data_into(std::string_view, void*, size_t) const override {
    return Error::NotImplemented;
  }

  ET_NODISCARD Result<uint32_t> get_num_keys() const override {
    Result<uint32_t> a = first_->get_num_keys();
    if (!a.ok()) return a.error();
    Result<uint32_t> b = second_->get_num_keys();
    if (!b.ok()) return b.error();
    return *a + *b;
  }

  ET_NODISCARD Result<const char*> get_key(uint32_t index) const override {
    Result<uint32_t> a = first_->get_num_keys();
    if (!a.ok()) return a.error();
    if (index < *a) return first_->get_key(index);
    Result<uint32_t> total = get_num_keys();
    if (!total.ok()) return total.error();
    ET_CHECK_OR_RETURN_ERROR(index < *total, InvalidArgument,
                             "MergedDataMap: key index %" PRIu32 " out of range (%" PRIu32 " keys)",
                             index, *total);
    return second_->get_key(index - *a);
  }

  MergedDataMap(MergedDataMap&&) noexcept = default;
  ~MergedDataMap() override = default;

 private:
  MergedDataMap(const NamedDataMap* first, const NamedDataMap* second)
      : first_(first), second_(second) {}
  MergedDataMap(const MergedDataMap&) = delete;
  MergedDataMap& operator=(MergedDataMap&&) noexcept = delete;
  MergedDataMap& operator=(const MergedDataMap&) = delete;

  const NamedDataMap* first_;
  const NamedDataMap* second_;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
