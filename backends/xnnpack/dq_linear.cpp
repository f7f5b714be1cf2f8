#include "backends/xnnpack/dq_linear.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/core/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ETR_DQ_HAVE_AVX2_PATH 1
#endif

namespace etr {
namespace xnnpack {
namespace {

// XNNPACK's math_min_f32 / math_max_f32 on x86 (NaN handling included).
inline float xmin(float a, float b) { return b < a ? b : a; }
inline float xmax(float a, float b) { return b < a ? a : b; }

inline float epilogue(int32_t dot, int32_t zp, int32_t ksum, float in_scale, float w_scale,
                      float bias, float lo, float hi) {
  const float f = static_cast<float>(static_cast<int64_t>(dot) - static_cast<int64_t>(zp) * ksum);
  const float v = std::fma(f * in_scale, w_scale, bias);
  return xmin(xmax(v, lo), hi);
}

// Outputs per thread-pool chunk unit and per cache block.
constexpr size_t kPair = 2;
constexpr size_t kBlockPairs = 16;

void dq_block_generic(const int8_t* q, const Qd8Params* params, size_t rows,
                      const DqLinearWeights& w, size_t o0, size_t o1, float* y) {
  const size_t k = w.k;
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* a = q + r * k;
    for (size_t o = o0; o < o1; ++o) {
      const int8_t* b = w.w + o * k;
      int32_t dot = 0;
      for (size_t i = 0; i < k; ++i) dot += static_cast<int32_t>(a[i]) * b[i];
      y[r * w.n + o] = epilogue(dot, params[r].zero_point, w.ksum[o], params[r].scale, w.scales[o],
                                w.bias != nullptr ? w.bias[o] : 0.0f, w.output_min, w.output_max);
    }
  }
}

#ifdef ETR_DQ_HAVE_AVX2_PATH
__attribute__((target("avx2,fma"))) inline int32_t hsum_avx2(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

// MR rows (1..4) x 2 outputs per step: int8 widened to int16, pairwise
// products summed into int32 lanes (vpmaddwd), exact for any int8 inputs.
template <size_t MR>
__attribute__((target("avx2,fma"))) void dq_rows_avx2(const int8_t* q, const Qd8Params* params,
                                                      size_t r0, const DqLinearWeights& w,
                                                      size_t ob, size_t oe, float* y) {
  const size_t k = w.k;
  const int8_t* a[MR];
  for (size_t r = 0; r < MR; ++r) a[r] = q + (r0 + r) * k;
  for (size_t o = ob; o < oe; o += kPair) {
    const size_t nr = oe - o < kPair ? oe - o : kPair;
    const int8_t* b0 = w.w + o * k;
    const int8_t* b1 = nr > 1 ? b0 + k : b0;
    __m256i acc[MR][2];
    for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 16 <= k; i += 16) {
      const __m256i w0 =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b0 + i)));
      const __m256i w1 =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b1 + i)));
      for (size_t r = 0; r < MR; ++r) {
        const __m256i x =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a[r] + i)));
        acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
        acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
      }
    }
    for (size_t r = 0; r < MR; ++r) {
      const int32_t* ks = w.ksum.data() + o;
      int32_t d0 = hsum_avx2(acc[r][0]), d1 = hsum_avx2(acc[r][1]);
      for (size_t t = i; t < k; ++t) {
        d0 += static_cast<int32_t>(a[r][t]) * b0[t];
        d1 += static_cast<int32_t>(a[r][t]) * b1[t];
      }
      const Qd8Params p = params[r0 + r];
      float* yr = y + (r0 + r) * w.n + o;
      yr[0] = epilogue(d0, p.zero_point, ks[0], p.scale, w.scales[o],
                       w.bias != nullptr ? w.bias[o] : 0.0f, w.output_min, w.output_max);
      if (nr > 1) {
        yr[1] = epilogue(d1, p.zero_point, ks[1], p.scale, w.scales[o + 1],
                         w.bias != nullptr ? w.bias[o + 1] : 0.0f, w.output_min, w.output_max);
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void dq_block_avx2(const int8_t* q, const Qd8Params* params,
                                                       size_t rows, const DqLinearWeights& w,
                                                       size_t o0, size_t o1, float* y) {
  for (size_t ob = o0; ob < o1; ob += kBlockPairs * kPair) {
    const size_t oe = ob + kBlockPairs * kPair < o1 ? ob + kBlockPairs * kPair : o1;
    size_t r0 = 0;
    for (; r0 + 4 <= rows; r0 += 4) dq_rows_avx2<4>(q, params, r0, w, ob, oe, y);
    switch (rows - r0) {
      case 3: dq_rows_avx2<3>(q, params, r0, w, ob, oe, y); break;
      case 2: dq_rows_avx2<2>(q, params, r0, w, ob, oe, y); break;
      case 1: dq_rows_avx2<1>(q, params, r0, w, ob, oe, y); break;
      default: break;
    }
  }
}

bool have_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}
#endif

// ---- qd8 x qb4w (block-wise 4-bit weights, unpacked to int8 at init)

// One output of one row, in the official kernel's order (dq_linear.h).
float qb4w_output(const int8_t* a, const Qd8Params& p, const DqLinearWeights& w, size_t o) {
  const size_t k = w.k, bl = w.block, nb = k / bl;
  const int8_t* b = w.w + o * k;
  const float* sc = w.block_scales.data() + o * nb;
  float lane[4] = {w.kfsum[o] * static_cast<float>(p.zero_point), 0.0f, 0.0f, 0.0f};
  for (size_t blk = 0; blk < nb; ++blk) {
    int32_t d[4] = {0, 0, 0, 0};
    for (size_t i = blk * bl; i < (blk + 1) * bl; ++i)
      d[(i >> 1) & 3] += static_cast<int32_t>(a[i]) * b[i];
    for (size_t j = 0; j < 4; ++j) lane[j] = std::fma(static_cast<float>(d[j]), sc[blk], lane[j]);
  }
  const float total = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  const float v = std::fma(total, p.scale, w.bias != nullptr ? w.bias[o] : 0.0f);
  return xmin(xmax(v, w.output_min), w.output_max);
}

void qb4w_block_generic(const int8_t* q, const Qd8Params* params, size_t rows,
                        const DqLinearWeights& w, size_t o0, size_t o1, float* y) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t o = o0; o < o1; ++o) y[r * w.n + o] = qb4w_output(q + r * w.k, params[r], w, o);
  }
}

