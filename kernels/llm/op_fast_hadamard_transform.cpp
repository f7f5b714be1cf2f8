// fast_hadamard_transform.out: the normalized Walsh-Hadamard transform of
// every row of the last dim, y = H_n x / sqrt(n) with H_n the Sylvester
// Hadamard matrix (natural order), for n a power of two; and, as ExecuTorch's
// kernel does for SpinQuant's sizes (Llama 3's FFN: 14336 = 28 * 512), for
// n = 28 * m with m a power of two: the row read as a 28 x m matrix, each of
// its 28 rows transformed (normalized by 1/sqrt(m)), then each of its m
// columns multiplied by the 28 x 28 Hadamard matrix kH28 below, unnormalized.
//
// In place on out (a copy of mat): log2(n) butterfly levels, level h mapping
// each pair (x[i], x[i + h]) of a 2h-block to (x[i] + x[i + h], x[i] -
// x[i + h]). The first three levels (h = 1, 2, 4) run on 8 values at a time
// in registers; from h = 8 on, the inner loop walks two contiguous runs of h
// values and the compiler turns it into vector code. Rows are split over the
// kernel's thread pool when there are enough of them.
//
// Float and Double compute in their own type. Half rounds to half after every
// butterfly operation and the normalization, as ExecuTorch's kernel (which
// runs the same loops on c10::Half values) does; its 28 x 28 products round
// as that kernel's expressions do (multiply_h28): bit for bit the same.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/llm/llm.h"
#include "kernels/llm/util/llm_util.h"
#include "runtime/core/half.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace {

// Rows of at least this many values in total per chunk of pool work.
constexpr size_t kValuesPerChunk = 16384;

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The 28 x 28 Hadamard matrix of ExecuTorch's kernel (Williamson type, from
// N. J. A. Sloane's library of Hadamard matrices, "had.28.will"), measured
// by running the official kernel on the 28 unit vectors. Row r: bit c set
// means +1 at column c, clear means -1.
constexpr uint32_t kH28[28] = {
    0x3296181, 0x6528382, 0xc854704, 0x92a8e08, 0x2751c10, 0x4ca7820, 0x994b0c0,
    0x4b980bc, 0x9534178, 0x2a6c271, 0x54d8463, 0xa9b0847, 0x536500f, 0xa4ce01e,
    0x7804cda, 0xf009935, 0xe21326a, 0xc6224d5, 0x8e409ab, 0x1e81356, 0x3d0262d,
    0x030ed66, 0x041dacd, 0x083b51b, 0x1072ab6, 0x20e15ec, 0x41c2b59, 0x81856b3,
};

// A half value whose arithmetic rounds to half after every operation (the
// layout of Half, so a Half buffer is transformed in place).
struct RoundedHalf {
  uint16_t bits;
  RoundedHalf() = default;
  explicit RoundedHalf(float f) : bits(internal::float_to_half_bits(f)) {}
  float value() const { return internal::half_bits_to_float(bits); }
  friend RoundedHalf operator+(RoundedHalf a, RoundedHalf b) {
    return RoundedHalf(a.value() + b.value());
  }
  friend RoundedHalf operator-(RoundedHalf a, RoundedHalf b) {
    return RoundedHalf(a.value() - b.value());
  }
  RoundedHalf& operator*=(RoundedHalf b) { return *this = RoundedHalf(value() * b.value()); }
  RoundedHalf& operator+=(RoundedHalf b) { return *this = *this + b; }
  RoundedHalf& operator-=(RoundedHalf b) { return *this = *this - b; }
};
static_assert(sizeof(RoundedHalf) == sizeof(Half), "RoundedHalf must have Half's layout");

// 1 / sqrt(n) (n a power of two) in each element type; for Half as c10::Half
// arithmetic gives it: 1 / (2^(k/2) [* sqrt(2)]), each step rounded.
template <typename T>
T inv_sqrt(int64_t n) {
  return static_cast<T>(1.0 / std::sqrt(static_cast<double>(n)));
}
template <>
RoundedHalf inv_sqrt<RoundedHalf>(int64_t n) {
  int k = 0;
  while ((int64_t{1} << k) < n) ++k;
  float root = RoundedHalf(static_cast<float>(int64_t{1} << (k / 2))).value();
  if (k % 2 != 0) root = RoundedHalf(root * RoundedHalf(std::sqrt(2.0f)).value()).value();
  return RoundedHalf(1.0f / root);
}

