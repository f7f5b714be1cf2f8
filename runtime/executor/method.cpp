// Method: inputs, outputs and the interpreter loop.
#include "runtime/executor/method.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "runtime/executor/method_loader.h"
#include "runtime/platform/format.h"

namespace etr {
namespace {

// Copies src into dst, same dtype and sizes, different dim orders: each
// element moves from its offset under src's strides to its offset under dst's.
void copy_reordered(const Tensor& src, Tensor& dst) {
  const size_t rank = src.dim(), elem = src.element_size();
  const int64_t n = src.numel();
  if (n == 0) return;
  int64_t index[kTensorMaxDim] = {};
  const uint8_t* from = static_cast<const uint8_t*>(src.const_data());
  uint8_t* to = static_cast<uint8_t*>(dst.mutable_data());
  int64_t src_off = 0, dst_off = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(to + dst_off * static_cast<int64_t>(elem),
                from + src_off * static_cast<int64_t>(elem), elem);
    for (size_t d = rank; d-- > 0;) {  // next index, last dim fastest
      src_off += src.stride(d);
      dst_off += dst.stride(d);
      if (++index[d] < src.size(d)) break;
      src_off -= src.stride(d) * src.size(d);
      dst_off -= dst.stride(d) * dst.size(d);
      index[d] = 0;
    }
  }
}

bool all_true(const Tensor& t) {
  const uint8_t* p = t.const_data_ptr<uint8_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (p[i] == 0) return false;
  }
  return true;
}

bool same_scalar_value(const EValue& a, const EValue& b) {
  if (a.tag() != b.tag()) return false;
  switch (a.tag()) {
    case Tag::None: return true;
    case Tag::Int: return a.to_int() == b.to_int();
    case Tag::Double: return a.to_double() == b.to_double();
    case Tag::Bool: return a.to_bool() == b.to_bool();
    case Tag::String: return a.to_string() == b.to_string();
    default: return false;
  }
}

// "[2, 3, 4]" into buf (truncated if needed).
const char* format_sizes(Span<const int32_t> sizes, char* buf, size_t cap) {
  size_t pos = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizes.size() && pos + 1 < cap; ++i) {
    const size_t w =
        internal::format_message(buf + pos, cap - pos, "%s%" PRId32, i == 0 ? "[" : ", ", sizes[i]);
    pos += w;
  }
  if (pos + 1 < cap)
    internal::format_message(buf + pos, cap - pos, "%s", sizes.empty() ? "[]" : "]");
  return buf;
}

}  // namespace

Method::~Method() {
  for (size_t i = 0; i < s_.num_delegates; ++i) {
    s_.delegates[i].backend->destroy(s_.delegates[i].handle);
  }
  for (size_t i = 0; i < s_.num_external_buffers; ++i) s_.external_buffers[i].~FreeableBuffer();
}

const char* Method::name() const { return s_.plan->name()->c_str(); }

Error Method::set_input(const Tensor& src, size_t index) {
  if (!s_.initialized) ETR_FAIL(Error::InvalidState, "set_input: method is not loaded");
  if (index >= s_.num_inputs) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input index %zu is out of range (%zu inputs)",
             name(), index, s_.num_inputs);
  }
  EValue& slot = s_.values[s_.input_indices[index]];
  if (!slot.is_tensor()) {
    ETR_FAIL(Error::InvalidType, "method '%s': input %zu is %s, not a Tensor", name(), index,
             to_string(slot.tag()));
  }
  Tensor& dst = slot.to_tensor();
  if (src.dtype() != dst.dtype()) {
    ETR_FAIL(Error::InvalidType, "method '%s': input %zu must be %s, got %s", name(), index,
             to_string(dst.dtype()), to_string(src.dtype()));
  }
  if (src.dim() != dst.dim()) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input %zu must have rank %zu, got %zu", name(),
             index, dst.dim(), src.dim());
  }
  bool same_order = true;
  for (size_t d = 0; d < dst.dim(); ++d) same_order &= src.dim_order()[d] == dst.dim_order()[d];
  const bool planned = s_.input_planned[index];
  if (!same_order && !planned) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s': input %zu has a different dim order than declared; the method does "
             "not plan this input's memory, so it must be passed in the declared order",
             name(), index);
  }
  if (src.numel() != 0 && src.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input %zu has no data", name(), index);
  }
  if (reinterpret_cast<uintptr_t>(src.const_data()) % tensor_data_alignment(src.dtype()) != 0) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input %zu data is not aligned for %s", name(),
             index, to_string(src.dtype()));
  }
  if (!planned)
    dst.set_capacity(src.nbytes() > dst.capacity_bytes() ? src.nbytes() : dst.capacity_bytes());
  const Error resized = resize_tensor(dst, src.sizes());
  if (resized != Error::Ok) {
    char got[96];
    char want[96];
    ETR_FAIL(resized, "method '%s': input %zu has shape %s; the method takes %s%s", name(), index,
             format_sizes(src.sizes(), got, sizeof(got)),
             format_sizes(dst.sizes(), want, sizeof(want)),
             dst.shape_dynamism() == ShapeDynamism::Static ? " (static shape)"
                                                           : " at most (dynamic bound)");
  }
  if (planned && !same_order) {
    copy_reordered(src, dst);  // e.g. a contiguous image into a channels-last input
  } else if (planned) {
    if (src.nbytes() != 0 && src.const_data() != dst.const_data()) {
      std::memcpy(dst.mutable_data(), src.const_data(), src.nbytes());
    }
  } else {
    dst.set_data(src.mutable_data(), src.nbytes());
  }
  s_.input_set[index] = true;
  return Error::Ok;
}

