// Method load, step 2c: kernel fusion. A kernel library may declare fusion
// rules (runtime/kernel/fusion_rule.h): a chain of consecutive calls that one
// of its kernels can run as a whole, e.g. the optimized library's
// convolution -> batch norm (-> activation) and permute -> addmm / mm
// (kernels/optimized/fusion_rules.cpp). The loader applies the rules of every
// library in the registry; it names no operator and no fused kernel itself.
//
// At an instruction whose operator starts some rule, the rules are tried
// longest first (then libraries in priority order, then each library's
// order). A rule applies when its pattern matches the instructions from
// there and, on top of the rule's own value checks, the group is invisible
// from outside:
//   - no jump lands inside the group (the chain is consecutive by matching);
//   - every intermediate the rule names is read by no other instruction, is
//     not a method output, and is not an input of the fused call;
//   - no argument of any step (return slots aside) is written while the
//     method runs (the fused kernel's prepare sees final values);
//   - a rule with a Scratch argument computes into it and moves the result
//     to its Output, which the memory plan may put over a step's input (dead
//     by then): the scratch must then be a tensor whose memory shares nothing
//     with the fused call's inputs, and the Output must be bound; a rule
//     without one is left out when its Output partially overlaps an input.
// The fused kernel is then chosen like any kernel (KernelRegistry::select);
// when every library declines it the instructions load one by one, and when
// a prepare step fails for real the load fails naming the fused kernel. The
// absorbed instructions become InstrKind::Absorbed (executed as nothing).
#include "runtime/executor/method_loader.h"

#if ETR_KERNEL_FUSION  // CMake option ETR_KERNEL_FUSION
#include <cinttypes>
#include <cstring>

#include "runtime/core/chain_pattern.h"
#include "runtime/executor/flatbuffer_util.h"

namespace etr {
namespace {

bool tensors_share_memory(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  if (a0 == nullptr || b0 == nullptr) return true;  // not bound yet: assume the worst
  return a0 < b0 + b.capacity_bytes() && b0 < a0 + a.capacity_bytes();
}

// True when two bound tensors' memory ranges overlap without starting at
// the same byte (an exact alias is an in-place call).
bool tensors_partially_overlap(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  if (a0 == nullptr || b0 == nullptr || a0 == b0) return false;
  return a0 < b0 + b.capacity_bytes() && b0 < a0 + a.capacity_bytes();
}

// Whether value `v` passes one of a rule's value checks.
bool check_passes(const FusionCheck& c, const EValue& v, bool is_constant) {
  switch (c.kind) {
    case FusionCheckKind::None: return true;
    case FusionCheckKind::ConstantTensor2D:
      return v.is_tensor() && v.to_tensor().dim() == 2 && is_constant;
    case FusionCheckKind::IntListEquals: {
      if (!v.is_int_list()) return false;
      const Span<const int64_t> d = v.to_int_list();
      if (d.size() != c.num_ints) return false;
      const auto n = static_cast<int64_t>(d.size());
      for (size_t i = 0; i < d.size(); ++i) {
        const int64_t item = d[i] < 0 ? d[i] + n : d[i];
        if (item != c.ints[i]) return false;
      }
      return true;
    }
    case FusionCheckKind::ScalarEquals: return v.is_scalar() && v.scalar_as_double() == c.number;
  }
  return false;
}

}  // namespace

// The instructions of one chain as the graph adapter of chain_pattern.h:
// node i is instruction i when it is a kernel call of a valid operator.
// Argument value ids are not range-checked here (links only compare them);
// try_fuse_rule checks every step's arguments before it reads a value. The
// operator names and argument vectors of the kMaxChainSteps nodes from
// `first` are looked up once (every rule tried there reads them).
struct MethodLoader::FusionGraph {
  const MethodLoader* loader;
  const FbInstructions* instrs;
  size_t first;
  mutable bool looked[kMaxChainSteps] = {};
  mutable const char* names[kMaxChainSteps] = {};
  mutable const flatbuffers::Vector<int32_t>* args[kMaxChainSteps] = {};