float widen(RoundedHalf v) { return v.value(); }
float widen(float v) { return v; }
double widen(double v) { return v; }

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

// Output row r of kH28 x over columns [j0, j0 + w) of x (28 x m,
// row-major), summed in column order c = 0..27 in Acc, as the official
// kernel does.
template <typename Acc, typename T>
void h28_row(const T* x, int64_t m, int r, int64_t j0, int64_t w, T* out) {
  Acc acc[8];
  for (int64_t j = 0; j < w; ++j) acc[j] = Acc(0);
  for (int c = 0; c < 28; ++c) {
    const T* xc = x + c * m + j0;
    if ((kH28[r] >> c) & 1u) {
      for (int64_t j = 0; j < w; ++j) acc[j] += Acc(widen(xc[j]));
    } else {
      for (int64_t j = 0; j < w; ++j) acc[j] -= Acc(widen(xc[j]));
    }
  }
  for (int64_t j = 0; j < w; ++j) out[j] = T(widen(acc[j]));
}

// x (28 x m, row-major) <- kH28 x, 8 columns at a time.
template <typename T>
void multiply_h28(T* x, int64_t m) {
  T out[28][8];
  for (int64_t j0 = 0; j0 < m; j0 += 8) {
    const int64_t w = m - j0 < 8 ? m - j0 : 8;
    for (int r = 0; r < 28; ++r) {
      if (std::is_same<T, RoundedHalf>::value && (kH28[r] & 1u) == 0) {
        // The official expression for a row starting with -1 is c10::Half
        // arithmetic (rounded at every step); one starting with +1 is float
        // (rounded once).
        h28_row<RoundedHalf>(x, m, r, j0, w, out[r]);
      } else {
        h28_row<decltype(widen(T()))>(x, m, r, j0, w, out[r]);
      }
    }
    for (int r = 0; r < 28; ++r) {
      for (int64_t j = 0; j < w; ++j) x[r * m + j0 + j] = out[r][j];
    }
  }
}

// n = block: one power-of-two transform per row; n = 28 * block: the 28N one.
template <typename T>
void transform_rows(ThreadPool* pool, const Tensor& mat, Tensor& out, int64_t n, int64_t block) {
  const size_t count = static_cast<size_t>(mat.numel());
  T* y = reinterpret_cast<T*>(out.mutable_data());
  const T* x = reinterpret_cast<const T*>(mat.const_data());
  if (y != x) std::memmove(y, x, count * sizeof(T));
  const size_t rows = count / static_cast<size_t>(n);
  const T norm = inv_sqrt<T>(block);
  size_t grain = kValuesPerChunk / static_cast<size_t>(n);
  if (grain == 0) grain = 1;
  parallel_for(pool, rows, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      T* row = y + r * static_cast<size_t>(n);
      for (int64_t b = 0; b < n; b += block) transform_row(row + b, block, norm);
      if (block != n) multiply_h28(row, block);
    }
  });
}

}  // namespace

Error fast_hadamard_transform_prepare(KernelPrepareContext& ctx, const Tensor& mat, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(mat.dtype() == ScalarType::Float || mat.dtype() == ScalarType::Double ||
                        mat.dtype() == ScalarType::Half,
                    Error::NotSupported,
                    "%s: mat has dtype %s; Float, Double and Half are supported", op,
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
  const int64_t block = is_power_of_two(n) ? n : n / 28;
  ETR_KERNEL_CHECK(ctx, block == n || (n % 28 == 0 && is_power_of_two(block)),
                   Error::InvalidArgument,
                   "%s: mat %s: last dim %lld is neither a power of two nor 28 times one", op,
                   llm::ShapeText(mat).c_str(), static_cast<long long>(n));
  switch (mat.dtype()) {
    case ScalarType::Double: transform_rows<double>(ctx.thread_pool(), mat, out, n, block); break;
    case ScalarType::Half:
      transform_rows<RoundedHalf>(ctx.thread_pool(), mat, out, n, block);
      break;
    default: transform_rows<float>(ctx.thread_pool(), mat, out, n, block); break;
  }
}

}  // namespace etr
