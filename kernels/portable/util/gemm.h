// The matrix-product core shared by mm, bmm, addmm and linear: "C += alpha *
// A @ B" on row-major contiguous matrices in i-k-j order, so the innermost
// loop walks a row of B and a row of C contiguously (vectorizable, cache
// friendly); plus the operand check their prepare steps share.
#pragma once

#include <cstdint>

#include "kernels/portable/util/checks.h"

namespace etr {

// c[m,n] += alpha * a[m,k] @ b[k,n]; all row-major and contiguous.
template <typename T>
void gemm_acc(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, T alpha) {
  for (int64_t i = 0; i < m; ++i) {
    T* __restrict crow = c + i * n;
    const T* arow = a + i * k;
    for (int64_t p = 0; p < k; ++p) {
      const T av = alpha * arow[p];
      const T* __restrict brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
    }
  }
}

template <typename T>
void zero_fill(T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = T(0);
}

// Prepare: out is float or double, a and b have out's dtype, and all three
// the default dim order.
[[nodiscard]] inline Error check_matmul_operands(const char* op, const Tensor& a, const Tensor& b,
                                                 const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "first operand", a, out.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "second operand", b, out.dtype()));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "first operand", a));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "second operand", b));
  return check_default_layout(op, "out", out);
}

}  // namespace etr
