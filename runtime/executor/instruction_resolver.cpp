// Method load, step 2: turn every chain's instructions into a table of
// tagged instructions with pre-bound argument pointers, checking every index.
// Kernel selection and prepare live in kernel_selection.cpp.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "runtime/executor/method_loader.h"
#include "runtime/platform/format.h"

namespace etr {

Error MethodLoader::resolve_chains() {
  const auto* chains = plan_->chains();
  if (chains == nullptr || chains->size() == 0) {
    ETR_FAIL(Error::InvalidProgram, "method '%s' has no chains", name());
  }
  ETR_RETURN_IF_ERROR(name_operators());
  ETR_RETURN_IF_ERROR(mark_run_time_values());
  const size_t num_chains = chains->size();
  method_->s_.chains = alloc_->allocate_array<internal::Chain>(num_chains);
  if (method_->s_.chains == nullptr)
    return method_allocation_failed(name(), "chains", num_chains * sizeof(internal::Chain));
  method_->s_.num_chains = num_chains;
  for (size_t c = 0; c < num_chains; ++c) method_->s_.chains[c] = internal::Chain{nullptr, 0};
  size_t missing = 0;
  for (size_t c = 0; c < num_chains; ++c) {
    const etr_fb::Chain* chain = chains->Get(static_cast<flatbuffers::uoffset_t>(c));
    if (chain == nullptr)
      ETR_FAIL(Error::InvalidProgram, "method '%s': chain %zu is null", name(), c);
    const auto* instrs = chain->instructions();
    const size_t n = instrs == nullptr ? 0 : instrs->size();
    internal::Instruction* table = alloc_->allocate_array<internal::Instruction>(n);
    if (n != 0 && table == nullptr) {
      return method_allocation_failed(name(), "the instruction table",
                                      n * sizeof(internal::Instruction));
    }
    method_->s_.chains[c] = internal::Chain{table, n};
    for (size_t pc = 0; pc < n; ++pc) {
      table[pc].kind = internal::InstrKind::Free;
      table[pc].free = internal::FreeInstr{0};
    }
#if ETR_KERNEL_FUSION
    if (options_.kernel_fusion && num_chains == 1)
      ETR_RETURN_IF_ERROR(elide_view_copies(instrs, table));
#endif
    for (size_t pc = 0; pc < n; ++pc) {
      if (table[pc].kind == internal::InstrKind::Absorbed) continue;  // a view run as an alias
      size_t absorbed = 0;
#if ETR_KERNEL_FUSION
      if (options_.kernel_fusion) ETR_RETURN_IF_ERROR(try_fuse(c, pc, instrs, table, &absorbed));
#endif
      if (absorbed != 0) {
        pc += absorbed;
        continue;
      }
      ETR_RETURN_IF_ERROR(resolve_instruction(
          c, pc, n, instrs->Get(static_cast<flatbuffers::uoffset_t>(pc)), &table[pc], &missing));
    }
  }
  return missing == 0 ? Error::Ok : report_missing_operators(missing);
}

Error MethodLoader::resolve_instruction(size_t c, size_t pc, size_t chain_len,
                                        const etr_fb::Instruction* in, internal::Instruction* out,
                                        size_t* missing) {
  if (in == nullptr || in->instr_args() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "method '%s': chain %zu instruction %zu is empty", name(), c,
             pc);
  }
  switch (in->instr_args_type()) {
    case etr_fb::InstructionArguments::KernelCall:
      return resolve_kernel(c, pc, in->instr_args_as_KernelCall(), out, missing);
    case etr_fb::InstructionArguments::DelegateCall: {
      const etr_fb::DelegateCall* d = in->instr_args_as_DelegateCall();
      const size_t nd = plan_->delegates() == nullptr ? 0 : plan_->delegates()->size();
      if (d->delegate_index() < 0 || static_cast<size_t>(d->delegate_index()) >= nd) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu calls delegate %" PRId32
                 " but the method has %zu delegates",
                 name(), pc, d->delegate_index(), nd);
      }
      out->kind = internal::InstrKind::Delegate;
      out->delegate =
          internal::DelegateInstr{nullptr, 0, static_cast<uint32_t>(d->delegate_index())};
      return resolve_args(c, pc, d->args(), &out->delegate.args, &out->delegate.num_args);
    }
    case etr_fb::InstructionArguments::MoveCall: {
      const etr_fb::MoveCall* m = in->instr_args_as_MoveCall();
      if (!value_in_range(m->move_from()) || !value_in_range(m->move_to()) ||
          method_->s_.values[m->move_from()].tag() != method_->s_.values[m->move_to()].tag()) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu moves value %" PRId32 " to %" PRId32
                 ": out of range or of different kinds",
                 name(), pc, m->move_from(), m->move_to());
      }
      out->kind = internal::InstrKind::Move;
      out->move = internal::MoveInstr{static_cast<uint32_t>(m->move_from()),
                                      static_cast<uint32_t>(m->move_to())};
      return Error::Ok;
    }
    case etr_fb::InstructionArguments::JumpFalseCall:
      return resolve_jump(pc, chain_len, in->instr_args_as_JumpFalseCall(), out);
    case etr_fb::InstructionArguments::FreeCall: {
      const int32_t v = in->instr_args_as_FreeCall()->value_index();
      if (!value_in_range(v) || !method_->s_.values[v].is_tensor()) {
        ETR_FAIL(Error::InvalidProgram,
                 "method '%s': instruction %zu frees value %" PRId32 ", which is not a tensor",
                 name(), pc, v);
      }
      out->kind = internal::InstrKind::Free;
      out->free = internal::FreeInstr{static_cast<uint32_t>(v)};
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
  // A Bool, a bool tensor, or a scalar the method writes while it runs (the
  // exporter stores a comparison's result over an Int placeholder).
  const bool cond_ok =
      value_in_range(cond) &&
      (method_->s_.values[cond].is_bool() ||
       (method_->s_.values[cond].is_scalar() && is_run_time_value(&method_->s_.values[cond])) ||
       (method_->s_.values[cond].is_tensor() &&
        method_->s_.values[cond].to_tensor().dtype() == ScalarType::Bool));
  if (!cond_ok || dest < 0 || static_cast<size_t>(dest) > chain_len) {
    ETR_FAIL(Error::InvalidProgram,
             "method '%s': instruction %zu jumps to %" PRId32 " on value %" PRId32
             ": the target must be within "
             "the chain (%zu instructions) and the condition a Bool or bool tensor",
             name(), pc, dest, cond, chain_len);
  }
  out->kind = internal::InstrKind::JumpFalse;
  out->jump = internal::JumpFalseInstr{static_cast<uint32_t>(cond), static_cast<uint32_t>(dest)};
  return Error::Ok;
}

