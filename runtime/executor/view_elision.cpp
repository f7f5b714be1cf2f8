// Method load, step 2b: view copies as aliases, and the memory plan redone
// around them.
//
// The exporter writes a reshape-like op as a copy into a tensor of its own:
// squeeze/unsqueeze, an alias or view copy, an expand to the same shape, a
// clone or dim-order copy that changes nothing, and a select or slice whose
// result is one contiguous run of its input (every dimension before the
// selected one has size 1). Their output's bytes are a range of the input's,
// so the loader points the output there and runs nothing. The program's
// memory plan did not expect that: it let the input die at the copy and
// often put the very next result over it. So the loader lays the method's
// planned memory out again, inside the program's buffer sizes.
//
// Blocks. A planned tensor and the values that share its bytes form one
// block: the views the program left to its plan (no instruction; a value
// first read with no writer joins the last value written into its bytes
// before), et_view outputs (they read their source's bytes at run time),
// and the elided copies' outputs. A block lives from its first writer or
// reader to its last reader (tensor lists count for their items); writers
// are a kernel call's return slot and the arguments a delegate says it
// writes (BackendInterface::arg_access; an argument of a backend that does
// not say is taken as read, written and possibly a view, all at once).
// Blocks whose lives overlap get apart bytes; so do a fused call's inputs
// and the scratch (or output) it writes, for every group a fusion rule's
// pattern matches, so that fusion still applies where it did.
//
// Fixed blocks keep the program's offsets: method inputs (alive from before
// the first instruction; to the end too unless the program reused their
// bytes), outputs (to after the last), tensors with initial or external
// data, state (read before anything writes it) and everything outside the
// first planned buffer (mutable buffers methods may share): alive throughout.
// The others go, largest first, where the program had them when that clashes
// with nothing placed before, else into the smallest gap that holds them;
// other orders follow when that does not fit, and when none fits, the copies
// whose blocks live where it failed stay copies and the plan is redone
// (eight rounds at most; then nothing changes).
//
// When it applies: one chain without jumps or moves, kernel fusion on
// (MethodLoadOptions::kernel_fusion: a profile or ETDump run keeps one
// event per operator). An elided output must be written first by the copy
// and never again; the input's block must be movable and never rewritten
// (no in-place call returns it). Shapes, dtypes and dim orders are checked
// as the copy would produce them; an argument computed at run time or a
// dynamic shape runs the copy. A copy some fusion rule's pattern takes is
// left to the fused kernel.
#include "runtime/executor/method_loader.h"

#if ETR_KERNEL_FUSION
#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/executor/flatbuffer_util.h"
#include "runtime/kernel/fusion_rule.h"

namespace etr {
namespace {

enum class ViewKind : uint8_t {
  View,          // view_copy.out(self, size, out)
  Alias,         // alias_copy.out(self, out)
  Unsqueeze,     // unsqueeze_copy.out(self, dim, out)
  SqueezeDims,   // squeeze_copy.dims_out(self, dims, out)
  SqueezeDim,    // squeeze_copy.dim_out(self, dim, out)
  SqueezeAll,    // squeeze_copy.out(self, out)
  Expand,        // expand_copy.out(self, size, implicit, out)
  Select,        // select_copy.int_out(self, dim, index, out)
  Slice,         // slice_copy.Tensor_out(self, dim, start, end, step, out)
  Clone,         // clone.out(self, memory_format, out)
  DimOrderCopy,  // _clone_dim_order.out / _to_dim_order_copy.out(self, non_blocking, dim_order,
                 // out)
  Permute,       // permute_copy.out(self, dims, out): only size-1 dims move
};

struct ViewOp {
  const char* name;
  ViewKind kind;
  uint8_t num_args;  // return slot included
};

constexpr ViewOp kViewOps[] = {
    {"aten::view_copy.out", ViewKind::View, 4},
    {"aten::alias_copy.out", ViewKind::Alias, 3},
    {"aten::unsqueeze_copy.out", ViewKind::Unsqueeze, 4},
    {"aten::squeeze_copy.dims_out", ViewKind::SqueezeDims, 4},
    {"aten::squeeze_copy.dim_out", ViewKind::SqueezeDim, 4},
    {"aten::squeeze_copy.out", ViewKind::SqueezeAll, 3},
    {"aten::expand_copy.out", ViewKind::Expand, 5},
    {"aten::select_copy.int_out", ViewKind::Select, 5},
    {"aten::slice_copy.Tensor_out", ViewKind::Slice, 7},
    {"aten::clone.out", ViewKind::Clone, 4},
    {"dim_order_ops::_clone_dim_order.out", ViewKind::DimOrderCopy, 5},
    {"dim_order_ops::_to_dim_order_copy.out", ViewKind::DimOrderCopy, 5},
    {"aten::permute_copy.out", ViewKind::Permute, 4},
};

const ViewOp* find_view_op(const char* name, size_t num_args) {
  for (const ViewOp& op : kViewOps) {
    if (op.num_args == num_args && std::strcmp(op.name, name) == 0) return &op;
  }
  return nullptr;
}

// `d` as a dimension of a rank-`rank` tensor, or -1.
int64_t wrap_dim(int64_t d, int64_t rank) {
  if (d < 0) d += rank;
  return d >= 0 && d < rank ? d : -1;
}

bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t i = 0; i < a.dim(); ++i) {
    if (a.size(i) != b.size(i)) return false;
  }
  return true;
}

