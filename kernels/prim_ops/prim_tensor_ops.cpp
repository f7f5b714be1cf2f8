// Tensor-facing prim ops: shape queries, scalar extraction, the map-loop
// accumulator (et_copy_index) and the aliasing view (et_view).
#include <cmath>
#include <cstdint>
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

}  // namespace

void prim_sym_size(KernelContext& ctx, EValue* const* args) {
  const Tensor& self = args[0]->to_tensor();
  const int64_t requested = args[1]->to_int();
  const int64_t rank = static_cast<int64_t>(self.dim());
  const int64_t dim = requested < 0 ? requested + rank : requested;
  ETR_KERNEL_CHECK(ctx, dim >= 0 && dim < rank, Error::InvalidArgument,
                   "aten::sym_size.int: dim %lld is out of range for a rank-%lld tensor",
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
                   "aten::_local_scalar_dense: tensor has %lld elements, expected 1",
                   static_cast<long long>(self.numel()));
  const void* p = self.const_data();
  ETR_KERNEL_CHECK(ctx, p != nullptr, Error::InvalidState,
                   "aten::_local_scalar_dense: tensor has no data");
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
                       "aten::_local_scalar_dense: uint64 value %llu does not fit int64",
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
  ETR_LOG(Error, "aten::_local_scalar_dense: unsupported dtype %s", to_string(self.dtype()));
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
                   "et_copy_index: copy_to is %s but copy_from is %s", to_string(to.dtype()),
                   to_string(from.dtype()));
  ETR_KERNEL_CHECK(ctx, to.dim() == from.dim() + 1, Error::InvalidArgument,
                   "et_copy_index: copy_to rank %zu must be copy_from rank %zu plus one", to.dim(),
                   from.dim());
  ETR_KERNEL_CHECK(ctx, index >= 0 && index < INT32_MAX, Error::InvalidArgument,
                   "et_copy_index: index %lld is out of range", static_cast<long long>(index));
  ETR_KERNEL_CHECK(ctx, to.is_contiguous_order() && from.is_contiguous_order(), Error::NotSupported,
                   "et_copy_index: only the default dim order is supported");
  bool trailing_match = true;
  for (size_t i = 0; i < from.dim(); ++i) {
    if (to.size(i + 1) != from.size(i)) trailing_match = false;
  }
  const bool resizable = to.shape_dynamism() != ShapeDynamism::Static;
  if (resizable && (index == 0 || index >= to.size(0))) {
    ETR_KERNEL_CHECK(ctx, index == 0 || trailing_match, Error::InvalidArgument,
                     "et_copy_index: copy_from shape does not match the rows of copy_to");
    int64_t sizes[kTensorMaxDim];
    sizes[0] = index + 1;
    for (size_t i = 0; i < from.dim(); ++i) sizes[i + 1] = from.size(i);
    ETR_KERNEL_CHECK_OK(ctx, resize_tensor(to, Span<const int64_t>(sizes, to.dim())),
                        "et_copy_index: cannot resize copy_to to %lld rows",
                        static_cast<long long>(index + 1));
  } else {
    ETR_KERNEL_CHECK(ctx, trailing_match, Error::InvalidArgument,
                     "et_copy_index: copy_from shape does not match the rows of copy_to");
    ETR_KERNEL_CHECK(ctx, index < to.size(0), Error::InvalidArgument,
                     "et_copy_index: index %lld is past the %lld rows of a static copy_to",
                     static_cast<long long>(index), static_cast<long long>(to.size(0)));
  }
  const size_t row_bytes = from.nbytes();
  size_t offset = 0;
  ETR_KERNEL_CHECK(ctx,
                   checked_mul(static_cast<size_t>(index), row_bytes, &offset) &&
                       range_within(offset, row_bytes, to.nbytes()),
                   Error::InvalidArgument, "et_copy_index: row %lld does not fit copy_to",
                   static_cast<long long>(index));
  if (row_bytes == 0) return;
  ETR_KERNEL_CHECK(ctx, to.mutable_data() != nullptr && from.const_data() != nullptr,
                   Error::InvalidState, "et_copy_index: a tensor has no data");
  std::memmove(static_cast<uint8_t*>(to.mutable_data()) + offset, from.const_data(), row_bytes);
}

// Makes `out` alias self's data with the sizes in `size` (one entry may be
// -1: inferred from the element count).
void prim_et_view(KernelContext& ctx, EValue* const* args) {
  const Tensor& self = args[0]->to_tensor();
  const Span<const int64_t> size = args[1]->to_int_list();
  Tensor& out = args[2]->to_tensor();
  ETR_KERNEL_CHECK(ctx, self.dtype() == out.dtype(), Error::InvalidType,
                   "et_view: self is %s but out is %s", to_string(self.dtype()),
                   to_string(out.dtype()));
  ETR_KERNEL_CHECK(ctx, size.size() == out.dim(), Error::InvalidArgument,
                   "et_view: %zu sizes given for a rank-%zu output", size.size(), out.dim());
  ETR_KERNEL_CHECK(ctx, self.is_contiguous_order() && out.is_contiguous_order(),
                   Error::NotSupported, "et_view: only the default dim order is supported");
  int64_t sizes[kTensorMaxDim];
  size_t inferred = kTensorMaxDim;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    const int64_t s = size[i];
    if (s == -1) {
      ETR_KERNEL_CHECK(ctx, inferred == kTensorMaxDim, Error::InvalidArgument,
                       "et_view: at most one size may be -1");
      inferred = i;
      continue;
    }
    ETR_KERNEL_CHECK(ctx, s >= 0, Error::InvalidArgument, "et_view: size[%zu]=%lld is negative", i,
                     static_cast<long long>(s));
    ETR_KERNEL_CHECK(ctx, checked_mul_i64(known, s, &known), Error::InvalidArgument,
                     "et_view: element count overflows");
    sizes[i] = s;
  }
  if (inferred != kTensorMaxDim) {
    ETR_KERNEL_CHECK(ctx, known != 0 && self.numel() % known == 0, Error::InvalidArgument,
                     "et_view: cannot infer the -1 size for %lld elements",
                     static_cast<long long>(self.numel()));
    sizes[inferred] = self.numel() / known;
  } else {
    ETR_KERNEL_CHECK(ctx, known == self.numel(), Error::InvalidArgument,
                     "et_view: view has %lld elements but self has %lld",
                     static_cast<long long>(known), static_cast<long long>(self.numel()));
  }
  // out's bytes are self's bytes from now on, so its capacity is self's.
  const size_t capacity =
      self.capacity_bytes() > self.nbytes() ? self.capacity_bytes() : self.nbytes();
  out.set_data(self.mutable_data(), capacity);
  ETR_KERNEL_CHECK_OK(ctx, resize_tensor(out, Span<const int64_t>(sizes, out.dim())),
                      "et_view: cannot give the output its new sizes");
}

}  // namespace internal
}  // namespace etr
