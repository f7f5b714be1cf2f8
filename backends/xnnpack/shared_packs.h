// Packed weights that the delegates of one method share. An exporter that
// names its constants by content (ExecuTorch's named data: the key is the
// data's hash) gives weights used by several layers, or by the same layer
// lowered into several delegates, one key; each delegate's init would pack
// them again and keep one more copy. SharedPacks remembers, by named-data
// key and packed form, what an earlier native node packed into the method
// allocator (which outlives every delegate of the method), so that a later
// node with the same key and form reuses it. A key names its bytes only
// within one named-data map, and two programs (or two methods given other
// external data) may load with one allocator: the form records where the
// map that serves the key stores the key's string (the same address for
// every delegate reading that map, another for any other live map), besides
// everything else the packing depended on (the layout's kind, the dims). A
// delegate's packs are forgotten when it is destroyed (before its program,
// whose storage a later map may reuse).
//
// The delegates of a method are initialized one after another, but two
// methods given one allocator may load on different threads: every call
// holds a mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace etr {

class NamedDataMap;

namespace xnnpack {

// How the weights were packed: everything besides the key's bytes that the
// packed result depends on.
struct PackForm {
  uint32_t kind = 0;  // the packing (one value per packing routine and variant)
  uint64_t rows = 0;
  uint64_t cols = 0;
  uint64_t source_bytes = 0;       // the constant's size
  const void* key_home = nullptr;  // the serving map's copy of the key (key_at)
  bool operator==(const PackForm& o) const {
    return kind == o.kind && rows == o.rows && cols == o.cols && source_bytes == o.source_bytes &&
           key_home == o.key_home;
  }
};

// What one packing produced: up to two blocks (e.g. packed weights and
// their row sums), owned by the method allocator.
struct SharedPack {
  const void* first = nullptr;
  const void* second = nullptr;
};

class SharedPacks;

// The address of a key's string in the first map of a named-data map that
// has it (what NamedDataMap::key_at returns): the index of every key is
// built on the first lookup (one pass over the keys per delegate init that
// looks one up). Lives during one delegate's init (key_at's strings stay
// valid while the program and data files do).
class KeyHomes {
 public:
  explicit KeyHomes(const NamedDataMap* named_data) : named_data_(named_data) {}
  // Null when no map has `key` (or key or the map is null).
  const void* find(const char* key);

 private:
  const NamedDataMap* named_data_;
  bool built_ = false;
  std::unordered_map<std::string_view, const char*> homes_;
};

// Where a delegate's init looks up and records packs: `packs` (null: no
// sharing), the homes of the keys of the named data its payload reads, and
// the delegate (the owner of what it records).
struct PackScope {
  SharedPacks* packs = nullptr;
  KeyHomes* homes = nullptr;
  const void* owner = nullptr;
};

class SharedPacks {
 public:
  // The pack recorded for `key` in `form`; false (and *out untouched) when
  // none is, or key is null.
  bool find(const char* key, const PackForm& form, SharedPack* out);
  // Records `pack` for `key` in `form`, owned by scope.owner (the first one
  // recorded stays); nothing for a null key.
  void add(const PackScope& scope, const char* key, const PackForm& form, const SharedPack& pack);
  // Drops the packs `owner` recorded.
  void forget(const void* owner);
  // Packs recorded, and finds that returned one (for log lines and tests).
  size_t size();
  size_t hits();

 private:
  struct Entry {
    const void* owner;
    std::string key;
    PackForm form;
    SharedPack pack;
  };
  const Entry* lookup(const char* key, const PackForm& form) const;
  std::mutex mutex_;
  std::vector<Entry> entries_;
  size_t hits_ = 0;
};

}  // namespace xnnpack
}  // namespace etr