// out's sizes equal self's with dimension `d` of size `size` (-1: removed).
bool sizes_with(const Tensor& self, const Tensor& out, int64_t d, int64_t size) {
  const size_t want = size < 0 ? self.dim() - 1 : self.dim();
  if (out.dim() != want) return false;
  size_t o = 0;
  for (size_t i = 0; i < self.dim(); ++i) {
    if (static_cast<int64_t>(i) == d) {
      if (size >= 0 && out.size(o++) != size) return false;
      continue;
    }
    if (out.size(o++) != self.size(i)) return false;
  }
  return true;
}

// Elements of self after dimension d (the stride of d in the default order).
int64_t inner_elements(const Tensor& self, int64_t d) {
  int64_t n = 1;
  for (size_t i = static_cast<size_t>(d) + 1; i < self.dim(); ++i) n *= self.size(i);
  return n;
}

bool leading_ones(const Tensor& self, int64_t d) {
  for (int64_t i = 0; i < d; ++i) {
    if (self.size(static_cast<size_t>(i)) != 1) return false;
  }
  return true;
}

}  // namespace

// The bookkeeping (from the method allocator): one entry per value or instruction.
struct MethodLoader::ViewPlan {
  int32_t* first;  // first instruction that mentions the value (-2: none)
  int32_t* last;   // last one
  int32_t* born;   // first instruction that writes it (-2: none)
  uint8_t* facts;  // Flag bits the instructions give (kMaybeView, kRewritten)
  uint8_t* flags;  // Flag bits of the current round
  int32_t* group;  // the group (its root value) of a planned tensor; -1: not planned
  uint32_t* mem;   // planned buffer id (1-based)
  uint64_t* orig;  // the program's offset
  uint64_t* rel;   // offset inside the group's block
  int32_t* life0;  // a group's life (root entries), from the members'
  int32_t* life1;
  uint64_t* base;   // a group's lowest original offset, then its new offset
  uint64_t* end;    // a group's original end, then its size
  uint64_t* spot;   // a group's new offset
  int32_t* viewof;  // an unplanned et_view output: the value it aliases (-1: none)
  int32_t* order;   // movable groups, largest first
  int32_t* nearby;  // placed groups whose lives overlap the one being placed
  int32_t* elided;  // the instructions that become aliases
  int32_t* time;    // per instruction: the first of the fusable group it is in
  int32_t* pairs;   // value pairs that must not share bytes (2 per pair)
  size_t num_pairs;
  size_t max_pairs;
  uint8_t* banned;  // per instruction: a view copy left as a copy (the plan did not fit)
  int32_t failed;   // the first group that did not fit (-1: none)
};

namespace {

enum Flag : uint8_t {
  kPlanned = 1,    // a planned, non-constant tensor
  kFixed = 2,      // keeps its place (input, output, initial or external data, state)
  kMaybeView = 4,  // first seen as an argument of a delegate that does not say what it writes
  kRewritten = 8,  // written by more than one instruction, or in place
  kPlaced = 16,    // a group root whose new place is chosen
};

constexpr int32_t kBeforeAll = -1;
constexpr int32_t kAfterAll = INT32_MAX;

}  // namespace

// Values the instruction mentions, tensor lists expanded; `fn(value)`.
template <typename Fn>
void MethodLoader::for_each_mention(const etr_fb::Instruction* in, Fn&& fn) const {
  if (const auto* fc = in->instr_args_as_FreeCall()) {
    if (value_in_range(fc->value_index())) fn(static_cast<size_t>(fc->value_index()));
    return;
  }
  const flatbuffers::Vector<int32_t>* args = internal::call_args(in);
  for (flatbuffers::uoffset_t a = 0; args != nullptr && a < args->size(); ++a) {
    if (value_in_range(args->Get(a))) for_each_tensor(static_cast<size_t>(args->Get(a)), fn);
  }
}

// `fn(v)`, then fn of each item when v is a tensor list.
template <typename Fn>
void MethodLoader::for_each_tensor(size_t v, Fn&& fn) const {
  const EValue* values = method_->s_.values;
  fn(v);
  if (values[v].is_tensor_list() || values[v].is_optional_tensor_list()) {
    const BoxedTensorList& list = values[v].to_tensor_list();
    for (size_t i = 0; i < list.size(); ++i) {
      if (list.items()[i] != nullptr) fn(static_cast<size_t>(list.items()[i] - values));
    }
  }
}

