// Method load, step 2b: pick a kernel for each KernelCall. The registry's
// libraries that have the operator are tried in priority order; the first
// whose argument kinds and declared dtypes fit, and whose prepare step (if
// any) accepts the call, is bound to the instruction with its state.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "runtime/executor/flatbuffer_util.h"
#include "runtime/executor/method_loader.h"

namespace etr {
namespace {

// True when two tensors' memory ranges overlap without being the same range
// start (an exact alias is an in-place call, which kernels tolerate).
bool partially_overlaps(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  if (a0 == nullptr || b0 == nullptr || a0 == b0) return false;
  return a0 < b0 + b.capacity_bytes() && b0 < a0 + a.capacity_bytes();
}

// Logs why `lib`'s kernel refused the call before its prepare step (a
// refusing prepare logs its own message).
void log_mismatch(const char* method, size_t pc, const char* op, const KernelEntry& e,
                  const KernelLibrary& lib, const internal::KernelInstr& k, const CallMismatch& m) {
  switch (m.kind) {
    case CallMismatch::Kind::ArgCount:
      ETR_LOG(Error,
              "method '%s': instruction %zu (%s) passes %" PRIu32
              " arguments; library '%s' takes %u "
              "(return slot included)",
              method, pc, op, k.num_args, lib.name, e.num_args);
      break;
    case CallMismatch::Kind::ArgKind:
      ETR_LOG(Error,
              "method '%s': instruction %zu (%s) argument %zu is %s; library '%s' expects %s",
              method, pc, op, m.arg, to_string(k.args[m.arg]->tag()), lib.name,
              to_string(e.arg_kinds[m.arg]));
      break;
    case CallMismatch::Kind::Dtype: {
      char list[160];
      ETR_LOG(Error,
              "method '%s': instruction %zu (%s) argument %zu has dtype %s; library '%s' supports "
              "%s",
              method, pc, op, m.arg, to_string(m.dtype), lib.name,
              format_dtypes(e.dtypes, list, sizeof(list)));
      break;
    }
    case CallMismatch::Kind::None: break;
  }
}

}  // namespace

Error MethodLoader::name_operators() {
  const auto* ops = plan_->operators();
  const size_t n = ops == nullptr ? 0 : ops->size();
  method_->s_.op_names = alloc_->allocate_array<const char*>(n);
  if (n != 0 && method_->s_.op_names == nullptr)
    return method_allocation_failed(name(), "operator names", n * sizeof(char*));
  for (size_t i = 0; i < n; ++i) {
    const etr_fb::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (op == nullptr || op->name() == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "method '%s': operator %zu has no name", name(), i);
    }
    const size_t nl = op->name()->size();
    const size_t ol = op->overload() == nullptr ? 0 : op->overload()->size();
    char* full = alloc_->allocate_array<char>(nl + ol + 2);
    if (full == nullptr) return method_allocation_failed(name(), "an operator name", nl + ol + 2);
    std::memcpy(full, op->name()->c_str(), nl);
    size_t len = nl;
    if (ol != 0) {
      full[len++] = '.';
      std::memcpy(full + len, op->overload()->c_str(), ol);
      len += ol;
    }
    full[len] = '\0';
    method_->s_.op_names[i] = full;
  }
  return Error::Ok;
}

Error MethodLoader::resolve_kernel(size_t c, size_t pc, const etr_fb::KernelCall* call,
                                   internal::Instruction* out, size_t* missing) {
  const auto* ops = plan_->operators();
  const int32_t op_index = call->op_index();
  if (ops == nullptr || op_index < 0 || static_cast<size_t>(op_index) >= ops->size()) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': instruction %zu calls operator %" PRId32 ", which does not exist",
             name(), pc, op_index);
  }
  out->kind = internal::InstrKind::Kernel;
  out->kernel = internal::KernelInstr{};
  internal::KernelInstr* k = &out->kernel;
  k->op_index = static_cast<uint32_t>(op_index);
  ETR_RETURN_IF_ERROR(resolve_args(c, pc, call->args(), &k->args, &k->num_args));
  const KernelEntry* entry = nullptr;
  bool found = false;
  ETR_RETURN_IF_ERROR(select_kernel(pc, k->op_index, k, &entry, &found));
  if (!found) {
    ++*missing;
    return Error::Ok;
  }
  return check_kernel_args(pc, method_->s_.op_names[k->op_index], *entry, k);
}

