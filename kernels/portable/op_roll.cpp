// aten::roll.out: out[..., (i + shift) mod n, ...] = self[..., i, ...] along
// each listed dim (a dim listed twice rolls by the sum); with no dims self
// is rolled flattened in row-major order and keeps its shape. Element bytes
// are moved (any dtype); any dim order.
#include <cstring>

#include "kernels/portable/shape.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// shift mod n in [0, n); n > 0.
int64_t wrap_shift(int64_t shift, int64_t n) {
  const int64_t s = shift % n;
  return s < 0 ? s + n : s;
}

// Rolls each dim d by shifts[d] (in [0, size)): every rolled dim splits
// into two blocks, so the copy is one plan per combination of blocks.
void roll_dims(const Tensor& self, const int64_t* shifts, Tensor& out) {
  size_t rolled[kTensorMaxDim];
  size_t num_rolled = 0;
  for (size_t d = 0; d < self.dim(); ++d) {
    if (shifts[d] != 0) rolled[num_rolled++] = d;
  }
  const size_t es = self.element_size();
  char* dst = static_cast<char*>(out.mutable_data());
  const char* src = static_cast<const char*>(self.const_data());
  for (uint32_t mask = 0; mask < (uint32_t{1} << num_rolled); ++mask) {
    CopyPlan plan;
    int64_t dst_off = 0;
    int64_t src_off = 0;
    size_t k = 0;
    for (size_t d = 0; d < self.dim(); ++d) {
      const int64_t n = self.size(d);
      int64_t len = n;
      if (k < num_rolled && rolled[k] == d) {
        const int64_t s = shifts[d];
        // Block 0: in [0, n - s) -> out [s, n); block 1: in [n - s, n) -> out [0, s).
        const bool second = (mask >> k) & 1u;
        len = second ? s : n - s;
        dst_off += (second ? 0 : s) * out.stride(d);
        src_off += (second ? n - s : 0) * self.stride(d);
        ++k;
      }
      plan.add(len, out.stride(d), self.stride(d));
    }
    run_copy(plan, dst + dst_off * static_cast<int64_t>(es),
             src + src_off * static_cast<int64_t>(es), es);
  }
}

// The element offset of row-major flat index `flat` in t.
int64_t flat_offset(const Tensor& t, int64_t flat) {
  int64_t off = 0;
  for (size_t d = t.dim(); d-- > 0;) {
    off += (flat % t.size(d)) * t.stride(d);
    flat /= t.size(d);
  }
  return off;
}

// Rolls the row-major flattening of self by shift (in [0, numel)).
void roll_flat(const Tensor& self, int64_t shift, Tensor& out) {
  const size_t es = self.element_size();
  char* dst = static_cast<char*>(out.mutable_data());
  const char* src = static_cast<const char*>(self.const_data());
  const int64_t n = self.numel();
  if (is_default_layout(self) && is_default_layout(out)) {
    const size_t head = static_cast<size_t>(n - shift) * es;
    std::memcpy(dst + static_cast<size_t>(shift) * es, src, head);
    std::memcpy(dst, src + head, static_cast<size_t>(shift) * es);
    return;
  }
  int64_t strides[1][kTensorMaxDim];
  for (size_t d = 0; d < out.dim(); ++d) strides[0][d] = out.stride(d);
  int64_t k = 0;  // row-major index of out's element
  for_each_offset<1>(out.sizes(), strides, [&](const int64_t* off) {
    const int64_t from = k < shift ? k - shift + n : k - shift;
    std::memcpy(dst + off[0] * static_cast<int64_t>(es),
                src + flat_offset(self, from) * static_cast<int64_t>(es), es);
    ++k;
  });
}

}  // namespace

Error roll_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef shifts,
                   IntArrayRef dims, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(shifts.size() > 0, Error::InvalidArgument, "%s: shifts must not be empty", op);
  if (dims.size() == 0) {
    ETR_CHECK_OR_FAIL(shifts.size() == 1, Error::InvalidArgument,
                      "%s: without dims, shifts must have one value, got %zu", op, shifts.size());
  } else {
    ETR_CHECK_OR_FAIL(shifts.size() == dims.size(), Error::InvalidArgument,
                      "%s: shifts (%zu values) and dims (%zu values) must align", op, shifts.size(),
                      dims.size());
    ETR_CHECK_OR_FAIL(self.dim() > 0, Error::InvalidArgument, "%s: dims given for a 0-d self", op);
    for (size_t i = 0; i < dims.size(); ++i) {
      size_t d = 0;
      ETR_RETURN_IF_ERROR(wrap_dim(op, dims[i], self.dim(), &d));
    }
  }
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

void roll_out(KernelContext& ctx, const Tensor& self, IntArrayRef shifts, IntArrayRef dims,
              Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  const bool aligned =
      dims.size() == 0 ? shifts.size() == 1 : shifts.size() == dims.size() && self.dim() > 0;
  ETR_KERNEL_CHECK(ctx, aligned, Error::Internal,
                   "%s: shifts and dims do not align (prepare refuses this)", op);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, self.sizes()));
  if (self.numel() == 0) return;
  if (dims.size() == 0) {
    roll_flat(self, wrap_shift(shifts[0], self.numel()), out);
    return;
  }
  int64_t total[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = wrapped_dim(dims[i], self.dim());
    total[d] = wrap_shift(total[d] + wrap_shift(shifts[i], self.size(d)), self.size(d));
  }
  roll_dims(self, total, out);
}

}  // namespace etr