#ifdef ETR_DQ_HAVE_AVX2_PATH
// MR rows x 2 outputs: 16 inputs per step as in the int8 path; after each
// block the 8 int32 lanes fold into the kernel's 4 (inputs i mod 8 in
// {2j, 2j+1} -> lane j) and are scaled into 4 float lanes with fma.
template <size_t MR>
__attribute__((target("avx2,fma"))) void qb4w_rows_avx2(const int8_t* q, const Qd8Params* params,
                                                        size_t r0, const DqLinearWeights& w,
                                                        size_t ob, size_t oe, float* y) {
  const size_t k = w.k, bl = w.block, nb = k / bl;
  const int8_t* a[MR];
  for (size_t r = 0; r < MR; ++r) a[r] = q + (r0 + r) * k;
  for (size_t o = ob; o < oe; o += kPair) {
    const size_t nr = oe - o < kPair ? oe - o : kPair;
    const size_t o1 = nr > 1 ? o + 1 : o;
    const int8_t* b0 = w.w + o * k;
    const int8_t* b1 = w.w + o1 * k;
    const float* s0 = w.block_scales.data() + o * nb;
    const float* s1 = w.block_scales.data() + o1 * nb;
    __m128 lane[MR][2];
    for (size_t r = 0; r < MR; ++r) {
      const float zp = static_cast<float>(params[r0 + r].zero_point);
      lane[r][0] = _mm_set_ss(w.kfsum[o] * zp);
      lane[r][1] = _mm_set_ss(w.kfsum[o1] * zp);
    }
    for (size_t blk = 0; blk < nb; ++blk) {
      __m256i acc[MR][2];
      for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
      for (size_t i = blk * bl; i < (blk + 1) * bl; i += 16) {
        const __m256i w0 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b0 + i)));
        const __m256i w1 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b1 + i)));
        for (size_t r = 0; r < MR; ++r) {
          const __m256i x =
              _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a[r] + i)));
          acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
          acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
        }
      }
      const __m128 sc0 = _mm_set1_ps(s0[blk]);
      const __m128 sc1 = _mm_set1_ps(s1[blk]);
      for (size_t r = 0; r < MR; ++r) {
        for (size_t c = 0; c < 2; ++c) {
          const __m128i d = _mm_add_epi32(_mm256_castsi256_si128(acc[r][c]),
                                          _mm256_extracti128_si256(acc[r][c], 1));
          lane[r][c] = _mm_fmadd_ps(_mm_cvtepi32_ps(d), c == 0 ? sc0 : sc1, lane[r][c]);
        }
      }
    }
    for (size_t r = 0; r < MR; ++r) {
      const float scale = params[r0 + r].scale;
      float* yr = y + (r0 + r) * w.n + o;
      for (size_t c = 0; c < nr; ++c) {
        const __m128 h = _mm_hadd_ps(lane[r][c], lane[r][c]);  // l0+l1, l2+l3
        const float total = _mm_cvtss_f32(_mm_hadd_ps(h, h));  // (l0+l1)+(l2+l3)
        const float v = std::fma(total, scale, w.bias != nullptr ? w.bias[o + c] : 0.0f);
        yr[c] = xmin(xmax(v, w.output_min), w.output_max);
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void qb4w_block_avx2(const int8_t* q, const Qd8Params* params,
                                                         size_t rows, const DqLinearWeights& w,
                                                         size_t o0, size_t o1, float* y) {
  for (size_t ob = o0; ob < o1; ob += kBlockPairs * kPair) {
    const size_t oe = ob + kBlockPairs * kPair < o1 ? ob + kBlockPairs * kPair : o1;
    size_t r0 = 0;
    for (; r0 + 4 <= rows; r0 += 4) qb4w_rows_avx2<4>(q, params, r0, w, ob, oe, y);
    switch (rows - r0) {
      case 3: qb4w_rows_avx2<3>(q, params, r0, w, ob, oe, y); break;
      case 2: qb4w_rows_avx2<2>(q, params, r0, w, ob, oe, y); break;
      case 1: qb4w_rows_avx2<1>(q, params, r0, w, ob, oe, y); break;
      default: break;
    }
  }
}
#endif

}  // namespace

bool unpack_int4(const uint8_t* src, size_t src_bytes, size_t n, size_t k, int8_t* dst) {
  if (k != 0 && n > SIZE_MAX / k) return false;
  const size_t count = n * k;
  if (src_bytes < count / 2 + (count & 1) || (count != 0 && (src == nullptr || dst == nullptr)))
    return false;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t byte = src[i >> 1];
    const int nibble = (i & 1) != 0 ? byte >> 4 : byte & 0x0F;
    dst[i] = static_cast<int8_t>(nibble - 8);
  }
  return true;
}

