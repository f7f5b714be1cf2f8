// Single-precision matrix product shared by the optimized linear-algebra and
// convolution kernels:
//
//   C[m, n] = alpha * A[m, k] @ B[k, n] (+ beta * C) (+ bias) then clamped to [lo, hi]
//   (then optionally C * sigmoid(C))
//
// Operands are described by a pointer and two element strides (row, column),
// so a transposed or NCHW-viewed matrix needs no copy. A constant operand
// (weights) can be packed once in prepare (pack_a / pack_b into memory of
// packed_a_bytes / packed_b_bytes from the method allocator) and passed as
// packed; an unpacked operand is packed by gemm() itself into scratch from
// `temp` (the kernel's temp allocator). gemm() never allocates otherwise and
// splits the work over `pool` (null: the calling thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/cpu_math/vec_math.h"
#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

// A row-major view: element (i, j) is data[i * row_stride + j * col_stride].
struct MatrixView {
  const float* data = nullptr;
  ptrdiff_t row_stride = 0;
  ptrdiff_t col_stride = 1;
};

// An operand packed by pack_a / pack_b (opaque layout, owned by the caller).
struct PackedMatrix {
  const float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
};

struct GemmEpilogue {
  float alpha = 1.0f;
  // beta == 0: C is written, not read (may hold garbage or NaN).
  float beta = 0.0f;
  const float* row_bias = nullptr;  // m values, added to every row i (conv: per output channel)
  const float* col_bias = nullptr;  // n values, added to every column j (linear: per feature)
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  // After the clamp: C = C * sigmoid(C) (opt::UnaryKind::kSilu), applied to
  // each finished block while it is in cache.
  bool silu = false;
  // Then C = post(C) (an elementwise opt::unary, e.g. hardswish) on each
  // finished block, when not null; it outlives the gemm() call.
  const UnaryParams* post = nullptr;
};

// Bytes for A [m, k] / B [k, n] packed; 0 when the size overflows.
size_t packed_a_bytes(int64_t m, int64_t k);
size_t packed_b_bytes(int64_t k, int64_t n);
// Packs a whole operand into `dst` (packed_*_bytes, 64-byte aligned).
PackedMatrix pack_a(MatrixView a, int64_t m, int64_t k, float* dst);
PackedMatrix pack_b(MatrixView b, int64_t k, int64_t n, float* dst);
// pack_a / pack_b split by row / column panels across `pool` (null: the
// calling thread); the same bytes as on one thread.
PackedMatrix pack_a(MatrixView a, int64_t m, int64_t k, float* dst, ThreadPool* pool);
PackedMatrix pack_b(MatrixView b, int64_t k, int64_t n, float* dst, ThreadPool* pool);

struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  // Exactly one of a / packed_a and one of b / packed_b is set.
  MatrixView a;
  const PackedMatrix* packed_a = nullptr;
  MatrixView b;
  const PackedMatrix* packed_b = nullptr;
  float* c = nullptr;  // row-major with leading dimension ldc (>= n)
  ptrdiff_t ldc = 0;
  // K values, or null: C = A @ diag(k_scale) @ B, the scale applied (one
  // rounding per element) to the operand gemm() packs itself: B, or A when
  // B comes packed (not both packed); shared by a batch. A convolution's
  // input scaled per channel (squeeze-excite) without a pass of its own.
  const float* k_scale = nullptr;
  // With k_scale only: K values added after the scale (a second rounding),
  // or null, then with k_relu the result clamped at 0: element k of the
  // operand gemm() packs becomes max(v * k_scale[k] + k_shift[k], 0) (a
  // batch norm -> ReLU on a convolution's input channels). Unlike a scale
  // this does not commute to the other operand: the caller makes sure the
  // operand packed per call is the one meant (B, or A when B comes packed).
  const float* k_shift = nullptr;
  bool k_relu = false;
  GemmEpilogue epilogue;
  // Batched products (bmm): `batch` products, the i-th on a.data +
  // i * batch_stride_a, b.data + i * batch_stride_b and c + i * batch_stride_c
  // (element strides). A packed operand is shared by every product; the
  // biases are too.
  int64_t batch = 1;
  ptrdiff_t batch_stride_a = 0;
  ptrdiff_t batch_stride_b = 0;
  ptrdiff_t batch_stride_c = 0;
};

// InvalidArgument for negative sizes, a null operand or C, ldc < n or a
// packed operand of other sizes; MemoryAllocationFailed when `temp` cannot
// hold the smallest packing scratch (the message names the bytes); else Ok.
// Packed data at 64-byte alignment is fastest; any float alignment works.
[[nodiscard]] Error gemm(const GemmArgs& args, MemoryAllocator* temp, ThreadPool* pool);

// The scratch bytes gemm() takes from `temp` for these arguments on a pool
// of `threads` threads (pool->num_threads(); 1 for no pool), for a caller
// that sizes its temp memory. When `temp` holds less, gemm() runs on fewer
// threads, then with smaller blocks (slower); MemoryAllocationFailed only
// when it cannot hold a few KiB.
size_t gemm_scratch_bytes(const GemmArgs& args, size_t threads);
// The same for 2 threads (given only that much, gemm() runs on at most 2).
size_t gemm_scratch_bytes(const GemmArgs& args);

}  // namespace opt
}  // namespace etr
