// Half and BFloat16 for every portable kernel that computes in float.
//
// PyTorch computes Half and BFloat16 ops on CPU in float and rounds once when
// it stores the result. This library does the same around the portable float
// kernels: for each call with a Half or BFloat16 tensor argument, the
// arguments are widened to float (into temp memory), the portable kernel runs
// on the float copies, and its float outputs are rounded back (round to
// nearest even) into the program's tensors.
//
// Kernels that only move bytes (view, permute, cat, slice, ...) declare every
// dtype and run Half directly; they never reach this library. It sits below
// the portable library (priority kPortablePriority - 1), so a float call never
// pays for it: the portable kernel accepts the call first.
//
// Limits (refused at load, naming the reason): a Half tensor inside a tensor
// list, and a Half argument the program writes while it runs (a move target).
#include "kernels/portable/half_adapter.h"

#include <cstddef>
#include <cstdint>
#include <new>

#include "kernels/portable/portable_kernels.h"
#include "runtime/core/error.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace etr {
namespace internal {
namespace {

bool is_half(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

enum class Role : uint8_t { Input, InOut };

// One widened argument: the program's tensor and its float stand-in.
struct Shadow {
  size_t arg;
  Role role;
  ScalarType dtype;  // the program tensor's dtype (Half or BFloat16)
  Tensor* tensor;    // the float stand-in (metadata from the method allocator)
};

struct HalfCallState {
  const KernelEntry* base;
  void* base_state;
  EValue** args;  // what the portable kernel receives (stand-ins substituted)
  Shadow* shadows;
  size_t num_shadows;
};

const KernelEntry* find_portable(const char* name) {
  const uint32_t hash = op_name_hash(name);
  for (const KernelEntry& e : portable_kernels()) {
    if (e.name_hash == hash && StringView(e.name) == StringView(name)) return &e;
  }
  return nullptr;
}

// Elements behind a tensor's capacity (a bounded dynamic tensor may grow to it).
size_t capacity_elements(const Tensor& t) {
  return t.element_size() == 0 ? 0 : t.capacity_bytes() / t.element_size();
}

void widen(const Tensor& from, float* to, int64_t n) {
  const uint16_t* p = static_cast<const uint16_t*>(from.const_data());
  if (from.dtype() == ScalarType::Half) {
    for (int64_t i = 0; i < n; ++i) to[i] = half_bits_to_float(p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) to[i] = bfloat16_bits_to_float(p[i]);
  }
}

void narrow(const float* from, Tensor& to, int64_t n) {
  uint16_t* p = static_cast<uint16_t*>(to.mutable_data());
  if (to.dtype() == ScalarType::Half) {
    for (int64_t i = 0; i < n; ++i) p[i] = float_to_half_bits(from[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) p[i] = float_to_bfloat16_bits(from[i]);
  }
}

// Makes a float tensor with t's rank, sizes and dim order (no data yet).
Tensor* make_stand_in(KernelPrepareContext& ctx, const Tensor& t) {
  const size_t dim = t.dim();
  const size_t n = dim == 0 ? 1 : dim;
  auto* sizes = static_cast<int32_t*>(ctx.allocate(n * sizeof(int32_t), alignof(int32_t)));
  auto* order = static_cast<uint8_t*>(ctx.allocate(n, 1));
  auto* strides = static_cast<int64_t*>(ctx.allocate(n * sizeof(int64_t), alignof(int64_t)));
  Tensor* f = ctx.make_state<Tensor>();
  if (sizes == nullptr || order == nullptr || strides == nullptr || f == nullptr) return nullptr;
  for (size_t d = 0; d < dim; ++d) {
    sizes[d] = t.sizes()[d];
    order[d] = t.dim_order()[d];
    strides[d] = t.strides()[d];
  }
  f->init_raw(ScalarType::Float, dim, sizes, order, strides, nullptr,
              capacity_elements(t) * sizeof(float), t.shape_dynamism(), t.numel());
  return f;
}

}  // namespace

Error half_prepare(KernelPrepareContext& ctx, EValue* const* args) {
  const char* op = ctx.op_name();
  const KernelEntry* base = find_portable(op);
  if (base == nullptr) ETR_FAIL(Error::NotFound, "%s: no portable kernel to widen", op);
  // The last value is the return slot, which kernels ignore (out arguments
  // carry the results); it is passed through untouched.
  const size_t n = base->num_args;
  const size_t params = n == 0 ? 0 : n - 1;
  size_t count = 0;
  for (size_t i = 0; i < params; ++i) {
    const EValue* v = args[i];
    if (v->is_tensor() && is_half(v->to_tensor().dtype())) ++count;
    if (v->is_tensor_list() || v->is_optional_tensor_list()) {
      const BoxedTensorList& list = v->to_tensor_list();
      for (size_t j = 0; j < list.size(); ++j) {
        const Tensor* t = list.at(j);
        if (t != nullptr && is_half(t->dtype())) {
          ETR_FAIL(Error::NotSupported,
                   "%s: argument %zu is a tensor list holding %s tensors; Half and BFloat16 "
                   "run only as plain tensor arguments of this operator",
                   op, i, to_string(t->dtype()));
        }
      }
    }
  }
  if (count == 0) {
    // Not a Half call: the portable kernel refused it before this library
    // was tried. Give the same refusal (its error code and message), never
    // an acceptance.
    size_t arg = 0;
    ScalarType dtype = ScalarType::Float;
    if (find_unsupported_dtype(base->dtypes, args, params, &arg, &dtype)) return Error::InvalidType;
    const Error err = base->prepare == nullptr ? Error::InvalidType : base->prepare(ctx, args);
    ctx.set_state(nullptr);
    return err == Error::Ok ? Error::InvalidType : err;
  }

  auto* state = ctx.make_state<HalfCallState>();
  auto* call_args = static_cast<EValue**>(ctx.allocate(n * sizeof(EValue*), alignof(EValue*)));
  auto* shadows = static_cast<Shadow*>(ctx.allocate(count * sizeof(Shadow), alignof(Shadow)));
  auto* boxes = static_cast<EValue*>(ctx.allocate(count * sizeof(EValue), alignof(EValue)));
  if (state == nullptr || call_args == nullptr || shadows == nullptr || boxes == nullptr) {
    ETR_FAIL(Error::MemoryAllocationFailed, "%s: out of method memory for Half stand-ins", op);
  }
  size_t s = 0;
  for (size_t i = 0; i < n; ++i) {
    call_args[i] = args[i];
    const EValue* v = args[i];
    if (i >= params || !v->is_tensor() || !is_half(v->to_tensor().dtype())) continue;
    const Tensor& t = v->to_tensor();
    Tensor* f = make_stand_in(ctx, t);
    if (f == nullptr) {
      ETR_FAIL(Error::MemoryAllocationFailed, "%s: out of method memory for Half stand-ins", op);
    }
    // Arguments the kernel writes are read first too: in-place ops (copy_,
    // index_put_) update them.
    const bool written = base->arg_kinds[i] == ArgKind::MutableTensor;
    shadows[s] = Shadow{i, written ? Role::InOut : Role::Input, t.dtype(), f};
    new (&boxes[s]) EValue(f);
    call_args[i] = &boxes[s];
    ++s;
  }

  // The portable kernel checks the float call exactly as it would a float
  // program's: declared dtypes, then its own prepare step.
  size_t bad_arg = 0;
  ScalarType bad_dtype = ScalarType::Float;
  if (find_unsupported_dtype(base->dtypes, call_args, params, &bad_arg, &bad_dtype)) {
    ETR_FAIL(Error::InvalidType, "%s: argument %zu has dtype %s, which the float kernel lacks", op,
             bad_arg, to_string(bad_dtype));
  }
  ctx.set_state(nullptr);
  if (base->prepare != nullptr) ETR_RETURN_IF_ERROR(base->prepare(ctx, call_args));
  *state = HalfCallState{base, ctx.state(), call_args, shadows, count};
  ctx.set_state(state);
  return Error::Ok;
}

void half_run(KernelContext& ctx, EValue* const* args) {
  const HalfCallState& st = *ctx.state<HalfCallState>();
  const char* op = ctx.op_name();
  // Widen: every stand-in takes its tensor's current sizes and gets float
  // memory for the tensor's capacity (an output may grow up to it).
  for (size_t s = 0; s < st.num_shadows; ++s) {
    const Shadow& sh = st.shadows[s];
    const Tensor& t = args[sh.arg]->to_tensor();
    Tensor& f = *sh.tensor;
    for (size_t d = 0; d < t.dim(); ++d) f.mutable_sizes()[d] = t.sizes()[d];
    ETR_KERNEL_CHECK(ctx, f.refresh_strides(), Error::Internal, "%s: bad sizes", op);
    const size_t cap = capacity_elements(t);
    void* buf = ctx.allocate_temp(cap * sizeof(float) + 1, alignof(float));
    ETR_KERNEL_CHECK(ctx, buf != nullptr, Error::MemoryAllocationFailed,
                     "%s: argument %zu: the temp allocator cannot hold %zu bytes for the float "
                     "copy of a %s tensor (give the method a larger temp allocator)",
                     op, sh.arg, cap * sizeof(float), to_string(sh.dtype));
    f.set_data(buf, cap * sizeof(float));
    widen(t, static_cast<float*>(buf), t.numel());
  }
  void* const mine = ctx.state();
  ctx.bind_instruction(op, st.base_state);
  st.base->fn(ctx, st.args);
  ctx.bind_instruction(op, mine);
  if (ctx.failure_state() != Error::Ok) return;
  // Round the written arguments back, at the sizes the kernel gave them.
  for (size_t s = 0; s < st.num_shadows; ++s) {
    const Shadow& sh = st.shadows[s];
    if (sh.role != Role::InOut) continue;
    Tensor& t = args[sh.arg]->to_tensor();
    const Tensor& f = *sh.tensor;
    ETR_KERNEL_TRY(ctx, resize_tensor(t, f.sizes()));
    narrow(f.const_data_ptr<float>(), t, t.numel());
  }
}

}  // namespace internal
}  // namespace etr
