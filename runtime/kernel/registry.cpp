#include "runtime/kernel/registry.h"

#include <cstring>

namespace etr {
namespace {

StringView key_of(const KernelEntry& e) { return e.key == nullptr ? StringView() : StringView(e.key); }

// Constant-initialised: no constructor runs at startup.
KernelRegistry g_default_registry;

}  // namespace

bool arg_kind_accepts(ArgKind kind, Tag tag) {
  switch (kind) {
    case ArgKind::Any: return true;
    case ArgKind::Tensor:
    case ArgKind::MutableTensor: return tag == Tag::Tensor;
    case ArgKind::OptionalTensor: return tag == Tag::Tensor || tag == Tag::None;
    case ArgKind::Int: return tag == Tag::Int;
    case ArgKind::OptionalInt: return tag == Tag::Int || tag == Tag::None;
    case ArgKind::Double: return tag == Tag::Double || tag == Tag::Int;
    case ArgKind::OptionalDouble: return tag == Tag::Double || tag == Tag::Int || tag == Tag::None;
    case ArgKind::Bool: return tag == Tag::Bool;
    case ArgKind::OptionalBool: return tag == Tag::Bool || tag == Tag::None;
    case ArgKind::Scalar: return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool;
    case ArgKind::OptionalScalar:
      return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool || tag == Tag::None;
    case ArgKind::String: return tag == Tag::String;
    case ArgKind::OptionalString: return tag == Tag::String || tag == Tag::None;
    case ArgKind::IntList: return tag == Tag::IntList;
    case ArgKind::OptionalIntList: return tag == Tag::IntList || tag == Tag::None;
    case ArgKind::DoubleList: return tag == Tag::DoubleList;
    case ArgKind::BoolList: return tag == Tag::BoolList;
    case ArgKind::TensorList: return tag == Tag::TensorList;
    case ArgKind::OptionalTensorList: return tag == Tag::OptionalTensorList;
  }
  return false;
}

const char* to_string(ArgKind kind) {
  switch (kind) {
    case ArgKind::Any: return "Any";
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::MutableTensor: return "Tensor(a!)";
    case ArgKind::OptionalTensor: return "Tensor?";
    case ArgKind::Int: return "int";
    case ArgKind::OptionalInt: return "int?";
    case ArgKind::Double: return "float";
    case ArgKind::OptionalDouble: return "float?";
    case ArgKind::Bool: return "bool";
    case ArgKind::OptionalBool: return "bool?";
    case ArgKind::Scalar: return "Scalar";
    case ArgKind::OptionalScalar: return "Scalar?";
    case ArgKind::String: return "str";
    case ArgKind::OptionalString: return "str?";
    case ArgKind::IntList: return "int[]";
    case ArgKind::OptionalIntList: return "int[]?";
    case ArgKind::DoubleList: return "float[]";
    case ArgKind::BoolList: return "bool[]";
    case ArgKind::TensorList: return "Tensor[]";
    case ArgKind::OptionalTensorList: return "Tensor?[]";
  }
  return "?";
}

Error KernelRegistry::add(Span<const KernelEntry> table) {
  if (num_tables_ >= kMaxTables) {
    ETR_FAIL(Error::RegistrationExceedingMaxKernels,
             "kernel registry: all %zu table slots are used (raise ETR_MAX_KERNEL_TABLES)",
             kMaxTables);
  }
  for (size_t i = 0; i < table.size(); ++i) {
    const KernelEntry& e = table[i];
    if (e.name == nullptr || e.fn == nullptr || (e.num_args > 0 && e.arg_kinds == nullptr)) {
      ETR_FAIL(Error::InvalidArgument, "kernel registry: entry %zu of the table is incomplete", i);
    }
    const StringView name(e.name);
    const StringView key = key_of(e);
    for (size_t j = 0; j < i; ++j) {
      if (name == StringView(table[j].name) && key == key_of(table[j])) {
        ETR_FAIL(Error::RegistrationAlreadyRegistered,
                 "kernel registry: '%s' appears twice in one table", e.name);
      }
    }
    const KernelEntry* existing = find(name, key);
    if (existing != nullptr && key == key_of(*existing)) {
      ETR_FAIL(Error::RegistrationAlreadyRegistered,
               "kernel registry: '%s'%s%s is already registered", e.name, e.key ? " key " : "",
               e.key ? e.key : "");
    }
  }
  for (const KernelEntry& e : table) has_keyed_ = has_keyed_ || e.key != nullptr;
  tables_[num_tables_++] = table;
  return Error::Ok;
}

const KernelEntry* KernelRegistry::find(StringView name, StringView key) const {
  const KernelEntry* fallback = nullptr;
  for (size_t t = 0; t < num_tables_; ++t) {
    for (const KernelEntry& e : tables_[t]) {
      if (StringView(e.name) != name) continue;
      const StringView k = key_of(e);
      if (!key.empty() && k == key) return &e;
      if (k.empty() && fallback == nullptr) fallback = &e;
    }
  }
  return fallback;
}

bool KernelRegistry::find_any(StringView name) const {
  for (size_t t = 0; t < num_tables_; ++t) {
    for (const KernelEntry& e : tables_[t]) {
      if (StringView(e.name) == name) return true;
    }
  }
  return false;
}

size_t KernelRegistry::num_kernels() const {
  size_t n = 0;
  for (size_t t = 0; t < num_tables_; ++t) n += tables_[t].size();
  return n;
}

KernelRegistry& default_kernel_registry() { return g_default_registry; }

}  // namespace etr