Error Method::set_input(const EValue& value, size_t index) {
  if (value.is_tensor()) return set_input(value.to_tensor(), index);
  if (!s_.initialized) ETR_FAIL(Error::InvalidState, "set_input: method is not loaded");
  if (index >= s_.num_inputs) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input index %zu is out of range (%zu inputs)",
             name(), index, s_.num_inputs);
  }
  // Non-tensor inputs were specialised at export: only the traced value is valid.
  if (!same_scalar_value(s_.values[s_.input_indices[index]], value)) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s': input %zu must be the %s value the program was exported with", name(),
             index, to_string(s_.values[s_.input_indices[index]].tag()));
  }
  s_.input_set[index] = true;
  return Error::Ok;
}

namespace {

// Whether [p, p + n) lies inside one of the method's planned buffers.
bool in_planned_memory(const MemoryManager* memory, const void* p, size_t n) {
  const HierarchicalAllocator* planned = memory == nullptr ? nullptr : memory->planned_memory();
  if (planned == nullptr || p == nullptr) return false;
  const uint8_t* lo = static_cast<const uint8_t*>(p);
  for (size_t b = 0; b < planned->num_buffers(); ++b) {
    const Span<uint8_t> buf = planned->buffer(b);
    if (lo >= buf.data() && n <= buf.size() &&
        static_cast<size_t>(lo - buf.data()) <= buf.size() - n) {
      return true;
    }
  }
  return false;
}

}  // namespace

// Why planned output `index` keeps its memory (null: it may move to the
// caller's buffer). Only an output in the method's planned memory may move,
// and not one that is also a method input. Other values whose planned
// memory overlaps the output's keep theirs: the planner lets values share
// memory only when their lifetimes do not overlap (or one is consumed by
// the instruction that writes the other, which reads it where it is).
const char* Method::output_bound_reason(size_t index) const {
  const int32_t value = s_.output_indices[index];
  for (size_t i = 0; i < s_.num_inputs; ++i) {
    if (s_.input_indices[i] == value) return "is also an input of the method";
  }
  const Tensor& t = s_.values[value].to_tensor();
  if (!in_planned_memory(s_.memory, t.const_data(), t.capacity_bytes())) {
    return "is not in the method's planned memory (a constant or external tensor)";
  }
  return nullptr;
}

Error Method::set_output_data_ptr(void* data, size_t size, size_t index) {
  if (!s_.initialized) ETR_FAIL(Error::InvalidState, "set_output_data_ptr: method is not loaded");
  if (index >= s_.num_outputs) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': output index %zu is out of range (%zu outputs)",
             name(), index, s_.num_outputs);
  }
  EValue& slot = s_.values[s_.output_indices[index]];
  if (!slot.is_tensor()) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': output %zu is a %s, not a tensor", name(), index,
             to_string(slot.tag()));
  }
  Tensor& t = slot.to_tensor();
  // A planned output keeps room for its largest shape (capacity); an
  // unplanned one needs its current size.
  const bool planned =
      s_.output_planned[index] != internal::kOutputUnplanned && t.const_data() != nullptr;
  const size_t need = planned ? t.capacity_bytes() : t.nbytes();
  if (planned && s_.output_planned[index] == internal::kOutputPlanned) {
    const char* reason = output_bound_reason(index);
    if (reason != nullptr) {
      ETR_FAIL(Error::InvalidState, "method '%s': output %zu %s; it cannot be redirected", name(),
               index, reason);
    }
  }
  if (data == nullptr || size < need ||
      reinterpret_cast<uintptr_t>(data) % tensor_data_alignment(t.dtype()) != 0) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s': output %zu needs %zu bytes aligned to %zu, got %zu at %p", name(), index,
             need, tensor_data_alignment(t.dtype()), data == nullptr ? size_t{0} : size, data);
  }
  if (s_.output_planned[index] == internal::kOutputPlanned && data != t.mutable_data() &&
      need != 0) {
    // Out of planned memory, the output's current bytes move with it (a
    // state the program keeps in an output stays valid). A caller's earlier
    // buffer is not read: it may be gone.
    std::memmove(data, t.const_data(), need);
  }
  t.set_data(data, size);
  if (planned) s_.output_planned[index] = internal::kOutputRedirected;
  return Error::Ok;
}