  // The operator name and arguments of kernel call `node`; false when it is
  // not one (or beyond the chain).
  bool lookup(size_t node, const char** name, const flatbuffers::Vector<int32_t>** a) const {
    const size_t k = node - first;
    if (node >= first && k < kMaxChainSteps && looked[k]) {
      *name = names[k];
      *a = args[k];
      return *name != nullptr;
    }
    *name = nullptr;
    *a = nullptr;
    const etr_fb::Instruction* in = instrs == nullptr || node >= instrs->size()
                                        ? nullptr
                                        : instrs->Get(static_cast<flatbuffers::uoffset_t>(node));
    const etr_fb::KernelCall* call = in == nullptr ? nullptr : in->instr_args_as_KernelCall();
    const auto* ops = loader->plan_->operators();
    if (call != nullptr && call->args() != nullptr && ops != nullptr && call->op_index() >= 0 &&
        static_cast<size_t>(call->op_index()) < ops->size()) {
      *name = loader->method_->s_.op_names[call->op_index()];
      *a = call->args();
    }
    if (node >= first && k < kMaxChainSteps) {
      looked[k] = true;
      names[k] = *name;
      args[k] = *a;
    }
    return *name != nullptr;
  }
  bool node_is(size_t node, const char* op, size_t num_args) const {
    const char* name = nullptr;
    const flatbuffers::Vector<int32_t>* a = nullptr;
    return lookup(node, &name, &a) && a->size() == num_args && std::strcmp(name, op) == 0;
  }
  // Only for a node node_is accepted: the matcher and try_fuse_rule read the
  // nodes of a match, first .. first + kMaxChainSteps - 1.
  int32_t arg(size_t node, size_t a) const {
    return args[node - first]->Get(static_cast<flatbuffers::uoffset_t>(a));
  }
  // A SameBytes link (chain_pattern.h): vb, read by node nb, is a plan view
  // of va, written by node na: both tensors of one dtype in bound memory
  // starting at the same byte, vb no larger, and no node in between
  // returning a tensor over vb's bytes. The matcher calls this only for
  // nodes it accepted, so their arguments are cached.
  bool same_bytes(size_t na, int32_t va, size_t nb, int32_t vb) const {
    if (!loader->value_in_range(va) || !loader->value_in_range(vb)) return false;
    const EValue& a = loader->method_->s_.values[va];
    const EValue& b = loader->method_->s_.values[vb];
    if (!a.is_tensor() || !b.is_tensor()) return false;
    const Tensor& ta = a.to_tensor();
    const Tensor& tb = b.to_tensor();
    if (ta.const_data() == nullptr || ta.const_data() != tb.const_data() ||
        ta.dtype() != tb.dtype() || tb.nbytes() > ta.nbytes()) {
      return false;
    }
    for (size_t n = na + 1; n < nb; ++n) {
      const flatbuffers::Vector<int32_t>* a_n = args[n - first];
      if (a_n == nullptr || a_n->size() == 0) return false;
      const int32_t r = a_n->Get(a_n->size() - 1);
      if (!loader->value_in_range(r)) return false;
      const EValue& rv = loader->method_->s_.values[r];
      if (!rv.is_tensor() || tensors_share_memory(rv.to_tensor(), tb)) return false;
    }
    return true;
  }
};

// False when the instruction at pc cannot start a fusion group: its operator
// is the first step of no registered rule. Cheap after the first call.
bool MethodLoader::may_start_fusion(const FbInstructions* instrs, size_t pc) {
  const auto* ops = plan_->operators();
  if (!fusion_heads_known_) {
    fusion_heads_known_ = true;
    // The registered rules in the order they are tried: longest first, then
    // libraries in priority order, then each library's order (a stable
    // insertion by length); past kMaxOrderedRules, try_fuse walks the
    // registry instead.
    for (size_t l = 0; l < registry_.num_libraries(); ++l) {
      for (const FusionRule& r : registry_.library(l).fusion_rules) {
        const size_t steps = r.pattern.num_steps();
        if (steps > fusion_max_steps_) fusion_max_steps_ = steps;
        if (num_ordered_rules_ == kMaxOrderedRules) {
          ordered_rules_overflow_ = true;
          continue;
        }
        size_t at = num_ordered_rules_++;
        while (at > 0 && ordered_rules_[at - 1]->pattern.num_steps() < steps) {
          ordered_rules_[at] = ordered_rules_[at - 1];
          ordered_hashes_[at] = ordered_hashes_[at - 1];
          --at;
        }
        ordered_rules_[at] = &r;
        ordered_hashes_[at] = op_name_hash(r.fused);
      }
    }
    const size_t n = ops == nullptr ? 0 : ops->size();
    for (size_t l = 0; l < registry_.num_libraries(); ++l) {
      const Span<const FusionRule> rules = registry_.library(l).fusion_rules;
      for (size_t r = 0; r < rules.size(); ++r) {
        // Each distinct first operator once (rules often share it).
        const char* head = rules[r].pattern.steps[0].op;
        bool seen = false;
        for (size_t q = 0; q < r && !seen; ++q) {
          seen = std::strcmp(rules[q].pattern.steps[0].op, head) == 0;
        }
        for (size_t i = 0; i < n && !seen; ++i) {
          if (std::strcmp(method_->s_.op_names[i], head) != 0) continue;
          if (i < 64) {
            fusion_heads_ |= uint64_t{1} << i;
          } else {
            fusion_heads_beyond_ = true;
          }
        }
      }
    }
  }
  if (fusion_heads_ == 0 && !fusion_heads_beyond_) return false;
  if (instrs == nullptr || pc >= instrs->size()) return false;
  const etr_fb::Instruction* in = instrs->Get(static_cast<flatbuffers::uoffset_t>(pc));
  const etr_fb::KernelCall* call = in == nullptr ? nullptr : in->instr_args_as_KernelCall();
  if (call == nullptr || call->op_index() < 0 || ops == nullptr ||
      static_cast<size_t>(call->op_index()) >= ops->size()) {
    return false;
  }
  const auto op = static_cast<size_t>(call->op_index());
  return op < 64 ? ((fusion_heads_ >> op) & 1) != 0 : fusion_heads_beyond_;
}

// True when value `v` is referenced by an instruction outside [first, last] of
// chain `chain`, or is a method output.
bool MethodLoader::value_used_outside(int32_t v, size_t chain, size_t first, size_t last) const {
  for (size_t i = 0; i < method_->s_.num_outputs; ++i) {
    if (method_->s_.output_indices[i] == v) return true;
  }
  const auto* chains = plan_->chains();
  for (flatbuffers::uoffset_t c = 0; chains != nullptr && c < chains->size(); ++c) {
    const auto* instrs = chains->Get(c) == nullptr ? nullptr : chains->Get(c)->instructions();
    for (flatbuffers::uoffset_t i = 0; instrs != nullptr && i < instrs->size(); ++i) {
      if (c == chain && i >= first && i <= last) continue;
      const etr_fb::Instruction* in = instrs->Get(i);
      if (in == nullptr) continue;
      const flatbuffers::Vector<int32_t>* args = internal::call_args(in);
      if (const auto* mc = in->instr_args_as_MoveCall()) {
        if (mc->move_from() == v || mc->move_to() == v) return true;
      } else if (const auto* jc = in->instr_args_as_JumpFalseCall()) {
        if (jc->cond_value_index() == v) return true;
      }
      for (flatbuffers::uoffset_t a = 0; args != nullptr && a < args->size(); ++a) {
        if (args->Get(a) == v) return true;
      }
    }
  }
  return false;
}

bool MethodLoader::jump_lands_in(const FbInstructions* instrs, size_t first, size_t last) const {
  for (flatbuffers::uoffset_t i = 0; i < instrs->size(); ++i) {
    const etr_fb::Instruction* in = instrs->Get(i);
    const auto* jc = in == nullptr ? nullptr : in->instr_args_as_JumpFalseCall();
    if (jc != nullptr && jc->destination_instruction() > static_cast<int32_t>(first) &&
        static_cast<size_t>(jc->destination_instruction()) <= last) {
      return true;
    }
  }
  return false;
}

Error MethodLoader::try_fuse(size_t chain, size_t pc, const FbInstructions* instrs,
                             internal::Instruction* table, size_t* absorbed) {
  *absorbed = 0;
  if (!may_start_fusion(instrs, pc)) return Error::Ok;
  const FusionGraph graph{this, instrs, pc};
  const etr_fb::KernelCall* head =
      instrs->Get(static_cast<flatbuffers::uoffset_t>(pc))->instr_args_as_KernelCall();
  const char* head_op = method_->s_.op_names[head->op_index()];
  auto try_rule = [&](const FusionRule& rule, uint32_t fused_hash) -> Error {
    if (std::strcmp(rule.pattern.steps[0].op, head_op) != 0) return Error::Ok;
    ChainMatch match;
    if (!match_chain(rule.pattern, graph, pc, &match)) return Error::Ok;
    return try_fuse_rule(chain, graph, table, rule, fused_hash, match, absorbed);
  };
  if (!ordered_rules_overflow_) {
    for (size_t i = 0; i < num_ordered_rules_ && *absorbed == 0; ++i) {
      ETR_RETURN_IF_ERROR(try_rule(*ordered_rules_[i], ordered_hashes_[i]));
    }
    return Error::Ok;
  }
  for (size_t len = fusion_max_steps_; len >= 2; --len) {
    for (size_t l = 0; l < registry_.num_libraries(); ++l) {
      for (const FusionRule& rule : registry_.library(l).fusion_rules) {
        if (rule.pattern.num_steps() != len) continue;
        ETR_RETURN_IF_ERROR(try_rule(rule, op_name_hash(rule.fused)));
        if (*absorbed != 0) return Error::Ok;
      }
    }
  }
  return Error::Ok;
}

size_t MethodLoader::fusion_span(const FbInstructions* instrs, size_t pc, int32_t* args,
                                 uint8_t* roles, size_t* num_args) {
  *num_args = 0;
  if (!may_start_fusion(instrs, pc)) return 1;
  const FusionGraph graph{this, instrs, pc};
  const char* head_op = method_->s_.op_names[instrs->Get(static_cast<flatbuffers::uoffset_t>(pc))
                                                 ->instr_args_as_KernelCall()
                                                 ->op_index()];
  size_t longest = 1;
  auto try_rule = [&](const FusionRule& rule) {
    if (std::strcmp(rule.pattern.steps[0].op, head_op) != 0) return;
    ChainMatch match;
    if (!match_chain(rule.pattern, graph, pc, &match) || match.num_steps <= longest) return;
    longest = match.num_steps;
    *num_args = rule.num_args();
    for (size_t j = 0; j < *num_args; ++j) {
      args[j] = chain_arg(rule.pattern, graph, match, rule.args[j].ref);
      roles[j] = static_cast<uint8_t>(rule.args[j].role);
    }
  };
  if (!ordered_rules_overflow_) {
    for (size_t i = 0; i < num_ordered_rules_; ++i) try_rule(*ordered_rules_[i]);
  } else {
    for (size_t l = 0; l < registry_.num_libraries(); ++l) {
      for (const FusionRule& rule : registry_.library(l).fusion_rules) try_rule(rule);
    }
  }
  return longest;
}

Error MethodLoader::try_fuse_rule(size_t chain, const FusionGraph& graph,
                                  internal::Instruction* table, const FusionRule& rule,
                                  uint32_t fused_hash, const ChainMatch& match, size_t* absorbed) {
  *absorbed = 0;
  const FbInstructions* instrs = graph.instrs;
  const size_t pc = match.first;
  const size_t last = pc + match.num_steps - 1;
  EValue* values = method_->s_.values;
  // A view copy run as an alias (view_elision.cpp) joins no group.
  for (size_t s = pc; s <= last; ++s) {
    if (table[s].kind == internal::InstrKind::Absorbed) return Error::Ok;
  }
  // Every argument of the group refers to a value (else the calls load one
  // by one, and the first bad one is reported), and nothing any step reads is
  // rewritten while the method runs (return slots aside).
  for (size_t s = 0; s < match.num_steps; ++s) {
    const size_t n = rule.pattern.steps[s].num_args;
    for (size_t a = 0; a < n; ++a) {
      const int32_t v = graph.arg(pc + s, a);
      if (!value_in_range(v) || (a + 1 < n && is_run_time_arg(&values[v]))) return Error::Ok;
    }
  }
  // Nothing to do unless some library has the fused kernel; no jump may land
  // inside the group.
  KernelCandidate candidates[KernelRegistry::kMaxLibraries];
  const size_t num_candidates =
      registry_.candidates(StringView(rule.fused, std::strlen(rule.fused)), fused_hash, candidates,
                           KernelRegistry::kMaxLibraries);
  if (num_candidates == 0 || jump_lands_in(instrs, pc, last)) return Error::Ok;
  for (size_t i = 0, nc = rule.num_checks(); i < nc + rule.num_more_checks; ++i) {
    const FusionCheck& c = i < nc ? rule.checks[i] : rule.more_checks[i - nc];
    const int32_t v = chain_arg(rule.pattern, graph, match, c.ref);
    if (!check_passes(c, values[v], is_constant_value(static_cast<size_t>(v)))) return Error::Ok;
  }
  // The fused call's arguments.
  const size_t n = rule.num_args();
  int32_t ids[kMaxFusionArgs];
  int32_t scratch = -1;
  bool shapes = false;
  for (size_t j = 0; j < n; ++j) {
    ids[j] = chain_arg(rule.pattern, graph, match, rule.args[j].ref);
    if (rule.args[j].role == FusionArgRole::Scratch) scratch = ids[j];
    shapes = shapes || rule.args[j].role == FusionArgRole::Shape;
  }
  // Intermediates: invisible outside the group, never fed back as an input
  // (one that is the group's output is the output).
  for (size_t i = 0, ni = rule.num_intermediates(); i < ni; ++i) {
    const int32_t v = chain_arg(rule.pattern, graph, match, rule.intermediates[i]);
    if (v == ids[n - 2] || v == ids[n - 1]) continue;
    if (value_used_outside(v, chain, pc, last)) return Error::Ok;
    for (size_t j = 0; j < n; ++j) {
      if (rule.args[j].role == FusionArgRole::Input && ids[j] == v) return Error::Ok;
    }
  }
  // The scratch must be apart from every input and the output bound.
  if (scratch >= 0) {
    const EValue& out = values[ids[n - 2]];
    if (!values[scratch].is_tensor() || !out.is_tensor() || out.to_tensor().const_data() == nullptr)
      return Error::Ok;
    for (size_t j = 0; j < n; ++j) {
      const EValue& v = values[ids[j]];
      if (rule.args[j].role == FusionArgRole::Input && v.is_tensor() &&
          tensors_share_memory(values[scratch].to_tensor(), v.to_tensor())) {
        return Error::Ok;
      }
    }
  }
  // Without a scratch the fused kernel writes its output while it reads its
  // inputs: an output the memory plan put partly over an input (one that
  // dies inside the group, e.g. a batch norm's input under the relu's
  // output) leaves the steps unfused.
  if (scratch < 0 && values[ids[n - 2]].is_tensor()) {
    const Tensor& out = values[ids[n - 2]].to_tensor();
    for (size_t j = 0; j + 2 < n; ++j) {
      const EValue& v = values[ids[j]];
      if (rule.args[j].role == FusionArgRole::Input && v.is_tensor() &&
          tensors_partially_overlap(out, v.to_tensor())) {
        return Error::Ok;
      }
    }
  }
  // Bind the arguments (the method allocator, not the exactly sized tables).
  EValue** args = memory_->method_allocator()->allocate_array<EValue*>(n);
  if (args == nullptr)
    return method_allocation_failed(name(), "fused call arguments", n * sizeof(EValue*));
  CallFacts facts;
  for (size_t j = 0; j < n; ++j) {
    args[j] = &values[ids[j]];
    if (j < 64 && is_constant_value(static_cast<size_t>(ids[j]))) {
      facts.constant_args |= uint64_t{1} << j;
    }
  }
  internal::KernelInstr k{};
  k.args = args;
  k.num_args = static_cast<uint32_t>(n);
  k.op_index =
      static_cast<uint32_t>(instrs->Get(static_cast<flatbuffers::uoffset_t>(pc + rule.name_step))
                                ->instr_args_as_KernelCall()
                                ->op_index());
  const char* label = method_->s_.op_names[k.op_index];
  const KernelSelection sel =
      KernelRegistry::select_from(candidates, num_candidates, label, args, n, facts,
                                  memory_->method_allocator(), options_.thread_pool);
  if (sel.outcome == KernelSelection::Outcome::Failed) {
    ETR_FAIL(sel.error,
             "method '%s': instruction %zu (%s, fused with the next %zu as %s): library '%s' "
             "failed to prepare the fused call: %s",
             name(), pc, label, match.num_steps - 1, rule.fused, sel.library->name,
             to_string(sel.error));
  }
  if (!sel.chosen()) return Error::Ok;
  k.fn = sel.entry->fn;
  k.state = sel.state;
  // With a scratch, outputs may overlap inputs by design (see above); Shape
  // arguments are not read, so only the Inputs were checked (above).
  ETR_RETURN_IF_ERROR(check_kernel_args(pc, rule.fused, *sel.entry, &k, scratch < 0 && !shapes));
  table[pc].kind = internal::InstrKind::Kernel;
  table[pc].kernel = k;
  for (size_t i = pc + 1; i <= last; ++i) {
    table[i].kind = internal::InstrKind::Absorbed;
    table[i].absorbed = internal::AbsorbedInstr{pc};
  }
  *absorbed = last - pc;
  return Error::Ok;
}

}  // namespace etr

#endif  // ETR_KERNEL_FUSION
