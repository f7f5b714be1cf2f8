// Reference implementation of util/gemm.h (correct, not fast): the GEMM
// engine replaces it behind the same interface.
#include "kernels/optimized/util/gemm.h"

#include <algorithm>
#include <cstring>

namespace etr {
namespace opt {

size_t packed_a_bytes(int64_t m, int64_t k) {
  if (m < 0 || k < 0) return 0;
  const uint64_t n = static_cast<uint64_t>(m) * static_cast<uint64_t>(k);
  if (k != 0 && n / static_cast<uint64_t>(k) != static_cast<uint64_t>(m)) return 0;
  if (n > SIZE_MAX / sizeof(float)) return 0;
  return static_cast<size_t>(n) * sizeof(float);
}

size_t packed_b_bytes(int64_t k, int64_t n) { return packed_a_bytes(k, n); }

PackedMatrix pack_a(MatrixView a, int64_t m, int64_t k, float* dst) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) dst[i * k + p] = a.data[i * a.row_stride + p * a.col_stride];
  return PackedMatrix{dst, m, k};
}

PackedMatrix pack_b(MatrixView b, int64_t k, int64_t n, float* dst) {
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) dst[p * n + j] = b.data[p * b.row_stride + j * b.col_stride];
  return PackedMatrix{dst, k, n};
}

size_t gemm_scratch_bytes(const GemmArgs&) { return 0; }

Error gemm(const GemmArgs& g, MemoryAllocator*, ThreadPool*) {
  const MatrixView a = g.packed_a != nullptr ? MatrixView{g.packed_a->data, g.k, 1} : g.a;
  const MatrixView b = g.packed_b != nullptr ? MatrixView{g.packed_b->data, g.n, 1} : g.b;
  const GemmEpilogue& e = g.epilogue;
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < g.k; ++p) {
        acc += a.data[i * a.row_stride + p * a.col_stride] *
               b.data[p * b.row_stride + j * b.col_stride];
      }
      float* c = g.c + i * g.ldc + j;
      float v = e.alpha * acc;
      if (e.beta != 0.0f) v += e.beta * *c;
      if (e.row_bias != nullptr) v += e.row_bias[i];
      if (e.col_bias != nullptr) v += e.col_bias[j];
      *c = std::min(std::max(v, e.lo), e.hi);
    }
  }
  return Error::Ok;
}

}  // namespace opt
}  // namespace etr
