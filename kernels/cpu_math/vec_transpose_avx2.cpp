// AVX2 body of vec_transpose.h: full 8x8 blocks through registers, the
// ragged edges element by element.
#include "kernels/cpu_math/vec_transpose.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace etr {
namespace opt {
namespace avx2 {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

// out rows i0..i0+7, cols j0..j0+7 from in rows j0..j0+7 (8 contiguous i each).
inline void block8(const float* in, int64_t ldi, float* out, int64_t ldo) {
  __m256 r[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(in + k * ldi);
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(out + 0 * ldo, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(out + 1 * ldo, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(out + 2 * ldo, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(out + 3 * ldo, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(out + 4 * ldo, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(out + 5 * ldo, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(out + 6 * ldo, _mm256_permute2f128_ps(s2, s6, 0x31));
  _mm256_storeu_ps(out + 7 * ldo, _mm256_permute2f128_ps(s3, s7, 0x31));
}

// Eight outputs of six floats (rows i0..i0+7 of the dense 6-wide out) from
// `cols` input rows of 8 contiguous floats (zeros for the others): the 8x8
// register transpose with two more zero rows; each 8-float store's last two
// lanes are overwritten by the next one, and the eighth stores only its six.
inline void block6x8(const float* in, int64_t ldi, int cols, float* out) {
  const __m256 z = _mm256_setzero_ps();
  auto row = [&](int j) { return j < cols ? _mm256_loadu_ps(in + j * ldi) : z; };
  const __m256 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3), r4 = row(4), r5 = row(5);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, z, 0x44), s5 = _mm256_shuffle_ps(t4, z, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, z, 0x44), s7 = _mm256_shuffle_ps(t5, z, 0xEE);
  _mm256_storeu_ps(out + 0 * 6, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(out + 1 * 6, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(out + 2 * 6, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(out + 3 * 6, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(out + 4 * 6, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(out + 5 * 6, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(out + 6 * 6, _mm256_permute2f128_ps(s2, s6, 0x31));
  const __m256 last = _mm256_permute2f128_ps(s3, s7, 0x31);
  _mm_storeu_ps(out + 7 * 6, _mm256_castps256_ps128(last));
  _mm_storel_pi(reinterpret_cast<__m64*>(out + 7 * 6 + 4), _mm256_extractf128_ps(last, 1));
}

}  // namespace

void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows) {
  const int64_t rows8 = rows & ~int64_t{7};
  for (int64_t i = 0; i < rows8; i += 8) block6x8(in + i, ldi, cols, out + i * 6);
  for (int64_t i = rows8; i < rows; ++i) {
    for (int j = 0; j < 6; ++j) out[i * 6 + j] = j < cols ? in[j * ldi + i] : 0.0f;
  }
}

void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols) {
  const int64_t rows8 = rows & ~int64_t{7};
  const int64_t cols8 = cols & ~int64_t{7};
  for (int64_t i = 0; i < rows8; i += 8) {
    for (int64_t j = 0; j < cols8; j += 8) block8(in + j * ldi + i, ldi, out + i * ldo + j, ldo);
    for (int64_t ii = i; ii < i + 8; ++ii) {
      for (int64_t j = cols8; j < cols; ++j) out[ii * ldo + j] = in[j * ldi + ii];
    }
  }
  for (int64_t i = rows8; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i * ldo + j] = in[j * ldi + i];
  }
}

#else  // built without AVX2: never called (cpu_features() gates it).

void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows) {
  generic::transpose_6_f32(in, ldi, cols, out, rows);
}

void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols) {
  generic::transpose_f32(in, ldi, out, ldo, rows, cols);
}

#endif

}  // namespace avx2
}  // namespace opt
}  // namespace etr
