// Tensor-facing prim ops: shape queries, scalar extraction, the map-loop
// accumulator (et_copy_index) and the aliasing view (et_view).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernels/prim_ops/prim_ops_internal.h"
#include "runtime/core/checked_math.h"
#include "runtime/core/tensor.h"

namespace etr {
namespace internal {
namespace {

template <typename T>
T load_unaligned(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

double half_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 0x1f) {
    v = mantissa == 0 ? HUGE_VAL : std::nan("");
  } else {
    v = std::ldexp(static_cast<double>(mantissa + 0x400), exponent - 25);
  }
  return (h & 0x8000) != 0 ? -v : v;
}

double bfloat16_to_double(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return static_cast<double>(f);
}

// "[2,3,4]" into buf (elided when it does not fit); returns buf.
template <typename I>
const char* format_sizes(Span<const I> sizes, char* buf, size_t cap) {
  size_t n = 0;
  buf[n++] = '[';
  for (size_t i = 0; i < sizes.size() && n + 24 < cap; ++i) {
    const int w = std::snprintf(buf + n, cap - n, i == 0 ? "%lld" : ",%lld",
                                static_cast<long long>(sizes[i]));
    if (w > 0) n += static_cast<size_t>(w);
  }
  buf[n++] = ']';
  buf[n] = '\0';
  return buf;
}

// Resizes `t` (`what` in messages) to `sizes`, logging the op and both shapes.
Error resize_to(const char* op, const char* what, Tensor& t, Span<const int64_t> sizes) {
  const Error e = resize_tensor(t, sizes);
  if (e != Error::Ok) {
    char from[96];
    char to[96];
    ETR_FAIL(e, "%s: cannot resize %s from %s to %s", op, what,
             format_sizes(t.sizes(), from, sizeof(from)), format_sizes(sizes, to, sizeof(to)));
  }
  return Error::Ok;
}

}  // namespace

void prim_sym_size(KernelContext& ctx, EValue* const* args) {
  const Tensor& self = args[0]->to_tensor();
  const int64_t requested = args[1]->to_int();
  const int64_t rank = static_cast<int64_t>(self.dim());
  const int64_t dim = requested < 0 ? requested + rank : requested;
  ETR_KERNEL_CHECK(ctx, dim >= 0 && dim < rank, Error::InvalidArgument,
                   "%s: dim %lld is out of range for a rank-%lld tensor", ctx.op_name(),
                   static_cast<long long>(requested), static_cast<long long>(rank));
  args[2]->set_int(self.size(static_cast<size_t>(dim)));
}

void prim_sym_numel(KernelContext& ctx, EValue* const* args) {
  (void)ctx;
  args[1]->set_int(args[0]->to_tensor().numel());
}

void prim_local_scalar_dense(KernelContext& ctx, EValue* const* args) {
  const Tensor& self = args[0]->to_tensor();
  EValue& out = *args[1];
  ETR_KERNEL_CHECK(ctx, self.numel() == 1, Error::InvalidArgument,
                   "%s: tensor has %lld elements, expected 1", ctx.op_name(),
                   static_cast<long long>(self.numel()));
  const void* p = self.const_data();
  ETR_KERNEL_CHECK(ctx, p != nullptr, Error::InvalidState, "%s: tensor has no data", ctx.op_name());
  switch (self.dtype()) {
    case ScalarType::Bool: out.set_bool(load_unaligned<uint8_t>(p) != 0); return;
    case ScalarType::Byte: out.set_int(load_unaligned<uint8_t>(p)); return;
    case ScalarType::Char: out.set_int(load_unaligned<int8_t>(p)); return;
    case ScalarType::Short: out.set_int(load_unaligned<int16_t>(p)); return;
    case ScalarType::Int: out.set_int(load_unaligned<int32_t>(p)); return;
    case ScalarType::Long: out.set_int(load_unaligned<int64_t>(p)); return;
    case ScalarType::UInt16: out.set_int(load_unaligned<uint16_t>(p)); return;
    case ScalarType::UInt32: out.set_int(load_unaligned<uint32_t>(p)); return;
    case ScalarType::UInt64: {
      const uint64_t v = load_unaligned<uint64_t>(p);
      ETR_KERNEL_CHECK(ctx, v <= static_cast<uint64_t>(INT64_MAX), Error::InvalidArgument,
                       "%s: uint64 value %llu does not fit int64", ctx.op_name(),
                       static_cast<unsigned long long>(v));
      out.set_int(static_cast<int64_t>(v));
      return;
    }
    case ScalarType::Float: out.set_double(load_unaligned<float>(p)); return;
    case ScalarType::Double: out.set_double(load_unaligned<double>(p)); return;
    case ScalarType::Half: out.set_double(half_to_double(load_unaligned<uint16_t>(p))); return;
    case ScalarType::BFloat16:
      out.set_double(bfloat16_to_double(load_unaligned<uint16_t>(p)));
      return;
    default: break;
  }
  ETR_LOG(Error, "%s: unsupported dtype %s", ctx.op_name(), to_string(self.dtype()));
  ctx.fail(Error::InvalidType);
}

// Copies copy_from into row `index` (along dim 0) of copy_to. A resizable
// copy_to is grown to index + 1 rows when needed, and restarted at one row
// when index is 0, so that a loop that runs fewer iterations than the last
// execution does not leave stale rows behind.
void prim_et_copy_index(KernelContext& ctx, EValue* const* args) {
  Tensor& to = args[0]->to_tensor();
  const Tensor& from = args[1]->to_tensor();
  const int64_t index = args[2]->to_int();
  ETR_KERNEL_CHECK(ctx, to.dtype() == from.dtype(), Error::InvalidType,
                   "%s: copy_to is %s but copy_from is %s", ctx.op_name(), to_string(to.dtype()),
                   to_string(from.dtype()));
  ETR_KERNEL_CHECK(ctx, to.dim() == from.dim() + 1, Error::InvalidArgument,
                   "%s: copy_to rank %zu must be copy_from rank %zu plus one", ctx.op_name(),
                   to.dim(), from.dim());
  ETR_KERNEL_CHECK(ctx, index >= 0 && index < INT32_MAX, Error::InvalidArgument,
                   "%s: index %lld is out of range", ctx.op_name(), static_cast<long long>(index));
  ETR_KERNEL_CHECK(ctx, to.is_contiguous_order() && from.is_contiguous_order(), Error::NotSupported,
                   "%s: only the default dim order is supported", ctx.op_name());
  bool trailing_match = true;
  for (size_t i = 0; i < from.dim(); ++i) {
    if (to.size(i + 1) != from.size(i)) trailing_match = false;
  }
  const bool resizable = to.shape_dynamism() != ShapeDynamism::Static;
  if (resizable && (index == 0 || index >= to.size(0))) {
    ETR_KERNEL_CHECK(ctx, index == 0 || trailing_match, Error::InvalidArgument,
                     "%s: copy_from shape does not match the rows of copy_to", ctx.op_name());
    int64_t sizes[kTensorMaxDim];
    sizes[0] = index + 1;
    for (size_t i = 0; i < from.dim(); ++i) sizes[i + 1] = from.size(i);
    ETR_KERNEL_TRY(ctx,
                   resize_to(ctx.op_name(), "copy_to", to, Span<const int64_t>(sizes, to.dim())));
  } else {
    ETR_KERNEL_CHECK(ctx, trailing_match, Error::InvalidArgument,
                     "%s: copy_from shape does not match the rows of copy_to", ctx.op_name());
    ETR_KERNEL_CHECK(ctx, index < to.size(0), Error::InvalidArgument,
                     "%s: index %lld is past the %lld rows of a static copy_to", ctx.op_name(),
                     static_cast<long long>(index), static_cast<long long>(to.size(0)));
  }
  const size_t row_bytes = from.nbytes();
  size_t offset = 0;
  ETR_KERNEL_CHECK(ctx,
                   checked_mul(static_cast<size_t>(index), row_bytes, &offset) &&
                       range_within(offset, row_bytes, to.nbytes()),
                   Error::InvalidArgument, "%s: row %lld does not fit copy_to", ctx.op_name(),
                   static_cast<long long>(index));
  if (row_bytes == 0) return;
  ETR_KERNEL_CHECK(ctx, to.mutable_data() != nullptr && from.const_data() != nullptr,
                   Error::InvalidState, "%s: a tensor has no data", ctx.op_name());
  std::memmove(static_cast<uint8_t*>(to.mutable_data()) + offset, from.const_data(), row_bytes);
}

// Makes `out` alias self's data with the sizes in `size` (one entry may be
// -1: inferred from the element count).
void prim_et_view(KernelContext& ctx, EValue* const* args) {
  const Tensor& self = args[0]->to_tensor();
  const Span<const int64_t> size = args[1]->to_int_list();
  Tensor& out = args[2]->to_tensor();
  ETR_KERNEL_CHECK(ctx, self.dtype() == out.dtype(), Error::InvalidType,
                   "%s: self is %s but out is %s", ctx.op_name(), to_string(self.dtype()),
                   to_string(out.dtype()));
  ETR_KERNEL_CHECK(ctx, size.size() == out.dim(), Error::InvalidArgument,
                   "%s: %zu sizes given for a rank-%zu output", ctx.op_name(), size.size(),
                   out.dim());
  ETR_KERNEL_CHECK(ctx, self.is_contiguous_order() && out.is_contiguous_order(),
                   Error::NotSupported, "%s: only the default dim order is supported",
                   ctx.op_name());
  int64_t sizes[kTensorMaxDim];
  size_t inferred = kTensorMaxDim;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    const int64_t s = size[i];
    if (s == -1) {
      ETR_KERNEL_CHECK(ctx, inferred == kTensorMaxDim, Error::InvalidArgument,
                       "%s: at most one size may be -1", ctx.op_name());
      inferred = i;
      continue;
    }
    ETR_KERNEL_CHECK(ctx, s >= 0, Error::InvalidArgument, "%s: size[%zu]=%lld is negative",
                     ctx.op_name(), i, static_cast<long long>(s));
    ETR_KERNEL_CHECK(ctx, checked_mul_i64(known, s, &known), Error::InvalidArgument,
                     "%s: element count overflows", ctx.op_name());
    sizes[i] = s;
  }
  if (inferred != kTensorMaxDim) {
    ETR_KERNEL_CHECK(ctx, known != 0 && self.numel() % known == 0, Error::InvalidArgument,
                     "%s: cannot infer the -1 size for %lld elements", ctx.op_name(),
                     static_cast<long long>(self.numel()));
    sizes[inferred] = self.numel() / known;
  } else {
    ETR_KERNEL_CHECK(ctx, known == self.numel(), Error::InvalidArgument,
                     "%s: view has %lld elements but self has %lld", ctx.op_name(),
                     static_cast<long long>(known), static_cast<long long>(self.numel()));
  }
  // out's bytes are self's bytes from now on, so its capacity is self's.
  const size_t capacity =
      self.capacity_bytes() > self.nbytes() ? self.capacity_bytes() : self.nbytes();
  out.set_data(self.mutable_data(), capacity);
  ETR_KERNEL_TRY(ctx, resize_to(ctx.op_name(), "out", out, Span<const int64_t>(sizes, out.dim())));
}

}  // namespace internal
}  // namespace etr
