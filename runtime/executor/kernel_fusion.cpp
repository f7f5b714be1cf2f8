// Method load, step 2c: kernel fusion. A convolution whose output only feeds an
// inference batch norm, optionally followed by a ReLU or hardtanh that only
// reads the batch norm's output, can run as one fused kernel when a kernel
// library registers one (the optimized library does; the core has none):
//
//   conv -> batch_norm             "etr::conv_bn.fused"
//   conv -> batch_norm -> relu     "etr::conv_bn_relu.fused"
//   conv -> batch_norm -> hardtanh "etr::conv_bn_hardtanh.fused"
//   conv -> batch_norm -> sigmoid -> mul(bn, sigmoid)   "etr::conv_bn_silu.fused"
//
// A linear layer's weight transpose feeding the product is the other
// pattern: permute_copy(W, [1, 0]) -> addmm(bias, x, W^T) (beta = alpha = 1)
// or -> mm(x, W^T) runs as "etr::linear.fused" (x, W, bias) or
// "etr::linear_nobias.fused" (x, W): the product reads W transposed in
// place (a library packs a constant W once at load), so the per-run copy of
// the transpose disappears. Same rules: consecutive, the transpose read by
// the product only, nothing rewritten at run time.
//
// The fused kernel gets the convolution's arguments, the batch norm's
// parameters, the activation's bounds, the convolution's output (as scratch)
// and the last instruction's output, and writes only those two. The loader
// fuses only when that is invisible: the instructions are consecutive in one
// chain with no jump landing between them, every intermediate value (the
// convolution's output, the batch norm's three outputs and the return slots)
// is read by no other instruction and is not a method output, no argument is
// rewritten at run time, and the convolution's output shares no memory with
// the convolution's inputs. Otherwise, or when no
// library registers the fused kernel or its prepare step declines, the
// instructions load one by one as usual.
#include "runtime/executor/method_loader.h"

#if ETR_KERNEL_FUSION  // CMake option ETR_KERNEL_FUSION
#include <cstring>

#include "runtime/executor/flatbuffer_util.h"

