// AVX2 + FMA kernels of dq_linear.h (compiled with -mavx2 -mfma by
// etr_isa_sources; reached only where opt::cpu_features().avx2_fma).
#include <cmath>
#include <cstring>

#include "backends/xnnpack/dq_linear_internal.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace etr {
namespace xnnpack {
namespace dq {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

inline int32_t hsum_avx2(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

// MR rows (1..4) x 2 outputs per step: int8 widened to int16, pairwise
// products summed into int32 lanes (vpmaddwd), exact for any int8 inputs.
template <size_t MR>
void dq_rows_avx2(const int8_t* q, const Qd8Params* params, size_t r0, const DqLinearWeights& w,
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
      const int32_t* ks = w.ksum + o;
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

void dq_block(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
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

// ---- qd8 x qc8w from pair-packed int16 weights (dq_pairs_pack)
//
// A tile of MR rows x 16 outputs. Per pair of inputs, a row's two int8
// values widened to int16 (one 32-bit word, broadcast to every lane) meet
// the 16 outputs' weight pairs (two vectors) in vpmaddwd: each lane sums its
// own output, so no horizontal reduction and no scalar epilogue per output
// (the per-output kernel above spends most of a small-k layer there). The
// int32 sums are the same integers as the other kernels'.
constexpr size_t kPairsRows = 4;
constexpr size_t kPairsBlock = 16;
constexpr size_t kPairsSuper = 4;  // output blocks per pass over a row block

template <size_t MR>
void pairs_tile(const int16_t* a, size_t lda, const int16_t* wb, size_t kp, __m256i (&acc)[MR][2]) {
  for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (size_t p = 0; p < kp; ++p) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb + p * 32));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb + p * 32 + 16));
    for (size_t r = 0; r < MR; ++r) {
      int32_t word;
      std::memcpy(&word, a + r * lda + 2 * p, sizeof(word));
      const __m256i x = _mm256_set1_epi32(word);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
    }
  }
}

// epilogue() on 8 lanes: the same operations in the same order (the int32
// difference is exact for k <= kDqPairsMaxInputs, its conversion to float
// that of the int64 one; vmaxps / vminps with these operand orders are
// XNNPACK's math_max / math_min).
inline __m256 pairs_epilogue(__m256i dot, __m256i zp, __m256i ksum, __m256 in_scale, __m256 w_scale,
                             __m256 bias, __m256 lo, __m256 hi) {
  const __m256 f = _mm256_cvtepi32_ps(_mm256_sub_epi32(dot, _mm256_mullo_epi32(zp, ksum)));
  const __m256 v = _mm256_fmadd_ps(_mm256_mul_ps(f, in_scale), w_scale, bias);
  return _mm256_min_ps(hi, _mm256_max_ps(v, lo));
}

// An output block's per-output values, zero past n (read once per block
// and group, not per row block).
struct PairsBlock {
  alignas(32) int32_t ksum[kPairsBlock];
  alignas(32) float scale[kPairsBlock];
  alignas(32) float bias[kPairsBlock];
  size_t valid;
};

void load_block(const DqLinearWeights& w, size_t ob, PairsBlock* b) {
  const size_t o = ob * kPairsBlock;
  b->valid = w.n - o < kPairsBlock ? w.n - o : kPairsBlock;
  for (size_t j = 0; j < kPairsBlock; ++j) {
    const bool in = j < b->valid;
    b->ksum[j] = in ? w.ksum[o + j] : 0;
    b->scale[j] = in ? w.scales[o + j] : 0.0f;
    b->bias[j] = in && w.bias != nullptr ? w.bias[o + j] : 0.0f;
  }
}