Error MethodLoader::elide_view_copies(const FbInstructions* instrs, internal::Instruction* table) {
  const size_t nv = method_->s_.num_values;
  const size_t n = instrs == nullptr ? 0 : instrs->size();
  const auto* ops = plan_->operators();
  if (memory_->planned_memory() == nullptr || nv == 0 || n == 0 || ops == nullptr ||
      n >= static_cast<size_t>(kAfterAll) || nv >= static_cast<size_t>(kAfterAll)) {
    return Error::Ok;
  }
  bool any = false;  // a view copy at all: else nothing to plan
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    const etr_fb::Instruction* in = instrs->Get(i);
    if (in == nullptr || in->instr_args_as_MoveCall() != nullptr ||
        in->instr_args_as_JumpFalseCall() != nullptr) {
      return Error::Ok;
    }
    const etr_fb::KernelCall* kc = in->instr_args_as_KernelCall();
    if (any || kc == nullptr || kc->args() == nullptr || kc->op_index() < 0 ||
        static_cast<size_t>(kc->op_index()) >= ops->size()) {
      continue;
    }
    const ViewOp* op = find_view_op(method_->s_.op_names[kc->op_index()], kc->args()->size());
    any = op != nullptr;
  }
  if (!any) return Error::Ok;
  // The bookkeeping comes from the method allocator (about 80 bytes per
  // value and 40 per instruction, kept): the same whatever other allocators
  // the caller gives, so MethodMeta::method_allocator_bytes() stays exact.
  ViewPlan p{};
  p.first = alloc_->allocate_array<int32_t>(nv);
  p.last = alloc_->allocate_array<int32_t>(nv);
  p.born = alloc_->allocate_array<int32_t>(nv);
  p.facts = alloc_->allocate_array<uint8_t>(nv);
  p.flags = alloc_->allocate_array<uint8_t>(nv);
  p.group = alloc_->allocate_array<int32_t>(nv);
  p.mem = alloc_->allocate_array<uint32_t>(nv);
  p.orig = alloc_->allocate_array<uint64_t>(nv);
  p.rel = alloc_->allocate_array<uint64_t>(nv);
  p.life0 = alloc_->allocate_array<int32_t>(nv);
  p.life1 = alloc_->allocate_array<int32_t>(nv);
  p.base = alloc_->allocate_array<uint64_t>(nv);
  p.end = alloc_->allocate_array<uint64_t>(nv);
  p.spot = alloc_->allocate_array<uint64_t>(nv);
  p.viewof = alloc_->allocate_array<int32_t>(nv);
  p.order = alloc_->allocate_array<int32_t>(nv);
  p.nearby = alloc_->allocate_array<int32_t>(nv);
  p.elided = alloc_->allocate_array<int32_t>(n);
  p.time = alloc_->allocate_array<int32_t>(n);
  p.banned = alloc_->allocate_array<uint8_t>(n);
  p.max_pairs = 4 * n;
  p.pairs = alloc_->allocate_array<int32_t>(2 * p.max_pairs);
  const bool have = p.first != nullptr && p.last != nullptr && p.born != nullptr &&
                    p.facts != nullptr && p.flags != nullptr && p.group != nullptr &&
                    p.mem != nullptr && p.orig != nullptr && p.rel != nullptr &&
                    p.life0 != nullptr && p.life1 != nullptr && p.base != nullptr &&
                    p.end != nullptr && p.spot != nullptr && p.viewof != nullptr &&
                    p.order != nullptr && p.nearby != nullptr && p.elided != nullptr &&
                    p.time != nullptr && p.banned != nullptr && p.pairs != nullptr;
  return have ? plan_views(instrs, table, p) : Error::Ok;
}

// Once per load: mentions, writers, the fusable groups and their pairs.
void MethodLoader::scan_instructions(const FbInstructions* instrs, ViewPlan& p) {
  const EValue* values = method_->s_.values;
  const size_t nv = method_->s_.num_values;
  const size_t n = instrs->size();
  for (size_t v = 0; v < nv; ++v) {
    p.first[v] = p.last[v] = p.born[v] = -2;
    p.facts[v] = 0;
    p.viewof[v] = -1;
  }
  // p.time[j]: the first instruction of the group some fusion rule's
  // pattern matches that j belongs to (j itself when none); the copies such
  // a group takes are left to the fused kernel. A fused kernel reads its
  // inputs while it writes its scratch (or, without one, its output): those
  // pairs get apart bytes in the new plan whatever their lives (p.pairs), so
  // the fusion's overlap conditions hold where they held before.
  p.num_pairs = 0;
  for (size_t j = 0; j < n;) {
    int32_t fused[kMaxFusionArgs];
    uint8_t roles[kMaxFusionArgs];
    size_t num_fused = 0;
    const size_t span = std::min(fusion_span(instrs, j, fused, roles, &num_fused), n - j);
    for (size_t k = j; k < j + span; ++k) p.time[k] = static_cast<int32_t>(j);
    j += span;
    int32_t written = -1;
    for (size_t k = 0; k < num_fused; ++k) {
      if (roles[k] == static_cast<uint8_t>(FusionArgRole::Scratch)) written = fused[k];
    }
    if (written < 0 && num_fused >= 2) written = fused[num_fused - 2];
    if (written < 0 || !value_in_range(written) || !values[written].is_tensor()) continue;
    for (size_t k = 0; k < num_fused; ++k) {
      if (roles[k] != static_cast<uint8_t>(FusionArgRole::Input) || !value_in_range(fused[k]))
        continue;
      for_each_tensor(static_cast<size_t>(fused[k]), [&](size_t v) {
        if (!values[v].is_tensor() || static_cast<int32_t>(v) == written) return;
        if (p.num_pairs == p.max_pairs) return;  // a hint only: fusion re-checks overlap
        p.pairs[2 * p.num_pairs] = written;
        p.pairs[2 * p.num_pairs + 1] = static_cast<int32_t>(v);
        ++p.num_pairs;
      });
    }
  }
  auto wrote = [&](size_t v, int32_t j) {
    if (!values[v].is_tensor()) return;
    if (p.born[v] == -2) {
      p.born[v] = j;
    } else {
      p.facts[v] |= kRewritten;
    }
  };
  for (size_t j = 0; j < n; ++j) {
    const auto jj = static_cast<int32_t>(j);
    const etr_fb::Instruction* in = instrs->Get(static_cast<flatbuffers::uoffset_t>(j));
    for_each_mention(in, [&](size_t v) {
      if (p.first[v] == -2) p.first[v] = jj;
      p.last[v] = jj;
    });
    if (const auto* kc = in->instr_args_as_KernelCall()) {
      // The return slot (a list for several outputs) is what a kernel writes;
      // an in-place call returns its input, which then counts as rewritten.
      const auto* a = kc->args();
      if (a == nullptr || a->size() == 0 || !value_in_range(a->Get(a->size() - 1))) continue;
      for_each_tensor(static_cast<size_t>(a->Get(a->size() - 1)), [&](size_t v) { wrote(v, jj); });
      const char* op =
          kc->op_index() >= 0 && static_cast<size_t>(kc->op_index()) < plan_->operators()->size()
              ? method_->s_.op_names[kc->op_index()]
              : "";
      if (std::strcmp(op, "executorch_prim::et_copy_index.tensor") == 0 &&
          value_in_range(a->Get(0)))
        wrote(static_cast<size_t>(a->Get(0)), jj);
      if (std::strcmp(op, "executorch_prim::et_view.default") == 0 && a->size() == 3 &&
          value_in_range(a->Get(0)) && value_in_range(a->Get(2))) {
        p.viewof[a->Get(2)] = a->Get(0);
      }
    } else if (const auto* dc = in->instr_args_as_DelegateCall()) {
      const auto* a = dc->args();
      const size_t na = a == nullptr ? 0 : a->size();
      const auto d = static_cast<size_t>(dc->delegate_index());
      const internal::Delegate* del = dc->delegate_index() >= 0 && d < method_->s_.num_delegates
                                          ? &method_->s_.delegates[d]
                                          : nullptr;
      for (size_t k = 0; k < na; ++k) {
        if (!value_in_range(a->Get(static_cast<flatbuffers::uoffset_t>(k)))) continue;
        const auto v = static_cast<size_t>(a->Get(static_cast<flatbuffers::uoffset_t>(k)));
        const BackendInterface::ArgAccess access = del == nullptr
                                                       ? BackendInterface::ArgAccess::Unknown
                                                       : del->backend->arg_access(del->handle, k);
        if (access == BackendInterface::ArgAccess::Write) {
          for_each_tensor(v, [&](size_t t) { wrote(t, jj); });
        } else if (access == BackendInterface::ArgAccess::Unknown) {
          // An output, or a view of an earlier value read here: both.
          for_each_tensor(v, [&](size_t t) {
            if (p.first[t] != jj || !values[t].is_tensor()) return;
            wrote(t, jj);
            p.facts[t] |= kMaybeView;
          });
          // Anything else it may write in place.
          for_each_tensor(v, [&](size_t t) {
            if (p.first[t] != jj) p.facts[t] |= kRewritten;
          });
        }
      }
    }
  }
}