namespace etr {
namespace {

constexpr const char* kConv = "aten::convolution.out";
constexpr const char* kBatchNorm = "aten::_native_batch_norm_legit_no_training.out";
constexpr const char* kPermute = "aten::permute_copy.out";
constexpr const char* kAddmm = "aten::addmm.out";
constexpr const char* kMm = "aten::mm.out";

// Argument counts of the ExecuTorch calls (return slot included).
constexpr uint32_t kConvArgs = 11, kBatchNormArgs = 11, kReluArgs = 3, kHardtanhArgs = 5;
constexpr uint32_t kPermuteArgs = 4, kAddmmArgs = 7, kMmArgs = 4, kSigmoidArgs = 3, kMulArgs = 4;

bool tensors_share_memory(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  if (a0 == nullptr || b0 == nullptr) return true;  // not bound yet: assume the worst
  return a0 < b0 + b.capacity_bytes() && b0 < a0 + a.capacity_bytes();
}

}  // namespace

// The KernelCall at `pc` of `instrs`, with a valid operator, or null.
bool MethodLoader::may_start_fusion(const FbInstructions* instrs, size_t pc) {
  const auto* ops = plan_->operators();
  if (!fusion_heads_known_) {
    fusion_heads_known_ = true;
    const size_t n = ops == nullptr ? 0 : ops->size();
    for (size_t i = 0; i < n; ++i) {
      const char* op = method_->s_.op_names[i];
      if (std::strcmp(op, kConv) != 0 && std::strcmp(op, kPermute) != 0) continue;
      if (i < 64) {
        fusion_heads_ |= uint64_t{1} << i;
      } else {
        fusion_heads_beyond_ = true;
      }
    }
  }
  if (fusion_heads_ == 0 && !fusion_heads_beyond_) return false;
  if (instrs == nullptr || pc >= instrs->size()) return false;
  const etr_fb::Instruction* in = instrs->Get(static_cast<flatbuffers::uoffset_t>(pc));
  const etr_fb::KernelCall* call = in == nullptr ? nullptr : in->instr_args_as_KernelCall();
  if (call == nullptr || call->op_index() < 0) return false;
  const auto op = static_cast<size_t>(call->op_index());
  return op < 64 ? ((fusion_heads_ >> op) & 1) != 0 : fusion_heads_beyond_;
}

const etr_fb::KernelCall* MethodLoader::kernel_call_at(const FbInstructions* instrs, size_t pc,
                                                       const char** op) const {
  if (instrs == nullptr || pc >= instrs->size()) return nullptr;
  const etr_fb::Instruction* in = instrs->Get(static_cast<flatbuffers::uoffset_t>(pc));
  const etr_fb::KernelCall* call = in == nullptr ? nullptr : in->instr_args_as_KernelCall();
  const auto* ops = plan_->operators();
  if (call == nullptr || call->args() == nullptr || ops == nullptr || call->op_index() < 0 ||
      static_cast<size_t>(call->op_index()) >= ops->size()) {
    return nullptr;
  }
  for (flatbuffers::uoffset_t a = 0; a < call->args()->size(); ++a) {
    if (!value_in_range(call->args()->Get(a))) return nullptr;
  }
  *op = method_->s_.op_names[call->op_index()];
  return call;
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
      const flatbuffers::Vector<int32_t>* args = nullptr;
      if (const auto* kc = in->instr_args_as_KernelCall()) {
        args = kc->args();
      } else if (const auto* dc = in->instr_args_as_DelegateCall()) {
        args = dc->args();
      } else if (const auto* mc = in->instr_args_as_MoveCall()) {
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

Error MethodLoader::try_fuse(size_t chain, size_t pc, const FbInstructions* instrs,
                             internal::Instruction* table, size_t* absorbed) {
  *absorbed = 0;
  if (!may_start_fusion(instrs, pc)) return Error::Ok;
  const char* op0 = nullptr;
  const char* op1 = nullptr;
  const char* op2 = nullptr;
  const etr_fb::KernelCall* conv = kernel_call_at(instrs, pc, &op0);
  if (conv != nullptr && std::strcmp(op0, kPermute) == 0 && conv->args()->size() == kPermuteArgs) {
    return try_fuse_linear(chain, pc, instrs, table, conv, absorbed);
  }
  if (conv == nullptr || std::strcmp(op0, kConv) != 0 || conv->args()->size() != kConvArgs)
    return Error::Ok;
  const etr_fb::KernelCall* bn = kernel_call_at(instrs, pc + 1, &op1);
  if (bn == nullptr || std::strcmp(op1, kBatchNorm) != 0 || bn->args()->size() != kBatchNormArgs ||
      bn->args()->Get(0) != conv->args()->Get(9)) {
    return Error::Ok;
  }
  const etr_fb::KernelCall* act = kernel_call_at(instrs, pc + 2, &op2);
  const char* fused = nullptr;
  // SiLU as the exporter writes it: y = bn * sigmoid(bn).
  const etr_fb::KernelCall* mul = nullptr;
  if (act != nullptr && std::strcmp(op2, "aten::sigmoid.out") == 0 &&
      act->args()->size() == kSigmoidArgs && act->args()->Get(0) == bn->args()->Get(7)) {
    const char* op3 = nullptr;
    mul = kernel_call_at(instrs, pc + 3, &op3);
    const int32_t x = bn->args()->Get(7), s = act->args()->Get(1);
    if (mul != nullptr && std::strcmp(op3, "aten::mul.out") == 0 &&
        mul->args()->size() == kMulArgs &&
        ((mul->args()->Get(0) == x && mul->args()->Get(1) == s) ||
         (mul->args()->Get(0) == s && mul->args()->Get(1) == x))) {
      ETR_RETURN_IF_ERROR(try_fuse_group(chain, pc, instrs, table, conv, bn, act, mul,
                                         "etr::conv_bn_silu.fused", absorbed));
      if (*absorbed != 0) return Error::Ok;
    }
    act = nullptr;
  }
  if (act != nullptr) {
    const uint32_t n = act->args()->size();
    if (std::strcmp(op2, "aten::relu.out") == 0 && n == kReluArgs) {
      fused = "etr::conv_bn_relu.fused";
    } else if (std::strcmp(op2, "aten::hardtanh.out") == 0 && n == kHardtanhArgs) {
      fused = "etr::conv_bn_hardtanh.fused";
    }
    // (args() holds n >= 3 values here, so Get(0) is in range.)
    if (fused == nullptr || act->args()->Get(0) != bn->args()->Get(7)) act = nullptr;
  }
  // The longest group first; a batch norm whose output is also read elsewhere
  // can still take the convolution.
  if (act != nullptr) {
    ETR_RETURN_IF_ERROR(
        try_fuse_group(chain, pc, instrs, table, conv, bn, act, nullptr, fused, absorbed));
    if (*absorbed != 0) return Error::Ok;
  }
  return try_fuse_group(chain, pc, instrs, table, conv, bn, nullptr, nullptr, "etr::conv_bn.fused",
                        absorbed);
}

Error MethodLoader::try_fuse_group(size_t chain, size_t pc, const FbInstructions* instrs,
                                   internal::Instruction* table, const etr_fb::KernelCall* conv,
                                   const etr_fb::KernelCall* bn, const etr_fb::KernelCall* act,
                                   const etr_fb::KernelCall* mul, const char* fused,
                                   size_t* absorbed) {
  *absorbed = 0;
  // Nothing to do unless some library has the fused kernel.
  if (!fused_kernel_registered(fused)) return Error::Ok;
  const size_t last = pc + (act == nullptr ? 1 : mul == nullptr ? 2 : 3);
  // No jump may land inside the group.
  if (jump_lands_in(instrs, pc, last)) return Error::Ok;
  // The fused call's arguments: conv's 9 inputs, the batch norm's 6
  // parameters, the activation's bounds, the convolution's output (scratch),
  // then the group's final output and return slot.
  const etr_fb::KernelCall* tail = mul != nullptr ? mul : act;
  const int32_t out =
      tail == nullptr ? bn->args()->Get(7) : tail->args()->Get(tail->args()->size() - 2);
  const int32_t ret =
      tail == nullptr ? bn->args()->Get(10) : tail->args()->Get(tail->args()->size() - 1);
  int32_t ids[20];
  uint32_t n = 0;
  for (uint32_t a = 0; a < 9; ++a) ids[n++] = conv->args()->Get(a);
  for (uint32_t a = 1; a < 7; ++a) ids[n++] = bn->args()->Get(a);
  if (act != nullptr && mul == nullptr && act->args()->size() == kHardtanhArgs) {
    ids[n++] = act->args()->Get(1);
    ids[n++] = act->args()->Get(2);
  }
  const int32_t conv_out = conv->args()->Get(9);
  ids[n++] = conv_out;
  ids[n++] = out;
  ids[n++] = ret;
  // Intermediates: every value the group writes other than the final output
  // and return slot must be invisible outside it.
  int32_t inter[10];
  uint32_t ni = 0;
  inter[ni++] = conv->args()->Get(9);
  inter[ni++] = conv->args()->Get(10);
  for (uint32_t a = 7; a < 11; ++a) inter[ni++] = bn->args()->Get(a);
  if (act != nullptr) inter[ni++] = act->args()->Get(0);
  if (mul != nullptr) {  // the sigmoid's output and return slot
    inter[ni++] = act->args()->Get(1);
    inter[ni++] = act->args()->Get(2);
  }
  for (uint32_t i = 0; i < ni; ++i) {
    if (inter[i] == out || inter[i] == ret) continue;
    if (value_used_outside(inter[i], chain, pc, last)) return Error::Ok;
    for (uint32_t j = 0; j + 3 < n; ++j) {
      if (ids[j] == inter[i]) return Error::Ok;  // an intermediate fed back as an input
    }
  }
  // The memory plan may put the final output over the convolution's input
  // (dead after the convolution); the fused kernel then computes into the
  // convolution's output slot, which the plan keeps apart from its inputs, and
  // moves the result. Fuse only when that slot is bound and apart from them.
  const EValue& scratch = method_->s_.values[conv_out];
  const EValue& final_out = method_->s_.values[out];
  if (!scratch.is_tensor() || !final_out.is_tensor() ||
      final_out.to_tensor().const_data() == nullptr)
    return Error::Ok;
  for (uint32_t j = 0; j + 3 < n; ++j) {
    const EValue& v = method_->s_.values[ids[j]];
    if (v.is_tensor() && tensors_share_memory(scratch.to_tensor(), v.to_tensor())) {
      return Error::Ok;
    }
  }
  // Bind the arguments (the method allocator, not the exactly sized tables).
  EValue** args = memory_->method_allocator()->allocate_array<EValue*>(n);
  if (args == nullptr) return Error::Ok;
  for (uint32_t j = 0; j < n; ++j) args[j] = &method_->s_.values[ids[j]];
  internal::KernelInstr k{nullptr, args,   nullptr, n, static_cast<uint32_t>(conv->op_index()),
                          false,   nullptr};
  size_t written = 0;
  if (has_run_time_arg(k, &written)) return Error::Ok;
  const KernelEntry* entry = nullptr;
  if (!select_fused_kernel(fused, &k, &entry)) return Error::Ok;
  // Outputs may overlap inputs here by design (see above); the kernel handles it.
  ETR_RETURN_IF_ERROR(check_kernel_args(pc, fused, *entry, &k, /*check_overlap=*/false));
  table[pc].kind = internal::InstrKind::Kernel;
  table[pc].kernel = k;
  // The absorbed instructions become no-ops.
  for (size_t i = pc + 1; i <= last; ++i) {
    table[i].kind = internal::InstrKind::Free;
    table[i].free = internal::FreeInstr{static_cast<uint32_t>(conv->args()->Get(9))};
  }
  *absorbed = last - pc;
  return Error::Ok;
}

bool MethodLoader::fused_kernel_registered(const char* fused) const {
  bool registered = false;
  registry_.for_each_candidate(StringView(fused, std::strlen(fused)), op_name_hash(fused),
                               [&](const KernelEntry&, const KernelLibrary&) {
                                 registered = true;
                                 return true;
                               });
  return registered;
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

Error MethodLoader::try_fuse_linear(size_t chain, size_t pc, const FbInstructions* instrs,
                                    internal::Instruction* table, const etr_fb::KernelCall* perm,
                                    size_t* absorbed) {
  *absorbed = 0;
  const char* op1 = nullptr;
  const etr_fb::KernelCall* mm = kernel_call_at(instrs, pc + 1, &op1);
  if (mm == nullptr) return Error::Ok;
  const bool addmm = std::strcmp(op1, kAddmm) == 0 && mm->args()->size() == kAddmmArgs;
  if (!addmm && !(std::strcmp(op1, kMm) == 0 && mm->args()->size() == kMmArgs)) {
    return Error::Ok;
  }
  const char* fused = addmm ? "etr::linear.fused" : "etr::linear_nobias.fused";
  if (!fused_kernel_registered(fused) || jump_lands_in(instrs, pc, pc + 1)) return Error::Ok;
  EValue* values = method_->s_.values;
  const int32_t weight = perm->args()->Get(0), dims = perm->args()->Get(1);
  const int32_t transposed = perm->args()->Get(2), perm_ret = perm->args()->Get(3);
  // The permute: a 2-D constant weight with its two dims swapped, nothing of
  // it written at run time.
  EValue* perm_args[kPermuteArgs] = {&values[weight], &values[dims], &values[transposed],
                                     &values[perm_ret]};
  internal::KernelInstr pk{nullptr, perm_args, nullptr, kPermuteArgs, 0, false, nullptr};
  size_t written = 0;
  if (!values[weight].is_tensor() || values[weight].to_tensor().dim() != 2 ||
      !is_constant_value(static_cast<size_t>(weight)) || !values[dims].is_int_list() ||
      has_run_time_arg(pk, &written)) {
    return Error::Ok;
  }
  const Span<const int64_t> d = values[dims].to_int_list();
  if (d.size() != 2 || (d[0] != 1 && d[0] != -1) || (d[1] != 0 && d[1] != -2)) return Error::Ok;
  // The product: W^T is its second operand and nothing else of it; addmm's
  // beta and alpha are exactly 1.
  const uint32_t base = addmm ? 1 : 0;
  const int32_t mat1 = mm->args()->Get(base), mat2 = mm->args()->Get(base + 1);
  const int32_t out = mm->args()->Get(mm->args()->size() - 2);
  const int32_t ret = mm->args()->Get(mm->args()->size() - 1);
  if (mat2 != transposed || mat1 == transposed || out == transposed) return Error::Ok;
  if (addmm) {
    const EValue& beta = values[mm->args()->Get(3)];
    const EValue& alpha = values[mm->args()->Get(4)];
    if (mm->args()->Get(0) == transposed || !beta.is_scalar() || !alpha.is_scalar() ||
        beta.scalar_as_double() != 1.0 || alpha.scalar_as_double() != 1.0) {
      return Error::Ok;
    }
  }
  if (value_used_outside(transposed, chain, pc, pc + 1) ||
      value_used_outside(perm_ret, chain, pc, pc + 1)) {
    return Error::Ok;
  }
  int32_t ids[5];
  uint32_t n = 0;
  ids[n++] = mat1;
  ids[n++] = weight;
  if (addmm) ids[n++] = mm->args()->Get(0);
  ids[n++] = out;
  ids[n++] = ret;
  EValue** args = memory_->method_allocator()->allocate_array<EValue*>(n);
  if (args == nullptr) return Error::Ok;
  for (uint32_t j = 0; j < n; ++j) args[j] = &values[ids[j]];
  internal::KernelInstr k{nullptr, args,   nullptr, n, static_cast<uint32_t>(mm->op_index()),
                          false,   nullptr};
  if (has_run_time_arg(k, &written)) return Error::Ok;
  const KernelEntry* entry = nullptr;
  if (!select_fused_kernel(fused, &k, &entry)) return Error::Ok;
  ETR_RETURN_IF_ERROR(check_kernel_args(pc, fused, *entry, &k));
  table[pc].kind = internal::InstrKind::Kernel;
  table[pc].kernel = k;
  table[pc + 1].kind = internal::InstrKind::Free;
  table[pc + 1].free = internal::FreeInstr{static_cast<uint32_t>(transposed)};
  *absorbed = 1;
  return Error::Ok;
}

// The first library's fused kernel whose argument kinds and dtypes fit and whose
// prepare accepts; false (quietly) when none does.
bool MethodLoader::select_fused_kernel(const char* fused, internal::KernelInstr* k,
                                       const KernelEntry** chosen) {
  uint64_t constant_args = 0;
  for (uint32_t a = 0; a < k->num_args && a < 64; ++a) {
    const size_t vi = static_cast<size_t>(k->args[a] - method_->s_.values);
    if (is_constant_value(vi)) {
      constant_args |= uint64_t{1} << a;
    }
  }
  bool done = false;
  registry_.for_each_candidate(
      StringView(fused, std::strlen(fused)), op_name_hash(fused),
      [&](const KernelEntry& e, const KernelLibrary&) {
        KernelPrepareContext pctx(method_->s_.op_names[k->op_index], memory_->method_allocator(),
                                  options_.thread_pool);
        pctx.set_constant_args(constant_args);
        CallMismatch mismatch;
        if (accept_call(e, k->args, k->num_args, pctx, &mismatch) != Error::Ok) return false;
        k->state = pctx.state();
        k->fn = e.fn;
        *chosen = &e;
        done = true;
        return true;
      });
  return done;
}

}  // namespace etr

#endif  // ETR_KERNEL_FUSION
