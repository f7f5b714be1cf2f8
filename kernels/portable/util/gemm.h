// The matrix-product core shared by mm, bmm, addmm and linear: "C += alpha *
// A @ B" on row-major contiguous matrices in i-k-j order, so the innermost
// loop walks a row of B and a row of C contiguously (vectorizable, cache
// friendly); plus the operand check their prepare steps share.
// Integer matrices (uint8, int8, int16, int32, int64) accumulate in their
// own type and wrap on overflow like PyTorch: the arithmetic runs in the
// unsigned type of the same width (modulo 2^bits, no signed-overflow UB)
// and is cast back. Wrapping is a ring homomorphism, so the order of the
// products and sums does not change an integer result.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

// c[m,n] += alpha * a[m,k] @ b[k,n]; all row-major and contiguous.
template <typename T>
void gemm_acc(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, T alpha) {
  if constexpr (std::is_integral<T>::value) {
    using U = internal::WrapType<T>;
    for (int64_t i = 0; i < m; ++i) {
      T* __restrict crow = c + i * n;
      const T* arow = a + i * k;
      for (int64_t p = 0; p < k; ++p) {
        const U av = static_cast<U>(static_cast<U>(alpha) * static_cast<U>(arow[p]));
        const T* __restrict brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) {
          crow[j] = static_cast<T>(static_cast<U>(static_cast<U>(crow[j]) +
                                                  static_cast<U>(av * static_cast<U>(brow[j]))));
        }
      }
    }
  } else {
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
}

// The dot product of a[0..k) and b[0..k) (integers wrap, as gemm_acc).
template <typename T>
T dot_acc(const T* a, const T* b, int64_t k) {
  if constexpr (std::is_integral<T>::value) {
    using U = internal::WrapType<T>;
    U acc = 0;
    for (int64_t p = 0; p < k; ++p) {
      acc = static_cast<U>(acc + static_cast<U>(static_cast<U>(a[p]) * static_cast<U>(b[p])));
    }
    return static_cast<T>(acc);
  } else {
    T acc = T(0);
    for (int64_t p = 0; p < k; ++p) acc += a[p] * b[p];
    return acc;
  }
}

template <typename T>
void zero_fill(T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = T(0);
}

// Prepare: out is an integer type, float or double (kRealTypes; PyTorch has no
// bool matrix product), a and b have out's dtype, and all three the default
// dim order.
[[nodiscard]] inline Error check_matmul_operands(const char* op, const Tensor& a, const Tensor& b,
                                                 const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), kRealTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "first operand", a, out.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "second operand", b, out.dtype()));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "first operand", a));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "second operand", b));
  return check_default_layout(op, "out", out);
}

}  // namespace etr