// Each round: planned tensors, what keeps a value in place, and the groups
// (the instructions' facts from scan_instructions).
void MethodLoader::classify_values(ViewPlan& p) const {
  const EValue* values = method_->s_.values;
  const size_t nv = method_->s_.num_values;
  for (size_t v = 0; v < nv; ++v) {
    p.flags[v] = p.facts[v];
    p.group[v] = -1;
  }
  // Planned tensors and what keeps a value in place.
  const auto* fb_values = plan_->values();
  for (size_t v = 0; v < nv; ++v) {
    if (!values[v].is_tensor() || is_constant_value(v) ||
        values[v].to_tensor().const_data() == nullptr) {
      continue;
    }
    const etr_fb::Tensor* t =
        fb_values->Get(static_cast<flatbuffers::uoffset_t>(v))->val_as_Tensor();
    const etr_fb::AllocationDetails* al = t == nullptr ? nullptr : t->allocation_info();
    if (al == nullptr) continue;
    p.flags[v] |= kPlanned;
    p.group[v] = static_cast<int32_t>(v);
    p.mem[v] = al->memory_id();
    p.orig[v] = uint64_t{al->memory_offset_low()} | (uint64_t{al->memory_offset_high()} << 32);
    const int32_t from = p.born[v] >= 0 ? std::min(p.born[v], p.first[v]) : p.first[v];
    p.life0[v] = from;
    p.life1[v] = p.last[v];
    const bool external =
        t->extra_tensor_info() != nullptr &&
        t->extra_tensor_info()->location() == etr_fb::TensorDataLocation::EXTERNAL;
    // State: initial or external data, or read before (or without) being
    // written and no earlier value's bytes to be a view of (below). Buffers
    // other than the first hold what the exporter keeps apart from the
    // activations (mutable buffers that methods may share through a common
    // arena, as Module's share_memory_arenas does): kept too.
    if (t->data_buffer_idx() != 0 || external || p.mem[v] != 1) {
      p.flags[v] |= kFixed;
      p.life0[v] = kBeforeAll;
      p.life1[v] = kAfterAll;
    }
  }
  for (size_t i = 0; i < method_->s_.num_inputs; ++i) {
    const int32_t v = method_->s_.input_indices[i];
    if ((p.flags[v] & kPlanned) == 0) continue;
    p.flags[v] |= kFixed;
    p.life0[v] = kBeforeAll;
    // An input nothing shares memory with stays so (set_input need not be
    // repeated before each execute).
    bool shared = false;
    for (size_t w = 0; w < nv && !shared; ++w) {
      shared = w != static_cast<size_t>(v) && (p.flags[w] & kPlanned) != 0 &&
               p.mem[w] == p.mem[v] &&
               ranges_overlap(p.orig[w], bytes_of(w), p.orig[v], bytes_of(v));
    }
    if (!shared) p.life1[v] = kAfterAll;
  }
  for (size_t i = 0; i < method_->s_.num_outputs; ++i) {
    const int32_t v = method_->s_.output_indices[i];
    if ((p.flags[v] & kPlanned) == 0) continue;
    p.flags[v] |= kFixed;
    p.life1[v] = kAfterAll;
  }
  // Views the program left to the plan (no instruction: the view shares its
  // source's bytes) and values first seen at a delegate that may be views:
  // each joins the group of the last value written into its bytes before it
  // is first read. A value read before anything writes it keeps its place
  // for the whole run (state across executes).
  // (Outputs too: an output that is a view of an internal value pins it.)
  for (size_t v = 0; v < nv; ++v) {
    if ((p.flags[v] & kPlanned) == 0 || p.first[v] < 0 || p.life0[v] == kBeforeAll) continue;
    const bool unwritten = p.born[v] < 0 || p.first[v] < p.born[v];
    if (!unwritten && (p.flags[v] & kMaybeView) == 0) continue;
    int32_t best = -1;
    int32_t best_at = -2;
    for (size_t w = 0; w < nv; ++w) {
      if (w == v || (p.flags[w] & kPlanned) == 0 || p.mem[w] != p.mem[v]) continue;
      const int32_t at = (p.flags[w] & kFixed) != 0 && p.life0[w] == kBeforeAll ? -1 : p.born[w];
      if (at == -2 || at >= p.first[v] || at < best_at) continue;
      if (!ranges_overlap(p.orig[w], bytes_of(w), p.orig[v], bytes_of(v))) continue;
      best = static_cast<int32_t>(w);
      best_at = at;
    }
    if (best >= 0) join_groups(p, best, static_cast<int32_t>(v));
    if (unwritten && (best < 0 || p.born[v] >= 0)) {
      // A value read before anything writes it: state across executes.
      p.flags[v] |= kFixed;
      p.life0[v] = kBeforeAll;
      p.life1[v] = kAfterAll;
    }
  }
  // et_view outputs read their source's bytes: planned ones join its group,
  // unplanned ones extend its life.
  for (size_t v = 0; v < nv; ++v) {
    if (p.viewof[v] < 0 || p.last[v] < 0) continue;
    int32_t src = p.viewof[v];
    for (size_t hops = 0; src >= 0 && (p.flags[src] & kPlanned) == 0 && hops < nv; ++hops)
      src = p.viewof[src];
    if (src < 0 || (p.flags[src] & kPlanned) == 0) continue;
    if ((p.flags[v] & kPlanned) != 0) {
      if (p.mem[v] == p.mem[src]) {
        join_groups(p, src, static_cast<int32_t>(v));
      } else {
        p.flags[v] |= kFixed;
        p.flags[src] |= kFixed;
      }
    }
    p.life1[src] = std::max(p.life1[src], p.last[v]);
  }
}

