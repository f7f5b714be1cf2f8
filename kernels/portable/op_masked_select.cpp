// aten::masked_select.out and aten::masked_scatter.out. self and the Bool
// mask broadcast together; elements are visited in row-major order of the
// broadcast shape. masked_select copies self's elements where mask is true
// into the 1-D out, whose length depends on the data (so out must be a
// dynamic-shape tensor, refused at load otherwise); masked_scatter writes
// the broadcast self into out, with source's elements (read in row-major
// order of source) where mask is true. Element bytes are moved (any dtype).
#include <cstdint>
#include <cstring>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// The broadcast shape of self and mask as int32 sizes; InvalidArgument
// (logged) when they do not broadcast.
Error broadcast_self_mask(const char* op, const Tensor& self, const Tensor& mask, int32_t* sizes,
                          size_t* dim) {
  const Tensor* ins[] = {&self, &mask};
  int64_t wide[kTensorMaxDim];
  ETR_CHECK_OR_FAIL(broadcast_sizes(Span<const Tensor* const>(ins, 2), wide, dim),
                    Error::InvalidArgument, "%s: cannot broadcast self %s with mask %s", op,
                    ShapeText(self).c_str(), ShapeText(mask).c_str());
  for (size_t d = 0; d < *dim; ++d) {
    ETR_CHECK_OR_FAIL(wide[d] <= INT32_MAX, Error::InvalidArgument, "%s: size too large", op);
    sizes[d] = static_cast<int32_t>(wide[d]);
  }
  return Error::Ok;
}

// Reads a tensor's elements one by one in row-major order of its logical index.
class RowMajorCursor {
 public:
  explicit RowMajorCursor(const Tensor& t) : t_(t) {}
  int64_t offset() const { return offset_; }
  void advance() {
    for (size_t d = t_.dim(); d-- > 0;) {
      offset_ += t_.stride(d);
      if (++index_[d] < t_.size(d)) return;
      offset_ -= t_.stride(d) * t_.size(d);
      index_[d] = 0;
    }
  }

 private:
  const Tensor& t_;
  int64_t index_[kTensorMaxDim] = {};
  int64_t offset_ = 0;
};

Error check_mask(const char* op, const Tensor& mask) {
  return check_dtype(op, "mask", mask, ScalarType::Bool);
}

}  // namespace

Error masked_select_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mask,
                            Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_mask(op, mask));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 1));
  ETR_CHECK_OR_FAIL(out.shape_dynamism() != ShapeDynamism::Static, Error::NotSupported,
                    "%s: out must be a dynamic-shape tensor (its length depends on mask's "
                    "values); out %s is static",
                    op, ShapeText(out).c_str());
  return Error::Ok;
}

void masked_select_out(KernelContext& ctx, const Tensor& self, const Tensor& mask, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, check_mask(op, mask));
  int32_t sizes[kTensorMaxDim];
  size_t dim = 0;
  ETR_KERNEL_TRY(ctx, broadcast_self_mask(op, self, mask, sizes, &dim));
  const Span<const int32_t> shape(sizes, dim);
  int64_t strides[2][kTensorMaxDim];
  broadcast_strides(self, shape, strides[0]);
  broadcast_strides(mask, shape, strides[1]);
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data());
  int64_t count = 0;
  for_each_offset<2>(shape, strides, [&](const int64_t* off) { count += m[off[1]] != 0; });
  const int64_t out_size[1] = {count};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(out_size, 1)));
  if (count == 0) return;
  const size_t es = self.element_size();
  const auto* s = static_cast<const uint8_t*>(self.const_data());
  auto* o = static_cast<uint8_t*>(out.mutable_data());
  const int64_t out_stride = out.stride(0);
  int64_t k = 0;
  for_each_offset<2>(shape, strides, [&](const int64_t* off) {
    if (m[off[1]] == 0) return;
    std::memcpy(o + k++ * out_stride * static_cast<int64_t>(es),
                s + off[0] * static_cast<int64_t>(es), es);
  });
}

Error masked_scatter_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mask,
                             const Tensor& source, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_mask(op, mask));
  ETR_RETURN_IF_ERROR(check_dtype(op, "source", source, self.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim() > mask.dim() ? self.dim() : mask.dim());
}

void masked_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                        const Tensor& source, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&source, &out}));
  ETR_KERNEL_TRY(ctx, check_mask(op, mask));
  int32_t sizes[kTensorMaxDim];
  size_t dim = 0;
  ETR_KERNEL_TRY(ctx, broadcast_self_mask(op, self, mask, sizes, &dim));
  const Span<const int32_t> shape(sizes, dim);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, shape));
  int64_t strides[3][kTensorMaxDim];
  broadcast_strides(out, shape, strides[0]);
  broadcast_strides(self, shape, strides[1]);
  broadcast_strides(mask, shape, strides[2]);
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data());
  int64_t count = 0;
  for_each_offset<3>(shape, strides, [&](const int64_t* off) { count += m[off[2]] != 0; });
  ETR_KERNEL_CHECK(ctx, count <= source.numel(), Error::InvalidArgument,
                   "%s: mask selects %lld elements but source %s has only %lld", op,
                   static_cast<long long>(count), ShapeText(source).c_str(),
                   static_cast<long long>(source.numel()));
  const int64_t es = static_cast<int64_t>(self.element_size());
  const auto* s = static_cast<const uint8_t*>(self.const_data());
  const auto* src = static_cast<const uint8_t*>(source.const_data());
  auto* o = static_cast<uint8_t*>(out.mutable_data());
  RowMajorCursor cursor(source);
  for_each_offset<3>(shape, strides, [&](const int64_t* off) {
    if (m[off[2]] != 0) {
      std::memcpy(o + off[0] * es, src + cursor.offset() * es, static_cast<size_t>(es));
      cursor.advance();
    } else {
      std::memcpy(o + off[0] * es, s + off[1] * es, static_cast<size_t>(es));
    }
  });
}

}  // namespace etr