Error MethodLoader::resolve_args(size_t c, size_t pc, const flatbuffers::Vector<int32_t>* args,
                                 EValue*** out_args, uint32_t* out_count) {
  const size_t n = args == nullptr ? 0 : args->size();
  EValue** table = alloc_->allocate_array<EValue*>(n);
  if (n != 0 && table == nullptr)
    return method_allocation_failed(name(), "instruction arguments", n * sizeof(EValue*));
  for (size_t k = 0; k < n; ++k) {
    const int32_t v = args->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (!value_in_range(v)) {
      ETR_FAIL(Error::InvalidProgram,
               "method '%s': chain %zu instruction %zu argument %zu refers to value %" PRId32
               " (%zu values)",
               name(), c, pc, k, v, method_->s_.num_values);
    }
    table[k] = &method_->s_.values[v];
  }
  *out_args = table;
  *out_count = static_cast<uint32_t>(n);
  return Error::Ok;
}

Error MethodLoader::report_missing_operators(size_t missing) {
  // The list only feeds the message: without logs, skip building it.
  if (ETR_STRIP_LOGS) return Error::OperatorMissing;
  // One line listing every distinct missing operator.
  char msg[1024];
  size_t pos = 0;
  size_t listed = 0;
  const auto* ops = plan_->operators();
  msg[0] = '\0';
  for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i) {
    bool used_and_missing = false;
    for (size_t c = 0; c < method_->s_.num_chains && !used_and_missing; ++c) {
      const internal::Chain& ch = method_->s_.chains[c];
      for (size_t pc = 0; pc < ch.num_instructions; ++pc) {
        const internal::Instruction& in = ch.instructions[pc];
        if (in.kind == internal::InstrKind::Kernel && in.kernel.op_index == i &&
            in.kernel.fn == nullptr) {
          used_and_missing = true;
          break;
        }
      }
    }
    if (!used_and_missing) continue;
    const size_t w = internal::format_message(msg + pos, sizeof(msg) - pos, "%s%s",
                                              listed == 0 ? "" : ", ", method_->s_.op_names[i]);
    if (w >= sizeof(msg) - pos) break;
    pos += w;
    ++listed;
  }
  ETR_FAIL(Error::OperatorMissing,
           "method '%s': no kernel registered for %zu operator(s) (%zu call(s)): %s", name(),
           listed, missing, msg);
}

}  // namespace etr