template <size_t MR>
void pairs_rows(const int16_t* a, size_t lda, const Qd8Params* params, size_t r0,
                const DqLinearWeights& w, size_t ob, const PairsBlock& blk, float* y) {
  const size_t kp = (w.k + 1) / 2;
  __m256i acc[MR][2];
  pairs_tile<MR>(a, lda, w.wpairs + ob * kp * 32, kp, acc);
  const size_t o = ob * kPairsBlock;
  const __m256 lo = _mm256_set1_ps(w.output_min), hi = _mm256_set1_ps(w.output_max);
  for (size_t r = 0; r < MR; ++r) {
    const Qd8Params p = params[r0 + r];
    const __m256i zp = _mm256_set1_epi32(p.zero_point);
    const __m256 in_scale = _mm256_set1_ps(p.scale);
    __m256 v[2];
    for (size_t h = 0; h < 2; ++h) {
      v[h] = pairs_epilogue(
          acc[r][h], zp, _mm256_load_si256(reinterpret_cast<const __m256i*>(blk.ksum + 8 * h)),
          in_scale, _mm256_load_ps(blk.scale + 8 * h), _mm256_load_ps(blk.bias + 8 * h), lo, hi);
    }
    float* yr = y + (r0 + r) * w.n + o;
    if (blk.valid == kPairsBlock) {
      _mm256_storeu_ps(yr, v[0]);
      _mm256_storeu_ps(yr + 8, v[1]);
    } else {
      alignas(32) float out[kPairsBlock];
      _mm256_store_ps(out, v[0]);
      _mm256_store_ps(out + 8, v[1]);
      std::memcpy(yr, out, blk.valid * sizeof(float));
    }
  }
}

