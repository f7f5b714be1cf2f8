// Method: inputs, outputs and the interpreter loop.
#include "runtime/executor/method.h"

#include <cstdio>
#include <cstring>

#include "runtime/executor/method_loader.h"

namespace etr {
namespace {

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
    const int w = std::snprintf(buf + pos, cap - pos, "%s%d", i == 0 ? "[" : ", ", sizes[i]);
    if (w < 0) break;
    pos += static_cast<size_t>(w);
  }
  if (pos + 1 < cap) std::snprintf(buf + pos, cap - pos, sizes.empty() ? "[]" : "]");
  return buf;
}

}  // namespace

Method::Method(Method&& o) noexcept
    : program_(o.program_),
      plan_(o.plan_),
      memory_(o.memory_),
      values_(o.values_),
      num_values_(o.num_values_),
      input_indices_(o.input_indices_),
      num_inputs_(o.num_inputs_),
      input_set_(o.input_set_),
      input_planned_(o.input_planned_),
      input_consumed_(o.input_consumed_),
      output_planned_(o.output_planned_),
      external_buffers_(o.external_buffers_),
      num_external_buffers_(o.num_external_buffers_),
      output_indices_(o.output_indices_),
      num_outputs_(o.num_outputs_),
      chains_(o.chains_),
      num_chains_(o.num_chains_),
      delegates_(o.delegates_),
      num_delegates_(o.num_delegates_),
      max_instructions_(o.max_instructions_),
      initialized_(o.initialized_) {
  o.initialized_ = false;
  o.num_delegates_ = 0;
  o.num_external_buffers_ = 0;
}

Method::~Method() {
  for (size_t i = 0; i < num_delegates_; ++i) {
    delegates_[i].backend->destroy(delegates_[i].handle);
  }
  for (size_t i = 0; i < num_external_buffers_; ++i) external_buffers_[i].~FreeableBuffer();
}

const char* Method::name() const { return plan_->name()->c_str(); }

Error Method::set_input(const Tensor& src, size_t index) {
  if (!initialized_) ETR_FAIL(Error::InvalidState, "set_input: method is not loaded");
  if (index >= num_inputs_) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input index %zu is out of range (%zu inputs)",
             name(), index, num_inputs_);
  }
  EValue& slot = values_[input_indices_[index]];
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
  for (size_t d = 0; d < dst.dim(); ++d) {
    if (src.dim_order()[d] != dst.dim_order()[d]) {
      ETR_FAIL(Error::InvalidArgument, "method '%s': input %zu has a different dim order than declared",
               name(), index);
    }
  }
  if (src.numel() != 0 && src.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input %zu has no data", name(), index);
  }
  if (reinterpret_cast<uintptr_t>(src.const_data()) % tensor_data_alignment(src.dtype()) != 0) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input %zu data is not aligned for %s", name(),
             index, to_string(src.dtype()));
  }
  const bool planned = input_planned_[index];
  if (!planned) dst.set_capacity(src.nbytes() > dst.capacity_bytes() ? src.nbytes() : dst.capacity_bytes());
  const Error resized = resize_tensor(dst, src.sizes());
  if (resized != Error::Ok) {
    char got[96];
    char want[96];
    ETR_FAIL(resized, "method '%s': input %zu has shape %s; the method takes %s%s", name(), index,
             format_sizes(src.sizes(), got, sizeof(got)), format_sizes(dst.sizes(), want, sizeof(want)),
             dst.shape_dynamism() == ShapeDynamism::Static ? " (static shape)" : " at most (dynamic bound)");
  }
  if (planned) {
    if (src.nbytes() != 0 && src.const_data() != dst.const_data()) {
      std::memcpy(dst.mutable_data(), src.const_data(), src.nbytes());
    }
  } else {
    dst.set_data(src.mutable_data(), src.nbytes());
  }
  input_set_[index] = true;
  return Error::Ok;
}

Error Method::set_input(const EValue& value, size_t index) {
  if (value.is_tensor()) return set_input(value.to_tensor(), index);
  if (!initialized_) ETR_FAIL(Error::InvalidState, "set_input: method is not loaded");
  if (index >= num_inputs_) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': input index %zu is out of range (%zu inputs)",
             name(), index, num_inputs_);
  }
  // Non-tensor inputs were specialised at export: only the traced value is valid.
  if (!same_scalar_value(values_[input_indices_[index]], value)) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s': input %zu must be the %s value the program was exported with", name(),
             index, to_string(values_[input_indices_[index]].tag()));
  }
  input_set_[index] = true;
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* data, size_t size, size_t index) {
  if (!initialized_) ETR_FAIL(Error::InvalidState, "set_output_data_ptr: method is not loaded");
  if (index >= num_outputs_) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': output index %zu is out of range (%zu outputs)",
             name(), index, num_outputs_);
  }
  EValue& slot = values_[output_indices_[index]];
  if (!slot.is_tensor() || output_planned_[index]) {
    ETR_FAIL(Error::InvalidState, "method '%s': output %zu is planned or not a tensor; it cannot be rebound",
             name(), index);
  }
  if (data == nullptr || size < slot.to_tensor().nbytes() ||
      reinterpret_cast<uintptr_t>(data) % tensor_data_alignment(slot.to_tensor().dtype()) != 0) {
    ETR_FAIL(Error::InvalidArgument, "method '%s': output %zu needs %zu aligned bytes, got %zu", name(),
             index, slot.to_tensor().nbytes(), data == nullptr ? size_t{0} : size);
  }
  slot.to_tensor().set_data(data, size);
  return Error::Ok;
}