uint16_t float_to_bf16_as_official(float f) {
  const float adjusted = f * 1.00389105f;
  uint32_t u;
  std::memcpy(&u, &adjusted, sizeof u);
  return static_cast<uint16_t>(u >> 16);
}

const char* qb4w_layout_problem(size_t n, size_t k, size_t block, size_t data_bytes,
                                size_t num_scales) {
  if (block == 0 || block % 32 != 0) return "group_size is not a positive multiple of 32";
  if (k == 0 || k % block != 0) return "group_size does not divide the input channels";
  if (n > SIZE_MAX / k) return "outputs * inputs overflows";
  if (data_bytes < n * k / 2) return "weight data is shorter than outputs * inputs / 2 bytes";
  if (num_scales != n * (k / block)) return "scale count is not outputs * inputs / group_size";
  return nullptr;
}

void qb4w_prepare_sums(DqLinearWeights* w) {
  const size_t k = w->k, bl = w->block, nb = k / bl;
  w->kfsum.assign(w->n, 0.0f);
  for (size_t o = 0; o < w->n; ++o) {
    const int8_t* b = w->w + o * k;
    float acc = 0.0f;
    for (size_t c = 0; c < k; c += 16) {  // the packer's chunks: 2 x kr (8) inputs
      int32_t s = 0;
      for (size_t i = c; i < c + 16 && i < k; ++i) s += b[i];
      const float term = static_cast<float>(s) * w->block_scales[o * nb + c / bl];
      acc = acc - term;
    }
    w->kfsum[o] = acc;
  }
}