// Rows [r0, r0 + mr) of q widened to int16 into `a` (rows of lda, an even
// k with a zero after an odd one).
void widen_rows(const int8_t* q, size_t k, size_t r0, size_t mr, int16_t* a, size_t lda) {
  for (size_t r = 0; r < mr; ++r) {
    const int8_t* src = q + (r0 + r) * k;
    int16_t* dst = a + r * lda;
    size_t i = 0;
    for (; i + 16 <= k; i += 16) {
      _mm256_storeu_si256(
          reinterpret_cast<__m256i*>(dst + i),
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    for (; i < k; ++i) dst[i] = src[i];
    if (k % 2 != 0) dst[k] = 0;
  }
}

// ---- qd8 x qb4w

// MR rows x 2 outputs: 16 inputs per step as in the int8 path; after each
// block the 8 int32 lanes fold into the kernel's 4 (inputs i mod 8 in
// {2j, 2j+1} -> lane j) and are scaled into 4 float lanes with fma.
template <size_t MR>
void qb4w_rows_avx2(const int8_t* q, const Qd8Params* params, size_t r0, const DqLinearWeights& w,
                    size_t ob, size_t oe, float* y) {
  const size_t k = w.k, bl = w.block, nb = k / bl;
  const int8_t* a[MR];
  for (size_t r = 0; r < MR; ++r) a[r] = q + (r0 + r) * k;
  for (size_t o = ob; o < oe; o += kPair) {
    const size_t nr = oe - o < kPair ? oe - o : kPair;
    const size_t o1 = nr > 1 ? o + 1 : o;
    const int8_t* b0 = w.w + o * k;
    const int8_t* b1 = w.w + o1 * k;
    const float* s0 = w.block_scales + o * nb;
    const float* s1 = w.block_scales + o1 * nb;
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

void qb4w_block(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
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

// ---- qd8 x qb4w from packed nibbles (qb4w_pack_row's layout)
//
// vpmaddubsw multiplies the unsigned nibbles (q + 8, 0..15) by the signed
// activations and adds adjacent pairs into int16: element e of a 32-input
// half holds inputs 2e and 2e + 1, which belong to the kernel's lane e mod 4.
// A pair is at most 2 * 15 * 128 = 3840 in magnitude, so int16 sums over 256
// inputs (8 products per element) stay exact; every 256 inputs they widen
// into two int32 vectors, the even int16 elements (lanes 0 and 2) and the odd
// ones (lanes 1 and 3). After each block the +8 of the nibbles comes out per
// lane with the activations' sums: d_j = sum x * (q + 8) - 8 * sum x. The
// integer d_j are the int8 kernel's exactly, so the float steps and the
// result are unchanged.

// Sums of each row's activations per block and lane (input i is in lane
// (i / 2) mod 4): xs[(r * nb + blk) * 4 + j].
template <size_t MR>
void qb4w_activation_sums(const int8_t* const* a, size_t k, size_t bl, int32_t* xs) {
  const size_t nb = k / bl;
  for (size_t r = 0; r < MR; ++r) {
    for (size_t blk = 0; blk < nb; ++blk) {
      int32_t lane[4] = {0, 0, 0, 0};
      for (size_t i = blk * bl; i < (blk + 1) * bl; ++i) lane[(i >> 1) & 3] += a[r][i];
      for (size_t j = 0; j < 4; ++j) xs[(r * nb + blk) * 4 + j] = lane[j];
    }
  }
}

template <size_t MR>
void qb4w_packed_rows(const int8_t* const* a, const Qd8Params* p, const int32_t* xs,
                      const DqLinearWeights& w, size_t ob, size_t oe, float* const* yrow) {
  const size_t k = w.k, bl = w.block, nb = k / bl, half = k / 2;
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i even16 = _mm256_set1_epi32(0x00000001);  // int16 pairs (1, 0)
  const __m256i odd16 = _mm256_set1_epi32(0x00010000);   // int16 pairs (0, 1)
  for (size_t o = ob; o < oe; o += kPair) {
    const size_t nr = oe - o < kPair ? oe - o : kPair;
    const size_t o1 = nr > 1 ? o + 1 : o;
    const uint8_t* b[2] = {w.w4 + o * half, w.w4 + o1 * half};
    const float* s[2] = {w.block_scales + o * nb, w.block_scales + o1 * nb};
    __m128 lane[MR][2];
    for (size_t r = 0; r < MR; ++r) {
      const float zp = static_cast<float>(p[r].zero_point);
      lane[r][0] = _mm_set_ss(w.kfsum[o] * zp);
      lane[r][1] = _mm_set_ss(w.kfsum[o1] * zp);
    }
    for (size_t blk = 0; blk < nb; ++blk) {
      __m256i ev[MR][2], od[MR][2];
      for (size_t r = 0; r < MR; ++r)
        ev[r][0] = ev[r][1] = od[r][0] = od[r][1] = _mm256_setzero_si256();
      const size_t block_end = (blk + 1) * bl;
      for (size_t i0 = blk * bl; i0 < block_end; i0 += 256) {
        const size_t i1 = i0 + 256 < block_end ? i0 + 256 : block_end;
        __m256i acc[MR][2];
        for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
        for (size_t i = i0; i < i1; i += 64) {
          __m256i lo[2], hi[2];
          for (size_t c = 0; c < 2; ++c) {
            // The next output pair's bytes at this offset, fetched ahead:
            // the weights stream from memory once and dominate the time.
            _mm_prefetch(reinterpret_cast<const char*>(b[c] + i / 2 + 8 * half), _MM_HINT_T0);
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[c] + i / 2));
            lo[c] = _mm256_and_si256(v, low4);
            hi[c] = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
          }
          for (size_t r = 0; r < MR; ++r) {
            const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[r] + i));
            const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[r] + i + 32));
            for (size_t c = 0; c < 2; ++c) {
              const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo[c], x0),
                                                     _mm256_maddubs_epi16(hi[c], x1));
              acc[r][c] = _mm256_add_epi16(acc[r][c], pairs);
            }
          }
        }
        for (size_t r = 0; r < MR; ++r) {
          for (size_t c = 0; c < 2; ++c) {
            ev[r][c] = _mm256_add_epi32(ev[r][c], _mm256_madd_epi16(acc[r][c], even16));
            od[r][c] = _mm256_add_epi32(od[r][c], _mm256_madd_epi16(acc[r][c], odd16));
          }
        }
      }
      for (size_t r = 0; r < MR; ++r) {
        const __m128i x8 = _mm_slli_epi32(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(xs + (r * nb + blk) * 4)), 3);
        for (size_t c = 0; c < 2; ++c) {
          // e4 lanes (0, 2, 0, 2), o4 lanes (1, 3, 1, 3): interleaved and added -> (0, 1, 2, 3).
          const __m128i e4 = _mm_add_epi32(_mm256_castsi256_si128(ev[r][c]),
                                           _mm256_extracti128_si256(ev[r][c], 1));
          const __m128i o4 = _mm_add_epi32(_mm256_castsi256_si128(od[r][c]),
                                           _mm256_extracti128_si256(od[r][c], 1));
          const __m128i d = _mm_sub_epi32(
              _mm_add_epi32(_mm_unpacklo_epi32(e4, o4), _mm_unpackhi_epi32(e4, o4)), x8);
          lane[r][c] = _mm_fmadd_ps(_mm_cvtepi32_ps(d), _mm_set1_ps(s[c][blk]), lane[r][c]);
        }
      }
    }
    for (size_t r = 0; r < MR; ++r) {
      const float scale = p[r].scale;
      float* yr = yrow[r] + o;
      for (size_t c = 0; c < nr; ++c) {
        const __m128 h = _mm_hadd_ps(lane[r][c], lane[r][c]);  // l0+l1, l2+l3
        const float total = _mm_cvtss_f32(_mm_hadd_ps(h, h));  // (l0+l1)+(l2+l3)
        const float v = std::fma(total, scale, w.bias != nullptr ? w.bias[o + c] : 0.0f);
        yr[c] = xmin(xmax(v, w.output_min), w.output_max);
      }
    }
  }
}

