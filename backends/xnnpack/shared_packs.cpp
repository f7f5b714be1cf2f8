#include "backends/xnnpack/shared_packs.h"

#include <cstring>
#include <utility>

#include "runtime/core/named_data_map.h"

namespace etr {
namespace xnnpack {

const void* KeyHomes::find(const char* key) {
  if (named_data_ == nullptr || key == nullptr) return nullptr;
  if (!built_) {
    built_ = true;
    const size_t n = named_data_->num_keys();
    homes_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Result<const char*> k = named_data_->key_at(i);
      if (k.ok() && *k != nullptr) homes_.emplace(std::string_view(*k), *k);  // the first stays
    }
  }
  const auto it = homes_.find(std::string_view(key));
  return it == homes_.end() ? nullptr : it->second;
}

const SharedPacks::Entry* SharedPacks::lookup(const char* key, const PackForm& form) const {
  for (const Entry& e : entries_) {
    if (e.form == form && std::strcmp(e.key.c_str(), key) == 0) return &e;
  }
  return nullptr;
}

bool SharedPacks::find(const char* key, const PackForm& form, SharedPack* out) {
  if (key == nullptr) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const Entry* e = lookup(key, form);
  if (e == nullptr) return false;
  *out = e->pack;
  ++hits_;
  return true;
}

void SharedPacks::add(const PackScope& scope, const char* key, const PackForm& form,
                      const SharedPack& pack) {
  if (key == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (lookup(key, form) != nullptr) return;
  // Built with -fno-exceptions: like the delegate's other containers at
  // init, a failed allocation here ends the process.
  entries_.push_back(Entry{scope.owner, std::string(key), form, pack});
}

void SharedPacks::forget(const void* owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t kept = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].owner == owner) continue;
    if (kept != i) entries_[kept] = std::move(entries_[i]);
    ++kept;
  }
  entries_.resize(kept);
}

size_t SharedPacks::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

size_t SharedPacks::hits() {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

}  // namespace xnnpack
}  // namespace etr
