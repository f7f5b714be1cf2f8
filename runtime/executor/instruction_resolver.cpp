// Method load, step 2: turn every chain's instructions into a table of
// resolved kernels and pre-bound argument pointers, checking every index.
#include <cstdio>
#include <cstring>

#include "runtime/executor/method_loader.h"

namespace etr {
namespace {

constexpr size_t kMaxOpName = 256;
constexpr size_t kMaxKeyLength = 512;

// "name" or "name.overload" into buf; false if it does not fit.
bool op_full_name(const etr_fb::Operator* op, char* buf, size_t cap) {
  const char* n = op->name()->c_str();
  const flatbuffers::String* ov = op->overload();
  const int w = (ov == nullptr || ov->size() == 0) ? std::snprintf(buf, cap, "%s", n)
                                                    : std::snprintf(buf, cap, "%s.%s", n, ov->c_str());
  return w >= 0 && static_cast<size_t>(w) < cap;
}

// Kernel key from the call's tensor arguments: "v1/<dtype>;<d0,d1,...>|...".
bool build_kernel_key(EValue* const* args, size_t n, char* buf, size_t cap) {
  size_t pos = static_cast<size_t>(std::snprintf(buf, cap, "v1/"));
  bool first = true;
  for (size_t i = 0; i < n; ++i) {
    if (!args[i]->is_tensor()) continue;
    const Tensor& t = args[i]->to_tensor();
    int w = std::snprintf(buf + pos, cap - pos, "%s%d;", first ? "" : "|", static_cast<int>(t.dtype()));
    if (w < 0 || static_cast<size_t>(w) >= cap - pos) return false;
    pos += static_cast<size_t>(w);
    for (size_t d = 0; d < t.dim(); ++d) {
      w = std::snprintf(buf + pos, cap - pos, d == 0 ? "%u" : ",%u", t.dim_order()[d]);
      if (w < 0 || static_cast<size_t>(w) >= cap - pos) return false;
      pos += static_cast<size_t>(w);
    }
    first = false;
  }
  return true;
}

// True when two tensors' memory ranges overlap without being the same range
// start (an exact alias is an in-place call, which kernels tolerate).
bool partially_overlaps(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  if (a0 == nullptr || b0 == nullptr || a0 == b0) return false;
  return a0 < b0 + b.capacity_bytes() && b0 < a0 + a.capacity_bytes();
}

bool is_constant_tensor(const etr_fb::EValue* v) {
  const etr_fb::Tensor* t = v->val_as_Tensor();
  if (t == nullptr || t->allocation_info() != nullptr) return false;
  const bool external = t->extra_tensor_info() != nullptr &&
                        t->extra_tensor_info()->location() == etr_fb::TensorDataLocation::EXTERNAL;
  return external || t->data_buffer_idx() != 0;
}

}  // namespace

Error MethodLoader::resolve_chains() {
  const auto* chains = plan_->chains();
  if (chains == nullptr || chains->size() == 0) {
    ETR_FAIL(Error::InvalidProgram, "method '%s' has no chains", name());
  }
  const size_t num_chains = chains->size();
  method_->chains_ = alloc_->allocate_array<internal::Chain>(num_chains);
  if (method_->chains_ == nullptr) return method_allocation_failed(name(), "chains", num_chains * sizeof(internal::Chain));
  method_->num_chains_ = num_chains;
  size_t missing = 0;
  for (size_t c = 0; c < num_chains; ++c) {
    const etr_fb::Chain* chain = chains->Get(static_cast<flatbuffers::uoffset_t>(c));
    if (chain == nullptr) ETR_FAIL(Error::InvalidProgram, "method '%s': chain %zu is null", name(), c);
    const auto* instrs = chain->instructions();
    const size_t n = instrs == nullptr ? 0 : instrs->size();
    internal::Instruction* table = alloc_->allocate_array<internal::Instruction>(n);
    if (n != 0 && table == nullptr) {
      return method_allocation_failed(name(), "the instruction table", n * sizeof(internal::Instruction));
    }
    method_->chains_[c] = internal::Chain{table, n};
    for (size_t pc = 0; pc < n; ++pc) {
      table[pc] = internal::Instruction{};
      ETR_RETURN_IF_ERROR(resolve_instruction(c, pc, n, instrs->Get(static_cast<flatbuffers::uoffset_t>(pc)),
                                              &table[pc], &missing));
    }
  }
  return missing == 0 ? Error::Ok : report_missing_operators(missing);
}

Error MethodLoader::resolve_instruction(size_t c, size_t pc, size_t chain_len,
                                        const etr_fb::Instruction* in, internal::Instruction* out,
                                        size_t* missing) {
  if (in == nullptr || in->instr_args() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': chain %zu instruction %zu is empty", name(), c, pc);
  }
  switch (in->instr_args_type()) {
    case etr_fb::InstructionArguments::KernelCall:
      return resolve_kernel(c, pc, in->instr_args_as_KernelCall(), out, missing);
    case etr_fb::InstructionArguments::DelegateCall: {
      const etr_fb::DelegateCall* d = in->instr_args_as_DelegateCall();
      const size_t nd = plan_->delegates() == nullptr ? 0 : plan_->delegates()->size();
      if (d->delegate_index() < 0 || static_cast<size_t>(d->delegate_index()) >= nd) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu calls delegate %d but the method has %zu delegates",
                 name(), pc, d->delegate_index(), nd);
      }
      out->kind = internal::InstrKind::Delegate;
      out->a = static_cast<uint32_t>(d->delegate_index());
      return resolve_args(c, pc, d->args(), out);
    }
    case etr_fb::InstructionArguments::MoveCall: {
      const etr_fb::MoveCall* m = in->instr_args_as_MoveCall();
      if (!value_in_range(m->move_from()) || !value_in_range(m->move_to()) ||
          method_->values_[m->move_from()].tag() != method_->values_[m->move_to()].tag()) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu moves value %d to %d: out of range or of different kinds",
                 name(), pc, m->move_from(), m->move_to());
      }
      *out = internal::Instruction{internal::InstrKind::Move, static_cast<uint32_t>(m->move_from()),
                                   static_cast<uint32_t>(m->move_to()), false, nullptr, nullptr};
      return Error::Ok;
    }
    case etr_fb::InstructionArguments::JumpFalseCall:
      return resolve_jump(pc, chain_len, in->instr_args_as_JumpFalseCall(), out);
    case etr_fb::InstructionArguments::FreeCall: {
      const int32_t v = in->instr_args_as_FreeCall()->value_index();
      if (!value_in_range(v) || !method_->values_[v].is_tensor()) {
        ETR_FAIL(Error::InvalidProgram, "method '%s': instruction %zu frees value %d, which is not a tensor",
                 name(), pc, v);
      }
      *out = internal::Instruction{internal::InstrKind::Free, static_cast<uint32_t>(v), 0, false,
                                   nullptr, nullptr};
      return Error::Ok;
    }
    default:
      ETR_FAIL(Error::InvalidProgram, "method '%s': chain %zu instruction %zu has unknown type %d",
               name(), c, pc, static_cast<int>(in->instr_args_type()));
  }
}

