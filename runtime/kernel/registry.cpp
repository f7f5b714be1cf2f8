#include "runtime/kernel/registry.h"

#include <cstdio>
#include <cstring>

#include "runtime/platform/format.h"

namespace etr {
namespace {

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

Error KernelRegistry::add(const KernelLibrary& lib) {
  if (lib.name == nullptr)
    ETR_FAIL(Error::InvalidArgument, "kernel registry: a library needs a name");
  if (num_libs_ >= kMaxLibraries) {
    ETR_FAIL(Error::RegistrationExceedingMaxKernels,
             "kernel registry: all %zu library slots are used (raise ETR_MAX_KERNEL_TABLES)",
             kMaxLibraries);
  }
  for (size_t l = 0; l < num_libs_; ++l) {
    if (StringView(libs_[l].name) == StringView(lib.name)) {
      ETR_FAIL(Error::RegistrationAlreadyRegistered,
               "kernel registry: a library named '%s' is already registered", lib.name);
    }
  }
  const Span<const KernelEntry> table = lib.kernels;
  bool sorted = true;
  for (size_t i = 1; i < table.size() && sorted; ++i)
    sorted = table[i - 1].name_hash <= table[i].name_hash;
  for (size_t i = 0; i < table.size(); ++i) {
    const KernelEntry& e = table[i];
    if (e.name == nullptr || e.fn == nullptr ||
        (e.num_args > 0 && e.num_args != kVariadicArgs && e.arg_kinds == nullptr) ||
        e.name_hash != op_name_hash(e.name)) {
      ETR_FAIL(Error::InvalidArgument, "kernel registry: library '%s' entry %zu is incomplete",
               lib.name, i);
    }
    // A sorted table keeps equal hashes adjacent: only that run can repeat a name.
    for (size_t j = i; j-- > 0;) {
      if (sorted && table[j].name_hash != e.name_hash) break;
      if (e.name_hash == table[j].name_hash && StringView(e.name) == StringView(table[j].name)) {
        ETR_FAIL(Error::RegistrationAlreadyRegistered,
                 "kernel registry: '%s' appears twice in library '%s'", e.name, lib.name);
      }
    }
  }
  for (size_t i = 0; i < lib.fusion_rules.size(); ++i) {
    if (!fusion_rule_valid(lib.fusion_rules[i])) {
      ETR_FAIL(
          Error::InvalidArgument, "kernel registry: library '%s' fusion rule %zu (%s) is malformed",
          lib.name, i,
          lib.fusion_rules[i].fused == nullptr ? "no fused kernel" : lib.fusion_rules[i].fused);
    }
  }
  // Insert after every library of equal or higher priority (stable).
  size_t pos = num_libs_;
  while (pos > 0 && libs_[pos - 1].priority < lib.priority) {
    libs_[pos] = libs_[pos - 1];
    sorted_[pos] = sorted_[pos - 1];
    --pos;
  }
  libs_[pos] = lib;
  sorted_[pos] = sorted;
  ++num_libs_;
  return Error::Ok;
}

const KernelEntry* KernelRegistry::find(StringView name) const {
  const KernelEntry* found = nullptr;
  uint32_t h = kOpNameHashSeed;
  for (size_t i = 0; i < name.size(); ++i) h = op_name_hash_step(h, name.data()[i]);
  for_each_candidate(name, h, [&](const KernelEntry& e, const KernelLibrary&) {
    found = &e;
    return true;
  });
  return found;
}

KernelSelection KernelRegistry::select(const char* op, const char* op_label, EValue* const* args,
                                       size_t n, const CallFacts& facts,
                                       MemoryAllocator* method_allocator, ThreadPool* pool) const {
  KernelCandidate found[kMaxLibraries];
  const size_t count = candidates(StringView(op), op_name_hash(op), found, kMaxLibraries);
  return select_from(found, count, op_label, args, n, facts, method_allocator, pool);
}

KernelSelection KernelRegistry::select_from(const KernelCandidate* candidates,
                                            size_t num_candidates, const char* op_label,
                                            EValue* const* args, size_t n, const CallFacts& facts,
                                            MemoryAllocator* method_allocator, ThreadPool* pool) {
  KernelSelection s;
  s.num_candidates = num_candidates;
  if (num_candidates == 0) return s;  // NotRegistered
  s.outcome = KernelSelection::Outcome::Declined;
  for (size_t i = 0; i < num_candidates; ++i) {
    const KernelEntry& e = *candidates[i].entry;
    s.entry = &e;
    s.library = candidates[i].library;
    KernelPrepareContext pctx(op_label, method_allocator, pool);
    pctx.set_constant_args(facts.constant_args);
    pctx.set_run_time_scalar_args(facts.run_time_scalar_args);
    const Error err = accept_call(e, args, n, pctx, &s.mismatch);
    if (err != Error::Ok) {
      s.error = err;
      if (s.mismatch.kind != CallMismatch::Kind::None) {
        s.reason = KernelSelection::Decline::Mismatch;
        continue;
      }
      if (err == Error::NotSupported) {
        s.reason = KernelSelection::Decline::Prepare;
        continue;
      }
      s.outcome = KernelSelection::Outcome::Failed;
      s.reason = KernelSelection::Decline::None;
      return s;
    }
    PrepareFn reprepare = nullptr;
    if (e.prepare != nullptr && facts.run_time_arg) {
      if (pctx.state() != nullptr) {
        // State built from load-time values cannot follow an argument the
        // method rewrites: decline, so a library without state runs it.
        s.error = Error::NotSupported;
        s.reason = KernelSelection::Decline::StateAtRunTimeArg;
        continue;
      }
      reprepare = e.prepare;
    }
    s.outcome = KernelSelection::Outcome::Chosen;
    s.entry = &e;
    s.state = pctx.state();
    s.reprepare = reprepare;
    s.error = Error::Ok;
    s.reason = KernelSelection::Decline::None;
    return s;
  }
  return s;
}

size_t KernelRegistry::num_kernels() const {
  size_t n = 0;
  for (size_t l = 0; l < num_libs_; ++l) n += libs_[l].kernels.size();
  return n;
}

bool find_unsupported_dtype(DtypeSet set, EValue* const* args, size_t n, size_t* arg,
                            ScalarType* dtype) {
  auto refuses = [&](size_t k, const Tensor& t) {
    if (set.contains(t.dtype())) return false;
    *arg = k;
    *dtype = t.dtype();
    return true;
  };
  for (size_t k = 0; k < n; ++k) {
    const EValue* v = args[k];
    if (v->is_tensor()) {
      if (refuses(k, v->to_tensor())) return true;
    } else if (v->is_tensor_list() || v->is_optional_tensor_list()) {
      const BoxedTensorList list = v->to_tensor_list();
      for (size_t i = 0; i < list.size(); ++i) {
        const Tensor* t = list.at(i);
        if (t != nullptr && refuses(k, *t)) return true;
      }
    }
  }
  return false;
}

Error accept_call(const KernelEntry& entry, EValue* const* args, size_t n,
                  KernelPrepareContext& ctx, CallMismatch* mismatch) {
  *mismatch = CallMismatch{};
  ctx.set_num_args(n);
  if (entry.num_args == kVariadicArgs) {  // the kernel checks its own arguments
    if (find_unsupported_dtype(entry.dtypes, args, n, &mismatch->arg, &mismatch->dtype)) {
      mismatch->kind = CallMismatch::Kind::Dtype;
      return Error::InvalidType;
    }
    return entry.prepare == nullptr ? Error::Ok : entry.prepare(ctx, args);
  }
  if (entry.num_args != n) {
    mismatch->kind = CallMismatch::Kind::ArgCount;
    return Error::InvalidProgram;
  }
  for (size_t a = 0; a < n; ++a) {
    const bool scalar_slot = ctx.is_run_time_scalar_arg(a) && args[a]->is_scalar() &&
                             (arg_kind_accepts(entry.arg_kinds[a], Tag::Int) ||
                              arg_kind_accepts(entry.arg_kinds[a], Tag::Double) ||
                              arg_kind_accepts(entry.arg_kinds[a], Tag::Bool));
    if (!scalar_slot && !arg_kind_accepts(entry.arg_kinds[a], args[a]->tag())) {
      mismatch->kind = CallMismatch::Kind::ArgKind;
      mismatch->arg = a;
      return Error::InvalidProgram;
    }
  }
  if (find_unsupported_dtype(entry.dtypes, args, n, &mismatch->arg, &mismatch->dtype)) {
    mismatch->kind = CallMismatch::Kind::Dtype;
    return Error::InvalidType;
  }
  return entry.prepare == nullptr ? Error::Ok : entry.prepare(ctx, args);
}

const char* format_dtypes(DtypeSet set, char* buf, size_t cap) {
  if (cap == 0) return buf;
  buf[0] = '\0';
  if (set == kAllTypes) {
    internal::format_message(buf, cap, "any");
    return buf;
  }
  size_t pos = 0;
  for (int t = 0; t < kNumScalarTypes && pos + 1 < cap; ++t) {
    if (!set.contains(static_cast<ScalarType>(t))) continue;
    const size_t w = internal::format_message(buf + pos, cap - pos, "%s%s", pos == 0 ? "" : ", ",
                                              to_string(static_cast<ScalarType>(t)));
    pos += w;
  }
  return buf;
}

KernelRegistry& default_kernel_registry() { return g_default_registry; }

}  // namespace etr