uint64_t MethodLoader::bytes_of(size_t v) const {
  return method_->s_.values[v].to_tensor().capacity_bytes();
}

bool MethodLoader::ranges_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  return a < b + bn && b < a + an;
}

// Puts every member of y's group into x's group (groups keep the program's
// relative offsets until the aggregation).
void MethodLoader::join_groups(ViewPlan& p, int32_t x, int32_t y) const {
  const int32_t gx = p.group[x];
  const int32_t gy = p.group[y];
  if (gx == gy) return;
  for (size_t v = 0; v < method_->s_.num_values; ++v) {
    if (p.group[v] == gy) p.group[v] = gx;
  }
}

Error MethodLoader::plan_views(const FbInstructions* instrs, internal::Instruction* table,
                               ViewPlan& p) {
  const size_t n = instrs->size();
  for (size_t j = 0; j < n; ++j) p.banned[j] = 0;
  scan_instructions(instrs, p);
  // When the new plan does not fit, the copies whose blocks live when the
  // first group that did not fit does stay copies, and the plan is redone.
  for (int round = 0;; ++round) {
    size_t num_elided = 0;
    if (!plan_round(instrs, p, &num_elided)) return Error::Ok;
    if (num_elided == 0) return Error::Ok;
    p.failed = -1;
    if (place_groups(p)) {
      bind_plan(p, table, num_elided);
      return Error::Ok;
    }
    size_t banned = 0;
    const int32_t f = p.failed;
    for (size_t i = 0; f >= 0 && i < num_elided; ++i) {
      const etr_fb::KernelCall* kc =
          instrs->Get(static_cast<flatbuffers::uoffset_t>(p.elided[i]))->instr_args_as_KernelCall();
      const int32_t g = p.group[kc->args()->Get(kc->args()->size() - 2)];
      if (p.life1[g] < p.life0[f] || p.life1[f] < p.life0[g]) continue;
      p.banned[p.elided[i]] = 1;
      ++banned;
    }
    if (banned == 0 || round == 7) {
      ETR_LOG(Debug, "method '%s': %zu view copies run as copies: the new plan does not fit",
              name(), num_elided);
      return Error::Ok;
    }
  }
}