// MR rows at a time: their activation sums once, then every output block.
template <size_t MR>
void qb4w_packed_group(const int8_t* q, const Qd8Params* params, size_t r0,
                       const DqLinearWeights& w, size_t o0, size_t o1, float* y) {
  int32_t xs[MR * kQb4wMaxPackedBlocks * 4];
  const int8_t* a[MR];
  float* yrow[MR];
  for (size_t r = 0; r < MR; ++r) {
    a[r] = q + (r0 + r) * w.k;
    yrow[r] = y + (r0 + r) * w.n;
  }
  qb4w_activation_sums<MR>(a, w.k, w.block, xs);
  for (size_t ob = o0; ob < o1; ob += kBlockPairs * kPair) {
    const size_t oe = ob + kBlockPairs * kPair < o1 ? ob + kBlockPairs * kPair : o1;
    qb4w_packed_rows<MR>(a, params + r0, xs, w, ob, oe, yrow);
  }
}

void qb4w_packed_block(const int8_t* q, const Qd8Params* params, size_t rows,
                       const DqLinearWeights& w, size_t o0, size_t o1, float* y) {
  size_t r0 = 0;
  for (; r0 + 4 <= rows; r0 += 4) qb4w_packed_group<4>(q, params, r0, w, o0, o1, y);
  switch (rows - r0) {
    case 3: qb4w_packed_group<3>(q, params, r0, w, o0, o1, y); break;
    case 2: qb4w_packed_group<2>(q, params, r0, w, o0, o1, y); break;
    case 1: qb4w_packed_group<1>(q, params, r0, w, o0, o1, y); break;
    default: break;
  }
}
}  // namespace

bool dq_block_avx2(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
                   size_t o0, size_t o1, float* y) {
  dq_block(q, params, rows, w, o0, o1, y);
  return true;
}

bool dq_pairs_blocks_avx2(const int8_t* q, const Qd8Params* params, size_t rows,
                          const DqLinearWeights& w, size_t b0, size_t b1, float* y) {
  if (w.wpairs == nullptr || w.k == 0 || w.k > kDqPairsMaxInputs) return false;
  const size_t lda = (w.k + 1) / 2 * 2;
  alignas(32) int16_t a[kPairsRows * kDqPairsMaxInputs];
  // Output blocks in groups of kPairsSuper (their weights stay in L2 while
  // every row block passes); each row block widened once per group.
  PairsBlock blk[kPairsSuper];
  for (size_t sb = b0; sb < b1; sb += kPairsSuper) {
    const size_t se = sb + kPairsSuper < b1 ? sb + kPairsSuper : b1;
    for (size_t ob = sb; ob < se; ++ob) load_block(w, ob, &blk[ob - sb]);
    for (size_t r0 = 0; r0 < rows; r0 += kPairsRows) {
      const size_t mr = rows - r0 < kPairsRows ? rows - r0 : kPairsRows;
      widen_rows(q, w.k, r0, mr, a, lda);
      for (size_t ob = sb; ob < se; ++ob) {
        const PairsBlock& b = blk[ob - sb];
        switch (mr) {
          case 4: pairs_rows<4>(a, lda, params, r0, w, ob, b, y); break;
          case 3: pairs_rows<3>(a, lda, params, r0, w, ob, b, y); break;
          case 2: pairs_rows<2>(a, lda, params, r0, w, ob, b, y); break;
          default: pairs_rows<1>(a, lda, params, r0, w, ob, b, y); break;
        }
      }
    }
  }
  return true;
}