const EValue& Method::get_output(size_t index) const { return values_[output_indices_[index]]; }
const EValue& Method::get_input(size_t index) const { return values_[input_indices_[index]]; }

Error Method::report_failure(size_t chain, size_t pc, Error err) const {
  const internal::Instruction& in = chains_[chain].instructions[pc];
  const char* what = "instruction";
  const char* op = "";
  const char* overload = "";
  if (in.kind == internal::InstrKind::Kernel) {
    const etr_fb::Operator* o = plan_->operators()->Get(in.a);
    what = "kernel ";
    op = o->name()->c_str();
    overload = o->overload() == nullptr ? "" : o->overload()->c_str();
  } else if (in.kind == internal::InstrKind::Delegate) {
    what = "delegate ";
    op = plan_->delegates()->Get(in.a)->id()->c_str();
  }
  ETR_FAIL(err, "method '%s': chain %zu instruction %zu (%s%s%s%s) failed: %s", name(), chain, pc,
           what, op, overload[0] != '\0' ? "." : "", overload, to_string(err));
}

Error Method::execute() {
  if (!initialized_) ETR_FAIL(Error::InvalidState, "execute: method is not loaded");
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (!input_set_[i]) {
      ETR_FAIL(Error::InvalidState, "method '%s': input %zu is not set%s", name(), i,
               input_consumed_[i] ? " (its planned memory is reused by the program, so it must "
                                    "be set again before every execute)"
                                  : "");
    }
  }
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (input_consumed_[i]) input_set_[i] = false;
  }
  for (size_t i = 0; i < num_outputs_; ++i) {
    if (!output_planned_[i] && get_output(i).to_tensor().mutable_data() == nullptr) {
      ETR_FAIL(Error::InvalidState, "method '%s': output %zu has no memory; bind it with set_output_data_ptr",
               name(), i);
    }
  }
  MemoryAllocator* temp = memory_->temp_allocator();
  KernelContext ctx(temp);
  size_t budget = max_instructions_;
  for (size_t c = 0; c < num_chains_; ++c) {
    const internal::Chain& chain = chains_[c];
    size_t pc = 0;
    while (pc < chain.num_instructions) {
      if (budget-- == 0) {
        ETR_FAIL(Error::OutOfResources, "method '%s': more than %zu instructions executed (jump loop?)",
                 name(), max_instructions_);
      }
      const internal::Instruction& in = chain.instructions[pc];
      switch (in.kind) {
        case internal::InstrKind::Kernel: {
          if (in.check_tensor_memory) {
            for (uint32_t k = 0; k < in.b; ++k) {
              const EValue* a = in.args[k];
              if (a->is_tensor() && a->to_tensor().mutable_data() == nullptr && a->to_tensor().numel() != 0) {
                ETR_LOG(Error, "method '%s': instruction %zu argument %u is a tensor with no memory",
                        name(), pc, k);
                return report_failure(c, pc, Error::InvalidState);
              }
            }
          }
          in.fn(ctx, in.args);
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
          const internal::Delegate& d = delegates_[in.a];
          BackendExecutionContext bctx{temp, name()};
          const Error err = d.backend->execute(bctx, d.handle, Span<EValue*>(in.args, in.b));
          if (temp != nullptr) temp->reset();
          if (err != Error::Ok) return report_failure(c, pc, err);
          ++pc;
          break;
        }
        case internal::InstrKind::Move:
          values_[in.b] = values_[in.a];
          ++pc;
          break;
        case internal::InstrKind::JumpFalse: {
          const EValue& v = values_[in.a];
          bool cond = false;
          if (v.is_bool()) {
            cond = v.to_bool();
          } else {
            const Tensor& t = v.to_tensor();
            if (t.numel() != 0 && t.const_data() == nullptr) return report_failure(c, pc, Error::InvalidState);
            cond = all_true(t);
          }
          pc = cond ? pc + 1 : in.b;
          break;
        }
        case internal::InstrKind::Free:
          ++pc;  // planned memory is never released; nothing to do for bounded tensors
          break;
      }
    }
  }
  return Error::Ok;
}

}  // namespace etr