// One planning round: lives and groups from scratch, then the view copies
// that are not banned join their inputs' groups. False when nothing can be
// elided at all.
bool MethodLoader::plan_round(const FbInstructions* instrs, ViewPlan& p, size_t* num_elided) {
  EValue* values = method_->s_.values;
  const size_t nv = method_->s_.num_values;
  const size_t n = instrs->size();
  classify_values(p);
  // Groups: a root's life, extent and class from its members'.
  for (size_t v = 0; v < nv; ++v) {
    if (p.group[v] != static_cast<int32_t>(v)) continue;
    p.base[v] = UINT64_MAX;
    p.end[v] = 0;
  }
  for (size_t v = 0; v < nv; ++v) {
    const int32_t g = p.group[v];
    if (g < 0) continue;
    if (g != static_cast<int32_t>(v)) {
      p.life0[g] = std::min(p.life0[g], p.life0[v]);
      p.life1[g] = std::max(p.life1[g], p.life1[v]);
      p.flags[g] |= p.flags[v] & (kFixed | kRewritten);
    }
    p.base[g] = std::min(p.base[g], p.orig[v]);
    p.end[g] = std::max(p.end[g], p.orig[v] + bytes_of(v));
  }
  for (size_t v = 0; v < nv; ++v) {
    if (p.group[v] >= 0) p.rel[v] = p.orig[v] - p.base[p.group[v]];
  }
  // The view copies, in program order.
  for (size_t j = 0; j < n; ++j) {
    if (p.banned[j] != 0) continue;
    const etr_fb::KernelCall* kc =
        instrs->Get(static_cast<flatbuffers::uoffset_t>(j))->instr_args_as_KernelCall();
    size_t self_v = 0, out_v = 0;
    uint64_t extra = 0;
    // A copy some fusion rule's pattern takes stays for the fused kernel.
    const bool fusable = p.time[j] != static_cast<int32_t>(j) ||
                         (j + 1 < n && p.time[j + 1] == static_cast<int32_t>(j));
    if (kc == nullptr || fusable || !view_copy_alias(kc, &self_v, &out_v, &extra)) continue;
    const int32_t gs = p.group[self_v];
    const int32_t go = p.group[out_v];
    if (gs < 0 || go < 0 || gs == go || (p.flags[gs] & (kFixed | kRewritten)) != 0 ||
        (p.flags[go] & (kFixed | kRewritten)) != 0 || (p.flags[out_v] & kMaybeView) != 0 ||
        p.born[out_v] != static_cast<int32_t>(j) || p.mem[gs] != p.mem[go]) {
      continue;
    }
    const uint64_t at = p.rel[self_v] + extra;
    const uint64_t out_bytes = values[out_v].to_tensor().nbytes();
    if (at % 16 != 0 || at + out_bytes > p.end[gs] - p.base[gs]) continue;
    // The output's group moves along: only views inside the output's bytes.
    bool inside = true;
    for (size_t v = 0; v < nv && inside; ++v) {
      inside = p.group[v] != go || (p.orig[v] >= p.orig[out_v] &&
                                    p.orig[v] + bytes_of(v) <= p.orig[out_v] + bytes_of(out_v));
    }
    if (!inside) continue;
    for (size_t v = 0; v < nv; ++v) {
      if (p.group[v] != go) continue;
      p.rel[v] = at + (p.orig[v] - p.orig[out_v]);
      p.group[v] = gs;
    }
    p.life0[gs] = std::min(p.life0[gs], p.life0[go]);
    p.life1[gs] = std::max(p.life1[gs], p.life1[go]);
    p.elided[(*num_elided)++] = static_cast<int32_t>(j);
  }
  return true;
}

// Binds every movable tensor at its group's new place and turns the elided
// copies into aliases.
void MethodLoader::bind_plan(ViewPlan& p, internal::Instruction* table, size_t num_elided) {
  EValue* values = method_->s_.values;
  const size_t nv = method_->s_.num_values;
  // Bind every movable tensor at its group's new place.
  HierarchicalAllocator* pm = memory_->planned_memory();
  for (size_t v = 0; v < nv; ++v) {
    const int32_t g = p.group[v];
    if (g < 0 || (p.flags[g] & kPlaced) == 0) continue;
    Tensor& t = values[v].to_tensor();
    // (p.end is the group's size now.)
    const size_t bytes =
        p.rel[v] + t.capacity_bytes() <= p.end[g] ? t.capacity_bytes() : t.nbytes();
    t.set_data(pm->offset_address(p.mem[v] - 1, p.spot[g] + p.rel[v], bytes), bytes);
  }
  for (size_t i = 0; i < num_elided; ++i) {
    table[p.elided[i]].kind = internal::InstrKind::Absorbed;
    table[p.elided[i]].absorbed = internal::AbsorbedInstr{static_cast<size_t>(p.elided[i])};
  }
  ETR_LOG(Debug, "method '%s': %zu view copies run as aliases", name(), num_elided);
}

// Places the movable groups that something mentions, each at the lowest
// aligned offset of its buffer clear of the fixed groups and of the groups
// placed before it whose lives overlap its own; in order of size (largest
// first) with 64-byte alignment, then 16-byte, then in order of life with
// each. False when no order fits the program's buffer sizes.
bool MethodLoader::place_groups(ViewPlan& p) const {
  const size_t nv = method_->s_.num_values;
  size_t num = 0;
  for (size_t v = 0; v < nv; ++v) {
    if (p.group[v] != static_cast<int32_t>(v)) continue;
    p.end[v] -= p.base[v];  // from here, the group's size
    p.spot[v] = p.base[v];
    if ((p.flags[v] & kFixed) == 0 && p.life1[v] >= 0) p.order[num++] = static_cast<int32_t>(v);
  }
  // First every group where the program put it unless that clashes with
  // one kept before it (largest first), the others in the gaps: the plan
  // moves little, so the fusion rules' overlap conditions mostly see the
  // program's layout. Then orders (size, start of life) x gap choice
  // (smallest that fits, lowest) x alignment (64, 16 bytes) from scratch.
  std::sort(p.order, p.order + num, [&](int32_t x, int32_t y) {
    return p.end[x] != p.end[y] ? p.end[x] > p.end[y] : p.life0[x] < p.life0[y];
  });
  if (try_placement(p, num, 16, true, true)) return true;
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (attempt == 4) {
      std::sort(p.order, p.order + num, [&](int32_t x, int32_t y) {
        if (p.life0[x] != p.life0[y]) return p.life0[x] < p.life0[y];
        return p.end[x] != p.end[y] ? p.end[x] > p.end[y] : x < y;
      });
    }
    if (try_placement(p, num, (attempt & 1) == 0 ? 64 : 16, (attempt & 2) == 0, false)) return true;
  }
  return false;
}