bool qb4w_block_avx2(const int8_t* q, const Qd8Params* params, size_t rows,
                     const DqLinearWeights& w, size_t o0, size_t o1, float* y) {
  qb4w_block(q, params, rows, w, o0, o1, y);
  return true;
}
bool qb4w_packed_block_avx2(const int8_t* q, const Qd8Params* params, size_t rows,
                            const DqLinearWeights& w, size_t o0, size_t o1, float* y) {
  qb4w_packed_block(q, params, rows, w, o0, o1, y);
  return true;
}

bool qb4w_packed_built() { return true; }
bool pairs_built() { return true; }

// The qd8 conversion loops (dq_linear.cpp): vminps/vmaxps return their
// second operand when the first is NaN, which is the plain loop's
// `x < lo ? x : lo` exactly; the quantization clamps with the same
// comparisons after zeroing NaN, and vroundps rounds half to even as the
// plain loop's round_even_small does.
bool qd8_min_max_avx2(const float* x, size_t n, float* lo, float* hi) {
  __m256 vlo = _mm256_set1_ps(*lo), vhi = _mm256_set1_ps(*hi);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    vlo = _mm256_min_ps(v, vlo);
    vhi = _mm256_max_ps(v, vhi);
  }
  alignas(32) float l[8], h[8];
  _mm256_store_ps(l, vlo);
  _mm256_store_ps(h, vhi);
  float a = *lo, b = *hi;
  for (size_t j = 0; j < 8; ++j) {
    a = l[j] < a ? l[j] : a;
    b = h[j] > b ? h[j] : b;
  }
  for (; i < n; ++i) {
    a = x[i] < a ? x[i] : a;
    b = x[i] > b ? x[i] : b;
  }
  *lo = a;
  *hi = b;
  return true;
}

bool qd8_quantize_avx2(const float* x, size_t n, float m, float qlo, float qhi, int32_t zp,
                       int8_t* q) {
  const __m256 vm = _mm256_set1_ps(m), vlo = _mm256_set1_ps(qlo), vhi = _mm256_set1_ps(qhi);
  const __m256i vzp = _mm256_set1_epi32(zp);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  auto one = [&](const float* p) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(p), vm);
    v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));  // NaN: 0, the zero point
    v = _mm256_min_ps(_mm256_max_ps(v, vlo), vhi);
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_add_epi32(_mm256_cvtps_epi32(v), vzp);
  };
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i ab = _mm256_packs_epi32(one(x + i), one(x + i + 8));
    const __m256i cd = _mm256_packs_epi32(one(x + i + 16), one(x + i + 24));
    const __m256i b = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), order);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), b);
  }
  for (; i < n; ++i) {
    float v = x[i] * m;
    if (v != v) v = 0.0f;
    v = v < qlo ? qlo : v;
    v = v > qhi ? qhi : v;
    q[i] = static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(v)) + zp);
  }
  return true;
}
#else
bool qd8_min_max_avx2(const float*, size_t, float*, float*) { return false; }
bool qd8_quantize_avx2(const float*, size_t, float, float, float, int32_t, int8_t*) {
  return false;
}
bool qb4w_packed_block_avx2(const int8_t*, const Qd8Params*, size_t, const DqLinearWeights&, size_t,
                            size_t, float*) {
  return false;
}
bool qb4w_packed_built() { return false; }
bool dq_block_avx2(const int8_t*, const Qd8Params*, size_t, const DqLinearWeights&, size_t, size_t,
                   float*) {
  return false;
}
bool qb4w_block_avx2(const int8_t*, const Qd8Params*, size_t, const DqLinearWeights&, size_t,
                     size_t, float*) {
  return false;
}
bool dq_pairs_blocks_avx2(const int8_t*, const Qd8Params*, size_t, const DqLinearWeights&, size_t,
                          size_t, float*) {
  return false;
}
bool pairs_built() { return false; }
#endif

}  // namespace dq
}  // namespace xnnpack
}  // namespace etr