namespace {

// What a value accessor returns for a bad index, after logging why.
const EValue kNoValue;

// Value `index` of a table of `count` entries (`what`: "input", "output" or
// "value"), `indices` mapping into `values` (null: the identity).
const EValue& checked_value(const internal::MethodState& s, const char* what, size_t index,
                            size_t count, const int32_t* indices) {
  if (!s.initialized) {
    ETR_LOG(Error, "get_%s: method is not loaded", what);
    return kNoValue;
  }
  if (index >= count) {
    ETR_LOG(Error, "method '%s': %s index %zu is out of range (%zu %ss)", s.plan->name()->c_str(),
            what, index, count, what);
    return kNoValue;
  }
  return s.values[indices == nullptr ? index : static_cast<size_t>(indices[index])];
}

}  // namespace

// The value accessors return a reference, so a bad index cannot be an Error:
// it is logged like set_input's (InvalidState / out of range) and yields None.
const EValue& Method::get_output(size_t index) const {
  return checked_value(s_, "output", index, s_.num_outputs, s_.output_indices);
}

const EValue& Method::get_input(size_t index) const {
  return checked_value(s_, "input", index, s_.num_inputs, s_.input_indices);
}

const EValue& Method::value(size_t index) const {
  return checked_value(s_, "value", index, s_.num_values, nullptr);
}

Error Method::report_failure(size_t chain, size_t pc, Error err) const {
  const internal::Instruction& in = s_.chains[chain].instructions[pc];
  const char* what = "instruction";
  const char* op = "";
  if (in.kind == internal::InstrKind::Kernel) {
    what = "kernel ";
    op = s_.op_names[in.kernel.op_index];
  } else if (in.kind == internal::InstrKind::Delegate) {
    what = "delegate ";
    op = s_.plan->delegates()->Get(in.delegate.delegate_index)->id()->c_str();
  }
  ETR_FAIL(err, "method '%s': chain %zu instruction %zu (%s%s) failed: %s", name(), chain, pc, what,
           op, to_string(err));
}

Error Method::check_ready() {
  if (!s_.initialized) ETR_FAIL(Error::InvalidState, "execute: method is not loaded");
  for (size_t i = 0; i < s_.num_inputs; ++i) {
    if (!s_.input_set[i]) {
      ETR_FAIL(Error::InvalidState, "method '%s': input %zu is not set%s", name(), i,
               s_.input_consumed[i] ? " (its planned memory is reused by the program, so it must "
                                      "be set again before every execute)"
                                    : "");
    }
  }
  for (size_t i = 0; i < s_.num_outputs; ++i) {
    if (s_.output_planned[i] == internal::kOutputUnplanned &&
        get_output(i).to_tensor().mutable_data() == nullptr) {
      ETR_FAIL(Error::InvalidState,
               "method '%s': output %zu has no memory; bind it with set_output_data_ptr", name(),
               i);
    }
  }
  for (size_t i = 0; i < s_.num_inputs; ++i) {
    if (s_.input_consumed[i]) s_.input_set[i] = false;
  }
  return Error::Ok;
}

namespace {

// A kernel argument that is a tensor with elements but no memory (the output
// of a view that has not run): calling the kernel would dereference null.
bool has_unbound_tensor(const internal::KernelInstr& k, uint32_t* which) {
  for (uint32_t a = 0; a < k.num_args; ++a) {
    const EValue* v = k.args[a];
    if (v->is_tensor() && v->to_tensor().mutable_data() == nullptr && v->to_tensor().numel() != 0) {
      *which = a;
      return true;
    }
  }
  return false;
}

}  // namespace