bool MethodLoader::try_placement(ViewPlan& p, size_t num, uint64_t align, bool best_fit,
                                 bool keep) const {
  const size_t nv = method_->s_.num_values;
  const auto* sizes = plan_->non_const_buffer_sizes();
  for (size_t v = 0; v < nv; ++v) {
    if (p.group[v] != static_cast<int32_t>(v)) continue;
    if ((p.flags[v] & kFixed) != 0) {
      p.flags[v] |= kPlaced;
    } else {
      p.flags[v] &= static_cast<uint8_t>(~kPlaced);
    }
  }
  // The placed groups whose lives overlap v's, in the same buffer.
  // (And those a fused kernel's pair ties to v's, whatever their lives.)
  auto collect = [&](size_t v) {
    size_t k = 0;
    for (size_t w = 0; w < nv; ++w) {
      if (p.group[w] != static_cast<int32_t>(w) || (p.flags[w] & kPlaced) == 0 ||
          p.mem[w] != p.mem[v] || p.life1[w] < p.life0[v] || p.life1[v] < p.life0[w]) {
        continue;
      }
      p.nearby[k++] = static_cast<int32_t>(w);
    }
    for (size_t q = 0; q < p.num_pairs; ++q) {
      const int32_t a = p.group[p.pairs[2 * q]];
      const int32_t b = p.group[p.pairs[2 * q + 1]];
      if (a < 0 || b < 0 || a == b ||
          (a != static_cast<int32_t>(v) && b != static_cast<int32_t>(v)))
        continue;
      const int32_t w = a == static_cast<int32_t>(v) ? b : a;
      if ((p.flags[w] & kPlaced) == 0 || p.mem[w] != p.mem[v]) continue;
      if (p.life1[w] >= p.life0[v] && p.life1[v] >= p.life0[w]) continue;  // listed already
      if (k < nv) p.nearby[k++] = w;
    }
    return k;
  };
  for (size_t i = 0; keep && i < num; ++i) {
    const auto v = static_cast<size_t>(p.order[i]);
    const size_t k = collect(v);
    bool clear = true;
    for (size_t q = 0; q < k && clear; ++q) {
      clear = !ranges_overlap(p.spot[p.nearby[q]], p.end[p.nearby[q]], p.base[v], p.end[v]);
    }
    if (!clear) continue;
    p.spot[v] = p.base[v];
    p.flags[v] |= kPlaced;
  }
  for (size_t i = 0; i < num; ++i) {
    const auto v = static_cast<size_t>(p.order[i]);
    if ((p.flags[v] & kPlaced) != 0) continue;
    const size_t k = collect(v);
    std::sort(p.nearby, p.nearby + k, [&](int32_t x, int32_t y) { return p.spot[x] < p.spot[y]; });
    // The gaps between the nearby blocks, in offset order; the last is open.
    uint64_t at = 0;  // start of the current gap
    uint64_t best = UINT64_MAX;
    uint64_t best_room = UINT64_MAX;
    for (size_t q = 0; q <= k; ++q) {
      const uint64_t wa = q < k ? p.spot[p.nearby[q]] : UINT64_MAX;
      if (wa >= at + p.end[v]) {
        const uint64_t room = wa - at;
        if (!best_fit || q == k) {
          if (best == UINT64_MAX) best = at;
          break;
        }
        if (room < best_room) {
          best_room = room;
          best = at;
        }
      }
      if (q == k) break;
      const uint64_t wb = wa + p.end[p.nearby[q]];
      if (wb > at) at = (wb + align - 1) & ~(align - 1);
    }
    at = best;
    const int64_t limit = p.mem[v] < sizes->size() ? sizes->Get(p.mem[v]) : 0;
    if (limit < 0 || at + p.end[v] > static_cast<uint64_t>(limit)) {
      if (p.failed < 0) p.failed = static_cast<int32_t>(v);
      return false;
    }
    p.spot[v] = at;
    p.flags[v] |= kPlaced;
  }
  return true;
}