CallFacts MethodLoader::call_facts(const internal::KernelInstr& k) const {
  CallFacts facts;
  for (uint32_t a = 0; a < k.num_args && a < 64; ++a) {
    // Which arguments are program constants (prepare may pack them).
    if (is_constant_value(static_cast<size_t>(k.args[a] - method_->s_.values)))
      facts.constant_args |= uint64_t{1} << a;
    // Scalars written while the method runs (not the return slot): their
    // stored kind is the exporter's placeholder.
    if (a + 1 < k.num_args && k.args[a]->is_scalar() && is_run_time_value(k.args[a]))
      facts.run_time_scalar_args |= uint64_t{1} << a;
  }
  facts.run_time_arg = has_run_time_arg(k, &facts.run_time_arg_index);
  return facts;
}

Error MethodLoader::select_kernel(size_t pc, uint32_t op_index, internal::KernelInstr* k,
                                  const KernelEntry** chosen, bool* found) {
  const char* op = method_->s_.op_names[op_index];
  KernelCandidate found_here[KernelRegistry::kMaxLibraries];
  const KernelCandidate* candidates = found_here;
  size_t n = 0;
  CandidateCache& cached = candidates_[op_index % kCachedOperators];
  if (cached.op_index >= 0 && static_cast<uint32_t>(cached.op_index) == op_index) {
    n = cached.count;
    candidates = cached.candidates;
  } else {
    n = registry_.candidates(StringView(op), op_name_hash(op), found_here,
                             KernelRegistry::kMaxLibraries);
    if (n <= kCachedCandidates) {
      cached.op_index = op_index <= INT32_MAX ? static_cast<int32_t>(op_index) : -1;
      cached.count = static_cast<uint32_t>(n);
      for (size_t i = 0; i < n; ++i) cached.candidates[i] = found_here[i];
    }
  }
  *found = n != 0;
  if (n == 0) return Error::Ok;
  const CallFacts facts = call_facts(*k);
  const KernelSelection sel =
      KernelRegistry::select_from(candidates, n, op, k->args, k->num_args, facts,
                                  memory_->method_allocator(), options_.thread_pool);
  switch (sel.outcome) {
    case KernelSelection::Outcome::Chosen:
      k->fn = sel.entry->fn;
      k->state = sel.state;
      k->reprepare = sel.reprepare;
      *chosen = sel.entry;
      return Error::Ok;
    case KernelSelection::Outcome::NotRegistered: return Error::Ok;
    case KernelSelection::Outcome::Failed:
      ETR_FAIL(sel.error,
               "method '%s': instruction %zu (%s): library '%s' failed to prepare the call: %s",
               name(), pc, op, sel.library->name, to_string(sel.error));
    case KernelSelection::Outcome::Declined: break;
  }
  // Only the last candidate's refusal is reported.
  if (sel.reason == KernelSelection::Decline::Mismatch) {
    log_mismatch(name(), pc, op, *sel.entry, *sel.library, *k, sel.mismatch);
  } else if (sel.reason == KernelSelection::Decline::StateAtRunTimeArg) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': instruction %zu (%s): library '%s' prepared state for the call, "
             "but argument %zu is written while the method runs",
             name(), pc, op, sel.library->name, facts.run_time_arg_index);
  }
  ETR_FAIL(sel.error,
           "method '%s': instruction %zu (%s): no registered kernel accepts the call (%s)", name(),
           pc, op, to_string(sel.error));
}

// Values written while the method runs, other than tensor data: the result
// slots of kernel calls that are not tensors (prim ops' symbolic ints),
// non-tensor delegate arguments, and every move target (a move can put a
// tensor of another dtype or rank in place). A kernel's prepare step checked
// its arguments' load-time values; for these, execute checks them again.
Error MethodLoader::mark_run_time_values() {
  const size_t n = method_->s_.num_values;
  if (n == 0) return Error::Ok;
  run_time_values_ = alloc_->allocate_array<uint8_t>((n + 7) / 8);
  if (run_time_values_ == nullptr)
    return method_allocation_failed(name(), "the run-time value map", (n + 7) / 8);
  std::memset(run_time_values_, 0, (n + 7) / 8);
  auto mark = [&](int32_t v, bool tensors_too) {
    if (v < 0 || static_cast<size_t>(v) >= n) return;  // reported when the instruction resolves
    if (!tensors_too && method_->s_.values[v].is_tensor()) return;
    run_time_values_[v / 8] |= static_cast<uint8_t>(1u << (v % 8));
  };
  const auto* chains = plan_->chains();
  for (flatbuffers::uoffset_t c = 0; chains != nullptr && c < chains->size(); ++c) {
    const auto* instrs = chains->Get(c) == nullptr ? nullptr : chains->Get(c)->instructions();
    for (flatbuffers::uoffset_t i = 0; instrs != nullptr && i < instrs->size(); ++i) {
      const etr_fb::Instruction* in = instrs->Get(i);
      if (in == nullptr) continue;
      if (const auto* kc = in->instr_args_as_KernelCall()) {
        if (kc->args() != nullptr && kc->args()->size() != 0)
          mark(kc->args()->Get(kc->args()->size() - 1), false);
      } else if (const auto* dc = in->instr_args_as_DelegateCall()) {
        for (flatbuffers::uoffset_t a = 0; dc->args() != nullptr && a < dc->args()->size(); ++a)
          mark(dc->args()->Get(a), false);
      } else if (const auto* mc = in->instr_args_as_MoveCall()) {
        mark(mc->move_to(), true);
      }
    }
  }
  return Error::Ok;
}

