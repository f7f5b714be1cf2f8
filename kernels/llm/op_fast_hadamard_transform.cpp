// fast_hadamard_transform.out: the normalized Walsh-Hadamard transform of
// every row of the last dim, y = H_n x / sqrt(n) with H_n the Sylvester
// Hadamard matrix (natural order), for n a power of two.
//
// In place on out (a copy of mat): log2(n) butterfly levels, level h mapping
// each pair (x[i], x[i + h]) of a 2h-block to (x[i] + x[i + h], x[i] -
// x[i + h]). The first three levels (h = 1, 2, 4) run on 8 values at a time
// in registers; from h = 8 on, the inner loop walks two contiguous runs of h
// values and the compiler turns it into vector code. Rows are split over the
// kernel's thread pool when there are enough of them.
#include <cmath>
#include <cstring>

#include "kernels/llm/llm.h"
#include "kernels/llm/util/llm_util.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace {

// Rows of at least this many values in total per chunk of pool work.
constexpr size_t kValuesPerChunk = 16384;

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Levels h = 1, 2, 4 on x[0..8).
template <typename T>
inline void butterfly8(T* x) {
  const T a0 = x[0] + x[1], a1 = x[0] - x[1], a2 = x[2] + x[3], a3 = x[2] - x[3];
  const T a4 = x[4] + x[5], a5 = x[4] - x[5], a6 = x[6] + x[7], a7 = x[6] - x[7];
  const T b0 = a0 + a2, b1 = a1 + a3, b2 = a0 - a2, b3 = a1 - a3;
  const T b4 = a4 + a6, b5 = a5 + a7, b6 = a4 - a6, b7 = a5 - a7;
  x[0] = b0 + b4;
  x[1] = b1 + b5;
  x[2] = b2 + b6;
  x[3] = b3 + b7;
  x[4] = b0 - b4;
  x[5] = b1 - b5;
  x[6] = b2 - b6;
  x[7] = b3 - b7;
}

// One row of n values (n a power of two), in place, times `norm`.
template <typename T>
void transform_row(T* x, int64_t n, T norm) {
  int64_t h = 1;
  if (n >= 8) {
    for (int64_t i = 0; i < n; i += 8) butterfly8(x + i);
    h = 8;
  }
  for (; h < n; h *= 2) {
    for (int64_t i = 0; i < n; i += 2 * h) {
      T* lo = x + i;
      T* hi = lo + h;
      for (int64_t j = 0; j < h; ++j) {
        const T u = lo[j];
        const T v = hi[j];
        lo[j] = u + v;
        hi[j] = u - v;
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) x[i] *= norm;
}

template <typename T>
void transform_rows(ThreadPool* pool, const Tensor& mat, Tensor& out, int64_t n) {
  const size_t count = static_cast<size_t>(mat.numel());
  T* y = out.data_ptr<T>();
  const T* x = mat.const_data_ptr<T>();
  if (y != x) std::memmove(y, x, count * sizeof(T));
  const size_t rows = count / static_cast<size_t>(n);
  const T norm = static_cast<T>(1.0 / std::sqrt(static_cast<double>(n)));
  size_t grain = kValuesPerChunk / static_cast<size_t>(n);
  if (grain == 0) grain = 1;
  parallel_for(pool, rows, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) transform_row(y + r * static_cast<size_t>(n), n, norm);
  });
}

}  // namespace

Error fast_hadamard_transform_prepare(KernelPrepareContext& ctx, const Tensor& mat, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(mat.dtype() == ScalarType::Float || mat.dtype() == ScalarType::Double,
                    Error::NotSupported, "%s: mat has dtype %s; Float and Double are supported", op,
                    to_string(mat.dtype()));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, "out", out, mat.dtype()));
  ETR_RETURN_IF_ERROR(llm::check_dense(op, "mat", mat));
  return llm::check_dense(op, "out", out);
}

void fast_hadamard_transform_out(KernelContext& ctx, const Tensor& mat, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, resize_tensor(out, mat.sizes()));
  ETR_KERNEL_TRY(ctx, llm::check_dense(op, "mat", mat));
  ETR_KERNEL_TRY(ctx, llm::check_dense(op, "out", out));
  if (mat.numel() == 0) return;
  // A 0-dim tensor is one row of one value (the transform of size 1 is the
  // identity).
  const int64_t n = mat.dim() == 0 ? 1 : mat.size(mat.dim() - 1);
  if (!is_power_of_two(n)) {
    ETR_KERNEL_CHECK(ctx, !(n % 28 == 0 && is_power_of_two(n / 28)), Error::NotSupported,
                     "%s: mat %s: last dim %lld = 28 * %lld (ExecuTorch's 28 * 2^k sizes) is "
                     "not supported; powers of two are",
                     op, llm::ShapeText(mat).c_str(), static_cast<long long>(n),
                     static_cast<long long>(n / 28));
    ETR_KERNEL_CHECK(ctx, false, Error::InvalidArgument,
                     "%s: mat %s: last dim %lld is not a power of two", op,
                     llm::ShapeText(mat).c_str(), static_cast<long long>(n));
  }
  if (mat.dtype() == ScalarType::Double) {
    transform_rows<double>(ctx.thread_pool(), mat, out, n);
  } else {
    transform_rows<float>(ctx.thread_pool(), mat, out, n);
  }
}

}  // namespace etr