Qd8Params qd8_params(float min, float max, float* multiplier) {
  const float qmin = -128.0f, qmax = 127.0f;
  const float rmin = xmin(0.0f, min);
  const float rmax = xmax(0.0f, max);
  const float m = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  const float dmin = rmin * m, dmax = rmax * m;
  float zp = (qmin + dmin) + (qmax + dmax) > 0.0f ? qmin - dmin : qmax - dmax;
  zp = xmin(xmax(zp, qmin), qmax);
  *multiplier = m;
  return Qd8Params{1.0f / m, static_cast<int32_t>(std::nearbyint(zp))};
}

void qd8_quantize(const float* x, size_t rows, size_t k, int8_t* q, Qd8Params* params,
                  ThreadPool* pool) {
  const size_t grain = k == 0 ? rows : (16384 + k - 1) / k;
  parallel_for(pool, rows, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      const float* xr = x + r * k;
      float lo = 0.0f, hi = 0.0f;  // NaN compares false: skipped
      for (size_t i = 0; i < k; ++i) {
        lo = xr[i] < lo ? xr[i] : lo;
        hi = xr[i] > hi ? xr[i] : hi;
      }
      float m = 1.0f;
      const Qd8Params p = qd8_params(lo, hi, &m);
      params[r] = p;
      const float qlo = static_cast<float>(-128 - p.zero_point);
      const float qhi = static_cast<float>(127 - p.zero_point);
      int8_t* qr = q + r * k;
      for (size_t i = 0; i < k; ++i) {
        float v = xr[i] * m;
        if (v != v) v = 0.0f;  // NaN: the zero point
        v = v < qlo ? qlo : v;
        v = v > qhi ? qhi : v;
        qr[i] = static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(v)) + p.zero_point);
      }
    }
  });
}

size_t qd8_buffer_bytes(size_t numel, size_t k) {
  const size_t rows = k == 0 ? 0 : numel / k;
  return qd8_params_offset(numel) + rows * sizeof(Qd8Params);
}

void dq_linear(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
               float* y, ThreadPool* pool) {
  if (rows == 0 || w.n == 0) return;
  const size_t pairs = (w.n + kPair - 1) / kPair;
  const size_t per_pair = rows * w.k * kPair;
  const size_t grain = per_pair >= 65536 ? 1 : 65536 / (per_pair == 0 ? 1 : per_pair);
  parallel_for(pool, pairs, grain, [&](size_t begin, size_t end) {
    const size_t o0 = begin * kPair;
    const size_t o1 = end * kPair < w.n ? end * kPair : w.n;
#ifdef ETR_DQ_HAVE_AVX2_PATH
    if (have_avx2_fma()) {
      if (w.block != 0) {
        qb4w_block_avx2(q, params, rows, w, o0, o1, y);
      } else {
        dq_block_avx2(q, params, rows, w, o0, o1, y);
      }
      return;
    }
#endif
    if (w.block != 0) {
      qb4w_block_generic(q, params, rows, w, o0, o1, y);
    } else {
      dq_block_generic(q, params, rows, w, o0, o1, y);
    }
  });
}

}  // namespace xnnpack
}  // namespace etr
