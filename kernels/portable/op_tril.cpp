// aten::tril.out: keeps the elements (..., i, j) with j - i <= diagonal of
// the last two dims and zeroes the others. Element bytes are moved and
// zero bytes written (zero in every dtype); any dim order.
#include <algorithm>
#include <cstring>

#include "kernels/portable/shape.h"
#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// One matrix: rows x cols elements at the given element strides.
struct Matrix {
  int64_t rows;
  int64_t cols;
  int64_t out_row_stride;
  int64_t out_col_stride;
  int64_t in_row_stride;
  int64_t in_col_stride;
};

void tril_matrix(const Matrix& m, int64_t diagonal, char* dst, const char* src, size_t es) {
  for (int64_t i = 0; i < m.rows; ++i) {
    // Columns [0, keep) are kept; diagonal is clamped to [-rows, cols], so no overflow.
    const int64_t keep = std::min(std::max(i + diagonal + 1, int64_t{0}), m.cols);
    char* drow = dst + i * m.out_row_stride * static_cast<int64_t>(es);
    const char* srow = src + i * m.in_row_stride * static_cast<int64_t>(es);
    for (int64_t j = 0; j < m.cols; ++j) {
      char* d = drow + j * m.out_col_stride * static_cast<int64_t>(es);
      if (j < keep) {
        std::memcpy(d, srow + j * m.in_col_stride * static_cast<int64_t>(es), es);
      } else {
        std::memset(d, 0, es);
      }
    }
  }
}

}  // namespace

Error tril_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(self.dim() >= 2, Error::InvalidArgument,
                    "%s: self must have at least 2 dims, got %zu", op, self.dim());
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

void tril_out(KernelContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_CHECK(ctx, self.dim() >= 2, Error::Internal, "%s: self has fewer than 2 dims", op);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, self.sizes()));
  if (self.numel() == 0) return;
  const size_t r = self.dim() - 2;
  const Matrix m{self.size(r),      self.size(r + 1), out.stride(r),
                 out.stride(r + 1), self.stride(r),   self.stride(r + 1)};
  const int64_t diag = std::min(std::max(diagonal, -m.rows), m.cols);
  const size_t es = self.element_size();
  char* dst = static_cast<char*>(out.mutable_data());
  const char* src = static_cast<const char*>(self.const_data());
  // The batch dims: one matrix per index.
  int64_t strides[2][kTensorMaxDim];
  for (size_t d = 0; d < r; ++d) {
    strides[0][d] = out.stride(d);
    strides[1][d] = self.stride(d);
  }
  for_each_offset<2>(Span<const int32_t>(self.sizes().data(), r), strides, [&](const int64_t* off) {
    tril_matrix(m, diag, dst + off[0] * static_cast<int64_t>(es),
                src + off[1] * static_cast<int64_t>(es), es);
  });
}

}  // namespace etr