Error MethodLoader::resolve_jump(size_t pc, size_t chain_len, const etr_fb::JumpFalseCall* j,
                                 internal::Instruction* out) {
  const int32_t cond = j->cond_value_index();
  const int32_t dest = j->destination_instruction();
  const bool cond_ok = value_in_range(cond) &&
                       (method_->values_[cond].is_bool() ||
                        (method_->values_[cond].is_tensor() &&
                         method_->values_[cond].to_tensor().dtype() == ScalarType::Bool));
  if (!cond_ok || dest < 0 || static_cast<size_t>(dest) > chain_len) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': instruction %zu jumps to %d on value %d: the target must be within "
             "the chain (%zu instructions) and the condition a Bool or bool tensor",
             name(), pc, dest, cond, chain_len);
  }
  *out = internal::Instruction{internal::InstrKind::JumpFalse, static_cast<uint32_t>(cond),
                               static_cast<uint32_t>(dest), false, nullptr, nullptr};
  return Error::Ok;
}

Error MethodLoader::resolve_args(size_t c, size_t pc, const flatbuffers::Vector<int32_t>* args,
                                 internal::Instruction* out) {
  const size_t n = args == nullptr ? 0 : args->size();
  EValue** table = alloc_->allocate_array<EValue*>(n);
  if (n != 0 && table == nullptr) return method_allocation_failed(name(), "instruction arguments", n * sizeof(EValue*));
  for (size_t k = 0; k < n; ++k) {
    const int32_t v = args->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (!value_in_range(v)) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': chain %zu instruction %zu argument %zu refers to value %d (%zu values)",
               name(), c, pc, k, v, method_->num_values_);
    }
    table[k] = &method_->values_[v];
  }
  out->args = table;
  out->b = static_cast<uint32_t>(n);
  return Error::Ok;
}

