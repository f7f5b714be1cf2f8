// aten::nonzero.out: the indices of self's nonzero elements (NaN counts as
// nonzero), one row of self.dim() Long indices per element, rows in
// row-major order of self. The row count depends on the data, so out must
// be a dynamic-shape tensor (refused at load otherwise); run() resizes it
// within its capacity and fails with the needed shape when it does not fit.
#include <cstdint>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

// Calls fn(offset, index) for every element of `t` in row-major order of the
// logical index (index has t.dim() entries).
template <typename F>
void for_each_index(const Tensor& t, F&& fn) {
  const int64_t n = t.numel();
  int64_t index[kTensorMaxDim] = {};
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    fn(offset, static_cast<const int64_t*>(index));
    for (size_t d = t.dim(); d-- > 0;) {
      offset += t.stride(d);
      if (++index[d] < t.size(d)) break;
      offset -= t.stride(d) * t.size(d);
      index[d] = 0;
    }
  }
}

template <typename T>
bool is_nonzero(const void* data, int64_t offset) {
  return read_elem(static_cast<const T*>(data), offset) != T(0);
}

}  // namespace

Error nonzero_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kRealAndBoolTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 2));
  ETR_CHECK_OR_FAIL(out.shape_dynamism() != ShapeDynamism::Static, Error::NotSupported,
                    "%s: out must be a dynamic-shape tensor (its row count depends on self's "
                    "values); out %s is static",
                    op, ShapeText(out).c_str());
  return Error::Ok;
}

void nonzero_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_dtype(op, "out", out, ScalarType::Long));
  int64_t count = 0;
  bool (*test)(const void*, int64_t) = nullptr;
  const bool known = dispatch_real_and_bool(
      self.dtype(), [&](auto tag) { test = &is_nonzero<typename decltype(tag)::type>; });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
  const void* data = self.const_data();
  for_each_index(self, [&](int64_t off, const int64_t*) { count += test(data, off) ? 1 : 0; });
  const int64_t sizes[2] = {count, static_cast<int64_t>(self.dim())};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, 2)));
  if (out.numel() == 0) return;
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t row_stride = out.stride(0);
  const int64_t col_stride = out.stride(1);
  int64_t row = 0;
  for_each_index(self, [&](int64_t off, const int64_t* index) {
    if (!test(data, off)) return;
    for (size_t d = 0; d < self.dim(); ++d)
      o[row * row_stride + static_cast<int64_t>(d) * col_stride] = index[d];
    ++row;
  });
}

}  // namespace etr