Error Method::execute() {
  ETR_RETURN_IF_ERROR(check_ready());
  if (s_.observer == nullptr) return run_chains();
  s_.observer->on_execute_begin(*this);
  const Error err = run_chains();
  s_.observer->on_execute_end(*this, err);
  return err;
}

// The interpreter loop: the one function allowed to be long.
Error Method::run_chains() {
  MemoryAllocator* temp = s_.memory->temp_allocator();
  KernelContext ctx(temp, s_.thread_pool);
  size_t budget = s_.max_instructions;
  for (size_t c = 0; c < s_.num_chains; ++c) {
    const internal::Chain& chain = s_.chains[c];
    size_t pc = 0;
    while (pc < chain.num_instructions) {
      if (budget-- == 0) {
        ETR_FAIL(Error::OutOfResources,
                 "method '%s': more than %zu instructions executed (jump loop?)", name(),
                 s_.max_instructions);
      }
      const internal::Instruction& in = chain.instructions[pc];
      switch (in.kind) {
        case internal::InstrKind::Kernel: {
          const internal::KernelInstr& k = in.kernel;
          uint32_t unbound = 0;
          if (k.check_tensor_memory && has_unbound_tensor(k, &unbound)) {
            ETR_LOG(Error,
                    "method '%s': instruction %zu argument %" PRIu32 " is a tensor with no memory",
                    name(), pc, unbound);
            return report_failure(c, pc, Error::InvalidState);
          }
          if (k.reprepare != nullptr) {
            KernelPrepareContext check(s_.op_names[k.op_index], nullptr, s_.thread_pool);
            const Error err = k.reprepare(check, k.args);
            if (err != Error::Ok) return report_failure(c, pc, err);
          }
          ctx.bind_instruction(s_.op_names[k.op_index], k.state, k.num_args);
          if (s_.observer == nullptr) {
            k.fn(ctx, k.args);
          } else {
            const InstructionEvent ev{InstructionEvent::Kind::Kernel,
                                      name(),
                                      c,
                                      pc,
                                      s_.op_names[k.op_index],
                                      {k.args, k.num_args}};
            s_.observer->on_begin(ev);
            k.fn(ctx, k.args);
            s_.observer->on_end(ev, ctx.failure_state());
          }
          if (temp != nullptr) temp->reset();
          if (ctx.failure_state() != Error::Ok) {
            const Error err = ctx.failure_state();
            ctx.clear_failure();
            return report_failure(c, pc, err);
          }
          ++pc;
          break;
        }
        case internal::InstrKind::Delegate: {
          const internal::Delegate& d = s_.delegates[in.delegate.delegate_index];
          BackendExecutionContext bctx{temp, name(), s_.thread_pool};
          const Span<EValue*> args(in.delegate.args, in.delegate.num_args);
          Error err = Error::Ok;
          if (s_.observer == nullptr) {
            err = d.backend->execute(bctx, d.handle, args);
          } else {
            const InstructionEvent ev{InstructionEvent::Kind::Delegate,        name(), c, pc, d.id,
                                      {in.delegate.args, in.delegate.num_args}};
            s_.observer->on_begin(ev);
            err = d.backend->execute(bctx, d.handle, args);
            s_.observer->on_end(ev, err);
          }
          if (temp != nullptr) temp->reset();
          if (err != Error::Ok) return report_failure(c, pc, err);
          ++pc;
          break;
        }
        case internal::InstrKind::Move:
          s_.values[in.move.to] = s_.values[in.move.from];
          ++pc;
          break;
        case internal::InstrKind::JumpFalse: {
          const EValue& v = s_.values[in.jump.cond];
          bool cond = false;
          if (v.is_bool()) {
            cond = v.to_bool();
          } else if (v.is_scalar()) {  // a run-time scalar still holding its placeholder
            cond = v.scalar_as_double() != 0.0;
          } else if (!v.is_tensor()) {
            ETR_LOG(Error, "method '%s': instruction %zu: jump condition is %s", name(), pc,
                    to_string(v.tag()));
            return report_failure(c, pc, Error::InvalidProgram);
          } else {
            const Tensor& t = v.to_tensor();
            if (t.numel() != 0 && t.const_data() == nullptr)
              return report_failure(c, pc, Error::InvalidState);
            cond = all_true(t);
          }
          pc = cond ? pc + 1 : in.jump.destination;
          break;
        }
        case internal::InstrKind::Free:
          ++pc;  // planned memory is never released; nothing to do for bounded tensors
          break;
        case internal::InstrKind::Absorbed:
          ++pc;  // run by the fused call at in.absorbed.by
          break;
      }
    }
  }
  return Error::Ok;
}

}  // namespace etr