Error MethodLoader::resolve_kernel(size_t c, size_t pc, const etr_fb::KernelCall* call,
                                   internal::Instruction* out, size_t* missing) {
  const auto* ops = plan_->operators();
  const int32_t op_index = call->op_index();
  if (ops == nullptr || op_index < 0 || static_cast<size_t>(op_index) >= ops->size() ||
      ops->Get(static_cast<flatbuffers::uoffset_t>(op_index)) == nullptr ||
      ops->Get(static_cast<flatbuffers::uoffset_t>(op_index))->name() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': instruction %zu calls operator %d, which does not exist",
             name(), pc, op_index);
  }
  out->kind = internal::InstrKind::Kernel;
  out->a = static_cast<uint32_t>(op_index);
  ETR_RETURN_IF_ERROR(resolve_args(c, pc, call->args(), out));
  char op_name[kMaxOpName];
  if (!op_full_name(ops->Get(static_cast<flatbuffers::uoffset_t>(op_index)), op_name, sizeof(op_name))) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': operator %d has a name longer than %zu bytes",
             name(), op_index, kMaxOpName - 1);
  }
  char key[kMaxKeyLength];
  const bool has_key =
      registry_.has_keyed_kernels() && build_kernel_key(out->args, out->b, key, sizeof(key));
  const KernelEntry* entry = registry_.find(StringView(op_name), has_key ? StringView(key) : StringView());
  if (entry == nullptr) {
    ++*missing;
    return Error::Ok;
  }
  if (entry->num_args != out->b) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': instruction %zu (%s) passes %u arguments; the kernel takes %u (return slot included)",
             name(), pc, op_name, out->b, entry->num_args);
  }
  for (uint32_t k = 0; k < out->b; ++k) {
    const EValue* v = out->args[k];
    if (!arg_kind_accepts(entry->arg_kinds[k], v->tag())) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': instruction %zu (%s) argument %u is %s; the kernel expects %s", name(),
               pc, op_name, k, to_string(v->tag()), to_string(entry->arg_kinds[k]));
    }
    const size_t vi = static_cast<size_t>(v - method_->values_);
    if (entry->arg_kinds[k] == ArgKind::MutableTensor &&
        is_constant_tensor(plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(vi)))) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': instruction %zu (%s) writes argument %u (value %zu), a program constant",
               name(), pc, op_name, k, vi);
    }
    if (v->is_tensor() && v->to_tensor().mutable_data() == nullptr && v->to_tensor().numel() != 0 &&
        (entry->flags & kKernelBindsOutputs) == 0) {
      out->check_tensor_memory = true;
    }
  }
  ETR_RETURN_IF_ERROR(check_output_overlap(pc, op_name, *entry, out));
  out->fn = entry->fn;
  return Error::Ok;
}

// A hostile memory plan can make a kernel's output overlap one of its other
// tensor arguments, which turns copies into undefined behaviour; the
// exporter's planner never does this for values live at the same call.
Error MethodLoader::check_output_overlap(size_t pc, const char* op_name, const KernelEntry& entry,
                                         const internal::Instruction* in) {
  for (uint32_t k = 0; k < in->b; ++k) {
    if (entry.arg_kinds[k] != ArgKind::MutableTensor) continue;
    const Tensor& written = in->args[k]->to_tensor();
    for (uint32_t j = 0; j < in->b; ++j) {
      if (j == k || !in->args[j]->is_tensor() || in->args[j] == in->args[k]) continue;
      if (partially_overlaps(written, in->args[j]->to_tensor())) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu (%s) output argument %u overlaps argument %u in "
                 "planned memory",
                 name(), pc, op_name, k, j);
      }
    }
  }
  return Error::Ok;
}

Error MethodLoader::report_missing_operators(size_t missing) {
  // One line listing every distinct missing operator (with its dtype key).
  char msg[1024];
  size_t pos = 0;
  size_t listed = 0;
  const auto* ops = plan_->operators();
  for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i) {
    char op_name[kMaxOpName];
    if (!op_full_name(ops->Get(i), op_name, sizeof(op_name))) continue;
    bool used_and_missing = false;
    for (size_t c = 0; c < method_->num_chains_ && !used_and_missing; ++c) {
      const internal::Chain& ch = method_->chains_[c];
      for (size_t pc = 0; pc < ch.num_instructions; ++pc) {
        const internal::Instruction& in = ch.instructions[pc];
        if (in.kind == internal::InstrKind::Kernel && in.a == i && in.fn == nullptr) {
          used_and_missing = true;
          break;
        }
      }
    }
    if (!used_and_missing) continue;
    const int w = std::snprintf(msg + pos, sizeof(msg) - pos, "%s%s", listed == 0 ? "" : ", ", op_name);
    if (w < 0 || static_cast<size_t>(w) >= sizeof(msg) - pos) break;
    pos += static_cast<size_t>(w);
    ++listed;
  }
  ETR_FAIL(Error::OperatorMissing,
           "method '%s': no kernel registered for %zu operator(s) (%zu call(s)): %s", name(),
           listed, missing, msg);
}

}  // namespace etr