// Whether kernel call `kc` is a view copy whose output can be its input's
// bytes: *self_v, *out_v and the output's byte offset in the input.
bool MethodLoader::view_copy_alias(const etr_fb::KernelCall* kc, size_t* self_v, size_t* out_v,
                                   uint64_t* extra) const {
  const auto* ops = plan_->operators();
  const auto* a = kc->args();
  if (a == nullptr || kc->op_index() < 0 || static_cast<size_t>(kc->op_index()) >= ops->size())
    return false;
  const ViewOp* op = find_view_op(method_->s_.op_names[kc->op_index()], a->size());
  if (op == nullptr) return false;
  EValue* values = method_->s_.values;
  for (flatbuffers::uoffset_t k = 0; k < a->size(); ++k) {
    if (!value_in_range(a->Get(k)) ||
        (k != 0 && k + 2 < a->size() && is_run_time_arg(&values[a->Get(k)]))) {
      return false;
    }
  }
  *self_v = static_cast<size_t>(a->Get(0));
  *out_v = static_cast<size_t>(a->Get(a->size() - 2));
  if (a->Get(a->size() - 1) != a->Get(a->size() - 2) || !values[*self_v].is_tensor() ||
      !values[*out_v].is_tensor()) {
    return false;
  }
  const Tensor& self = values[*self_v].to_tensor();
  const Tensor& out = values[*out_v].to_tensor();
  if (self.dtype() != out.dtype() || self.shape_dynamism() != ShapeDynamism::Static ||
      out.shape_dynamism() != ShapeDynamism::Static || !self.is_contiguous_order() ||
      !out.is_contiguous_order()) {
    return false;
  }
  auto int_arg = [&](size_t k, int64_t* x) {
    const EValue& e = values[a->Get(static_cast<flatbuffers::uoffset_t>(k))];
    if (!e.is_int()) return false;
    *x = e.to_int();
    return true;
  };
  const auto rank = static_cast<int64_t>(self.dim());
  int64_t skip = 0;  // elements of self before out's first
  bool ok = false;
  switch (op->kind) {
    case ViewKind::View:
    case ViewKind::Alias:
    case ViewKind::Clone:
      ok = op->kind == ViewKind::View ? self.numel() == out.numel() : same_sizes(self, out);
      break;
    case ViewKind::DimOrderCopy: {
      const EValue& dims = values[a->Get(2)];
      ok = same_sizes(self, out) && (dims.is_none() || dims.is_int_list());
      if (ok && dims.is_int_list()) {
        const Span<const int64_t> d = dims.to_int_list();
        ok = d.size() == self.dim();
        for (size_t i = 0; ok && i < d.size(); ++i) ok = d[i] == static_cast<int64_t>(i);
      }
      break;
    }
    case ViewKind::Unsqueeze: {
      int64_t d = 0;
      if (!int_arg(1, &d)) break;
      d = wrap_dim(d, rank + 1);
      ok = d >= 0 && sizes_with(out, self, d, -1) && out.size(static_cast<size_t>(d)) == 1;
      break;
    }
    case ViewKind::SqueezeDims:
    case ViewKind::SqueezeDim:
    case ViewKind::SqueezeAll: {
      // Which dims go: the listed ones of size 1 (all of size 1 for .out).
      bool drop[kTensorMaxDim] = {};
      ok = true;
      if (op->kind == ViewKind::SqueezeAll) {
        for (size_t i = 0; i < self.dim(); ++i) drop[i] = self.size(i) == 1;
      } else if (op->kind == ViewKind::SqueezeDim) {
        int64_t d = 0;
        ok = int_arg(1, &d) && (rank == 0 || (d = wrap_dim(d, rank)) >= 0);
        if (ok && rank > 0) drop[d] = self.size(static_cast<size_t>(d)) == 1;
      } else {
        const EValue& dims = values[a->Get(1)];
        ok = dims.is_int_list();
        const Span<const int64_t> list = ok ? dims.to_int_list() : Span<const int64_t>();
        for (size_t i = 0; ok && i < list.size(); ++i) {
          const int64_t d = rank == 0 ? 0 : wrap_dim(list[i], rank);
          ok = d >= 0;
          if (ok && rank > 0) drop[d] = self.size(static_cast<size_t>(d)) == 1;
        }
      }
      size_t o = 0;
      for (size_t i = 0; ok && i < self.dim(); ++i) {
        if (drop[i]) continue;
        ok = o < out.dim() && out.size(o) == self.size(i);
        ++o;
      }
      ok = ok && o == out.dim();
      break;
    }
    case ViewKind::Expand: {
      const EValue& size = values[a->Get(1)];
      if (!same_sizes(self, out) || !size.is_int_list()) break;
      const Span<const int64_t> s = size.to_int_list();
      ok = s.size() == self.dim();
      for (size_t i = 0; ok && i < s.size(); ++i) ok = s[i] == -1 || s[i] == self.size(i);
      break;
    }
    case ViewKind::Select: {
      int64_t d = 0, index = 0;
      if (!int_arg(1, &d) || !int_arg(2, &index) || (d = wrap_dim(d, rank)) < 0) break;
      const int64_t size = self.size(static_cast<size_t>(d));
      if (index < 0) index += size;
      if (index < 0 || index >= size || !leading_ones(self, d) || !sizes_with(self, out, d, -1))
        break;
      skip = index * inner_elements(self, d);
      ok = true;
      break;
    }
    case ViewKind::Slice: {
      int64_t d = 0, step = 0;
      if (!int_arg(1, &d) || !int_arg(4, &step) || step != 1 || (d = wrap_dim(d, rank)) < 0) break;
      const int64_t size = self.size(static_cast<size_t>(d));
      int64_t start = 0, end = size;
      const EValue& s = values[a->Get(2)];
      const EValue& e = values[a->Get(3)];
      if ((!s.is_none() && !s.is_int()) || (!e.is_none() && !e.is_int())) break;
      if (s.is_int()) start = s.to_int();
      if (e.is_int()) end = e.to_int();
      if (start < 0) start += size;
      if (end < 0) end += size;
      start = std::min(std::max<int64_t>(start, 0), size);
      end = std::min(std::max(end, start), size);
      if (!leading_ones(self, d) || !sizes_with(self, out, d, end - start)) break;
      skip = start * inner_elements(self, d);
      ok = true;
      break;
    }
    case ViewKind::Permute: {
      // out dim i is self dim dims[i]: the same bytes when the dims of more
      // than one element keep their order.
      const EValue& dims = values[a->Get(1)];
      if (!dims.is_int_list() || dims.to_int_list().size() != self.dim() ||
          out.dim() != self.dim()) {
        break;
      }
      const Span<const int64_t> d = dims.to_int_list();
      bool seen[kTensorMaxDim] = {};
      int64_t prev = -1;
      ok = true;
      for (size_t i = 0; ok && i < d.size(); ++i) {
        const int64_t k = wrap_dim(d[i], rank);
        ok = k >= 0 && !seen[k] && out.size(i) == self.size(static_cast<size_t>(k));
        if (!ok) break;
        seen[k] = true;
        if (self.size(static_cast<size_t>(k)) == 1) continue;
        ok = k > prev;
        prev = k;
      }
      break;
    }
  }
  *extra = static_cast<uint64_t>(skip) * self.element_size();
  return ok;
}

}  // namespace etr

#endif  // ETR_KERNEL_FUSION