bool MethodLoader::is_run_time_value(const EValue* v) const {
  if (v == nullptr || run_time_values_ == nullptr) return false;
  const size_t i = static_cast<size_t>(v - method_->s_.values);
  return i < method_->s_.num_values && ((run_time_values_[i / 8] >> (i % 8)) & 1) != 0;
}

bool MethodLoader::is_run_time_arg(const EValue* v) const {
  bool written = is_run_time_value(v);
  if (v->is_int_list()) {
    const BoxedIntList& list = v->boxed_int_list();
    for (size_t i = 0; i < list.size() && !written; ++i)
      written = is_run_time_value(list.items()[i]);
  } else if (v->is_tensor_list() || v->is_optional_tensor_list()) {
    const BoxedTensorList list = v->to_tensor_list();
    for (size_t i = 0; i < list.size() && !written; ++i)
      written = is_run_time_value(list.items()[i]);
  }
  return written;
}

// True (with the argument's index) when an argument of `k`, or an item of a
// list argument, is written while the method runs.
bool MethodLoader::has_run_time_arg(const internal::KernelInstr& k, size_t* arg) const {
  // The last value is the return slot: kernels write it (prim ops) or
  // ignore it, never read it, so it cannot invalidate a prepare step.
  for (uint32_t a = 0; a + 1 < k.num_args; ++a) {
    if (is_run_time_arg(k.args[a])) {
      *arg = a;
      return true;
    }
  }
  return false;
}

// Program-level facts about the chosen kernel's arguments: it may not write
// a constant, outputs may not partially overlap inputs, and tensors without
// memory yet are checked before the call.
Error MethodLoader::check_kernel_args(size_t pc, const char* op_name, const KernelEntry& entry,
                                      internal::KernelInstr* k, bool check_overlap) {
  for (uint32_t a = 0; a < k->num_args; ++a) {
    const EValue* v = k->args[a];
    const size_t vi = static_cast<size_t>(v - method_->s_.values);
    if (arg_kind_of(entry, a) == ArgKind::MutableTensor && is_constant_value(vi)) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': instruction %zu (%s) writes argument %" PRIu32
               " (value %zu), a program constant",
               name(), pc, op_name, a, vi);
    }
    if (v->is_tensor() && v->to_tensor().mutable_data() == nullptr && v->to_tensor().numel() != 0 &&
        (entry.flags & kKernelBindsOutputs) == 0) {
      k->check_tensor_memory = true;
    }
  }
  return check_overlap ? check_output_overlap(pc, op_name, entry, k) : Error::Ok;
}

// A hostile memory plan can make a kernel's output overlap one of its other
// tensor arguments, which turns copies into undefined behaviour; the
// exporter's planner never does this for values live at the same call.
Error MethodLoader::check_output_overlap(size_t pc, const char* op_name, const KernelEntry& entry,
                                         const internal::KernelInstr* in) {
  for (uint32_t k = 0; k < in->num_args; ++k) {
    if (arg_kind_of(entry, k) != ArgKind::MutableTensor) continue;
    const Tensor& written = in->args[k]->to_tensor();
    for (uint32_t j = 0; j < in->num_args; ++j) {
      if (j == k || !in->args[j]->is_tensor() || in->args[j] == in->args[k]) continue;
      if (partially_overlaps(written, in->args[j]->to_tensor())) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu (%s) output argument %" PRIu32
                 " overlaps argument %" PRIu32
                 " in "
                 "planned memory",
                 name(), pc, op_name, k, j);
      }
    }
  }
  return Error::Ok;
}

}  // namespace etr
