#include "backends/xnnpack/dq_linear.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/xnnpack/dq_linear_internal.h"
#include "kernels/cpu_math/cpu_features.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace xnnpack {
namespace {

using dq::epilogue;
using dq::kPair;
using dq::xmax;
using dq::xmin;

// round-half-to-even of v for |v| <= 2^22 (the default rounding mode rounds
// the sum to an integer; subtracting is exact): std::nearbyint's result
// without its library call, which keeps the loops below vectorizable.
inline float round_even_small(float v) {
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  return (v + kMagic) - kMagic;
}

// Multiply-adds below which dq_linear runs on the calling thread (about
// half a million: a 768 x 768 decode projection is split, a 256 x 256 one
// is not).
constexpr size_t kSerialMacs = size_t{1} << 19;

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

// ---- qd8 x qb4w (block-wise 4-bit weights, unpacked to int8 at init)

// One output of one row, in the official kernel's order (dq_linear.h).
float qb4w_output(const int8_t* a, const Qd8Params& p, const DqLinearWeights& w, size_t o) {
  const size_t k = w.k, bl = w.block, nb = k / bl;
  const int8_t* b = w.w + o * k;
  const float* sc = w.block_scales + o * nb;
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

float qb4w_row_kfsum(const int8_t* b, size_t k, size_t bl, const float* row_scales) {
  float acc = 0.0f;
  for (size_t c = 0; c < k; c += 16) {  // the packer's chunks: 2 x kr (8) inputs
    int32_t s = 0;
    for (size_t i = c; i < c + 16 && i < k; ++i) s += b[i];
    const float term = static_cast<float>(s) * row_scales[c / bl];
    acc = acc - term;
  }
  return acc;
}

void qb4w_prepare_sums(const DqLinearWeights& w, float* kfsum) {
  const size_t k = w.k, bl = w.block, nb = k / bl;
  for (size_t o = 0; o < w.n; ++o)
    kfsum[o] = qb4w_row_kfsum(w.w + o * k, k, bl, w.block_scales + o * nb);
}

bool qb4w_packed_supported(size_t k, size_t block) {
  return opt::cpu_features().avx2_fma && dq::qb4w_packed_built() && block != 0 && block % 64 == 0 &&
         k % block == 0 && k / block <= kQb4wMaxPackedBlocks;
}

void qb4w_pack_row(const uint8_t* src, size_t o, size_t k, uint8_t* dst) {
  auto nibble = [&](size_t i) {  // element i of row o in the exporter's layout
    const size_t e = o * k + i;
    const uint8_t byte = src[e >> 1];
    return static_cast<uint8_t>((e & 1) != 0 ? byte >> 4 : byte & 0x0F);
  };
  for (size_t c = 0; c < k; c += 64) {
    for (size_t b = 0; b < 32; ++b)
      dst[c / 2 + b] = static_cast<uint8_t>(nibble(c + b) | nibble(c + 32 + b) << 4);
  }
}

bool qb4w_vnni_supported(size_t k, size_t block) {
  return opt::cpu_features().avx512_vnni && dq::qb4w_vnni_built() && block != 0 &&
         block % 128 == 0 && k % block == 0 && k <= kQb4wVnniMaxInputs;
}

void qb4w_vnni_pack(const uint8_t* src, const float* scales, size_t n, size_t k, size_t block,
                    uint8_t* dst) {
  constexpr size_t G = kQb4wVnniGroup;
  uint8_t padding[64];  // a padding output's source bytes: every weight q = 0 (stored 8)
  std::memset(padding, 0x88, sizeof padding);
  const size_t groups = qb4w_vnni_groups(n), nb = k / block;
  const size_t scale_bytes = qb4w_vnni_scale_bytes(k, block);
  const size_t group_bytes = qb4w_vnni_group_bytes(k, block);
  for (size_t g = 0; g < groups; ++g) {
    uint8_t* group = dst + g * group_bytes;
    std::memset(group, 0, scale_bytes);
    for (size_t b = 0; b < nb; ++b) {
      for (size_t o = 0; o < G && g * G + o < n; ++o) {
        const float f = scales[(g * G + o) * nb + b];
        uint32_t u;
        std::memcpy(&u, &f, sizeof u);
        const uint16_t h = static_cast<uint16_t>(u >> 16);  // exact: a bf16 value
        std::memcpy(group + (b * G + o) * 2, &h, sizeof h);
      }
    }
    for (size_t o = 0; o < G; ++o) {
      const size_t out = g * G + o;
      for (size_t c = 0; c < k; c += 128) {
        // The output's 128 weights from c: 64 source bytes, byte t holding
        // inputs 2t (low nibble) and 2t + 1 (high); padding outputs q = 0.
        // (k is a multiple of 128, so every row starts on a byte.)
        const uint8_t* b = out < n ? src + (out * k + c) / 2 : padding;
        uint8_t* d = group + scale_bytes + c * 2 + o * 16;  // 4 vectors of 64 bytes per 128 inputs
        // Reordered position 16s + 4j + e is input 16s + 2j + (e & 1) +
        // 8 (e >> 1): source byte 8s + j (e < 2) or 8s + j + 4, and its
        // partner 64 inputs on (32 bytes on) goes into the high nibble.
        for (size_t s = 0; s < 4; ++s) {
          for (size_t j = 0; j < 4; ++j) {
            const size_t t = 8 * s + j;
            uint8_t* e = d + s * 64 + 4 * j;
            e[0] = static_cast<uint8_t>((b[t] & 0x0F) | (b[t + 32] << 4));
            e[1] = static_cast<uint8_t>((b[t] >> 4) | (b[t + 32] & 0xF0));
            e[2] = static_cast<uint8_t>((b[t + 4] & 0x0F) | (b[t + 36] << 4));
            e[3] = static_cast<uint8_t>((b[t + 4] >> 4) | (b[t + 36] & 0xF0));
          }
        }
      }
    }
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

namespace {

// min and max of x[0..n) folded into *lo and *hi (NaN compares false: skipped).
void qd8_min_max(const float* x, size_t n, float* lo, float* hi) {
  if (opt::cpu_features().avx2_fma && dq::qd8_min_max_avx2(x, n, lo, hi)) return;
  float a = *lo, b = *hi;
  for (size_t i = 0; i < n; ++i) {
    a = x[i] < a ? x[i] : a;
    b = x[i] > b ? x[i] : b;
  }
  *lo = a;
  *hi = b;
}

// q[i] = round_even(clamp(x[i] * m, -128 - zp, 127 - zp)) + zp, NaN as 0.
void qd8_quantize_run(const float* x, size_t n, float m, int32_t zp, int8_t* q) {
  const float qlo = static_cast<float>(-128 - zp);
  const float qhi = static_cast<float>(127 - zp);
  if (opt::cpu_features().avx2_fma && dq::qd8_quantize_avx2(x, n, m, qlo, qhi, zp, q)) return;
  for (size_t i = 0; i < n; ++i) {
    float v = x[i] * m;
    if (v != v) v = 0.0f;  // NaN: the zero point
    v = v < qlo ? qlo : v;
    v = v > qhi ? qhi : v;
    q[i] = static_cast<int8_t>(static_cast<int32_t>(round_even_small(v)) + zp);
  }
}

}  // namespace

void qd8_quantize(const float* x, size_t rows, size_t k, int8_t* q, Qd8Params* params,
                  ThreadPool* pool) {
  const size_t grain = k == 0 ? rows : (16384 + k - 1) / k;
  parallel_for(pool, rows, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      float lo = 0.0f, hi = 0.0f;
      qd8_min_max(x + r * k, k, &lo, &hi);
      float m = 1.0f;
      const Qd8Params p = qd8_params(lo, hi, &m);
      params[r] = p;
      qd8_quantize_run(x + r * k, k, m, p.zero_point, q + r * k);
    }
  });
}

void qd8_quantize_batches(const float* x, size_t batches, size_t batch_elems, size_t k, int8_t* q,
                          Qd8Params* params, ThreadPool* pool) {
  if (k == 0 || batch_elems == 0) return;
  const size_t rows = batch_elems / k;
  constexpr size_t kChunk = 65536;  // elements per task
  constexpr size_t kMaxParts = 64;
  const size_t parts = (batch_elems + kChunk - 1) / kChunk < kMaxParts
                           ? (batch_elems + kChunk - 1) / kChunk
                           : kMaxParts;
  const size_t per_part = (batch_elems + parts - 1) / parts;
  for (size_t b = 0; b < batches; ++b) {
    const float* xb = x + b * batch_elems;
    // The image's min and max, in parts on the pool (min and max do not
    // depend on the order).
    float los[kMaxParts], his[kMaxParts];
    parallel_for(pool, parts, 1, [&](size_t begin, size_t end) {
      for (size_t t = begin; t < end; ++t) {
        const size_t i0 = t * per_part;
        const size_t i1 = i0 + per_part < batch_elems ? i0 + per_part : batch_elems;
        los[t] = 0.0f;
        his[t] = 0.0f;
        if (i0 < i1) qd8_min_max(xb + i0, i1 - i0, &los[t], &his[t]);
      }
    });
    float lo = 0.0f, hi = 0.0f;
    for (size_t t = 0; t < parts; ++t) {
      lo = los[t] < lo ? los[t] : lo;
      hi = his[t] > hi ? his[t] : hi;
    }
    float m = 1.0f;
    const Qd8Params p = qd8_params(lo, hi, &m);
    int8_t* qb = q + b * batch_elems;
    parallel_for(pool, parts, 1, [&](size_t begin, size_t end) {
      for (size_t t = begin; t < end; ++t) {
        const size_t i0 = t * per_part;
        const size_t i1 = i0 + per_part < batch_elems ? i0 + per_part : batch_elems;
        if (i0 < i1) qd8_quantize_run(xb + i0, i1 - i0, m, p.zero_point, qb + i0);
      }
    });
    for (size_t r = 0; r < rows; ++r) params[b * rows + r] = p;
  }
}

size_t qd8_buffer_bytes(size_t numel, size_t k) {
  const size_t rows = k == 0 ? 0 : numel / k;
  return qd8_params_offset(numel) + rows * sizeof(Qd8Params);
}

bool dq_vnni_usable(size_t k) {
  return opt::cpu_features().avx512_vnni && dq::vnni_built() && k > 0 && k <= kDqVnniMaxInputs;
}

// Weights from which the pair packing splits over the pool (it writes 4
// bytes per weight: a 1 MB layer is about 0.5 ms on one thread).
constexpr size_t kParallelPairsBytes = size_t{1} << 20;

bool dq_pairs_usable(size_t k) {
  return opt::cpu_features().avx2_fma && dq::pairs_built() && !dq_vnni_usable(k) && k > 0 &&
         k <= kDqPairsMaxInputs;
}

size_t dq_pairs_packed_bytes(size_t n, size_t k) {
  return ((n + 15) / 16 * 16) * ((k + 1) / 2 * 2) * sizeof(int16_t);
}

namespace {

void pairs_pack_blocks(const int8_t* w, size_t n, size_t k, int16_t* dst, size_t b0, size_t b1) {
  const size_t pairs = (k + 1) / 2, whole = k / 2;
  for (size_t ob = b0; ob < b1; ++ob) {
    const size_t rows = n - ob * 16 < 16 ? n - ob * 16 : 16;
    const int8_t* src = w + ob * 16 * k;
    int16_t* out = dst + ob * pairs * 32;
    // Written front to back: pair p of the block's 16 outputs (zeros past
    // n), the odd k's last input paired with a zero.
    for (size_t p = 0; p < pairs; ++p, out += 32) {
      for (size_t j = 0; j < 16; ++j) {
        const bool row = j < rows;
        out[2 * j] = row ? src[j * k + 2 * p] : 0;
        out[2 * j + 1] = row && p < whole ? src[j * k + 2 * p + 1] : 0;
      }
    }
  }
}

}  // namespace

void dq_pairs_pack(const int8_t* w, size_t n, size_t k, int16_t* dst, ThreadPool* pool) {
  const size_t blocks = (n + 15) / 16;
  if (blocks == 0 || k == 0) return;
  ThreadPool* p = n * k < kParallelPairsBytes ? nullptr : pool;
  parallel_for(p, blocks, 1,
               [&](size_t b0, size_t b1) { pairs_pack_blocks(w, n, k, dst, b0, b1); });
}

size_t dq_vnni_packed_bytes(size_t n, size_t k) { return ((n + 15) / 16 * 16) * ((k + 3) / 4 * 4); }

namespace {

// Packs output blocks [b0, b1) of dq_vnni_pack's layout: each row of 16
// outputs is read once, front to back, its whole groups of 4 inputs copied
// as 4-byte words into their slots (64 bytes apart), the last partial group
// and the rows past n filled with zeros.
void vnni_pack_blocks(const int8_t* w, size_t n, size_t k, int8_t* dst, size_t b0, size_t b1) {
  const size_t k4 = (k + 3) / 4, whole = k / 4, tail = k - whole * 4;
  for (size_t ob = b0; ob < b1; ++ob) {
    int8_t* block = dst + ob * k4 * 64;
    for (size_t j = 0; j < 16; ++j) {
      const size_t o = ob * 16 + j;
      int8_t* slot = block + j * 4;
      if (o >= n) {
        for (size_t g = 0; g < k4; ++g) std::memset(slot + g * 64, 0, 4);
        continue;
      }
      const int8_t* row = w + o * k;
      for (size_t g = 0; g < whole; ++g) std::memcpy(slot + g * 64, row + g * 4, 4);
      if (tail != 0) {
        int8_t last[4] = {0, 0, 0, 0};
        std::memcpy(last, row + whole * 4, tail);
        std::memcpy(slot + whole * 64, last, 4);
      }
    }
  }
}

// Bytes of weights below which packing and row sums stay on the calling
// thread: both move several bytes per cycle, and below 4 MiB waking the
// pool (whose workers then spin before they sleep) costs more CPU time than
// the split saves in wall time (MobileNet's 1.3 MB classifier: 0.25 ms more
// CPU time split on 2 threads, no less wall time).
constexpr size_t kParallelPackBytes = size_t{1} << 22;

}  // namespace

void dq_vnni_pack(const int8_t* w, size_t n, size_t k, int8_t* dst, ThreadPool* pool) {
  const size_t blocks = (n + 15) / 16;
  if (blocks == 0 || k == 0) return;
  ThreadPool* p = n * k < kParallelPackBytes ? nullptr : pool;
  parallel_for(p, blocks, 1, [&](size_t b0, size_t b1) { vnni_pack_blocks(w, n, k, dst, b0, b1); });
}

void dq_row_sums(const int8_t* w, size_t n, size_t k, int32_t* sums, ThreadPool* pool) {
  ThreadPool* p = n * k < kParallelPackBytes ? nullptr : pool;
  parallel_for(p, n, 16, [&](size_t o0, size_t o1) {
    for (size_t o = o0; o < o1; ++o) {
      const int8_t* row = w + o * k;
      int32_t s = 0;
      for (size_t i = 0; i < k; ++i) s += row[i];
      sums[o] = s;
    }
  });
}

namespace {

// The VNNI path: tasks of up to kVnniRows rows x two blocks of 16 outputs
// (one where n leaves one), the blocks of one row range consecutive (its
// activations stay in cache).
constexpr size_t kVnniRows = 32;

// Static int8 layers take up to kQs8Blocks blocks x kQs8Rows rows per task
// (the kernel's 6-row x 4-block tiles; 48 rows are whole 6- and 8-row tiles).
constexpr size_t kQs8Blocks = 4;
constexpr size_t kQs8Rows = 48;

template <typename Out>
void dq_linear_vnni(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
                    Out* y, ThreadPool* pool) {
  const size_t blocks = (w.n + 15) / 16;
  // Static layers: 3 blocks a task where that leaves no remainder and 4
  // would (9 blocks as 3 x 3 rather than 4 + 4 + 1: one block alone
  // broadcasts a row's activations for every vpdpbusd).
  const size_t kTaskBlocks = std::is_same<Out, float>::value               ? 2
                             : blocks % kQs8Blocks != 0 && blocks % 3 == 0 ? 3
                                                                           : kQs8Blocks;
  constexpr size_t kTaskRows = std::is_same<Out, float>::value ? kVnniRows : kQs8Rows;
  const size_t pairs = (blocks + kTaskBlocks - 1) / kTaskBlocks;
  const size_t chunks = (rows + kTaskRows - 1) / kTaskRows;
  const size_t per_task = kTaskRows * 16 * kTaskBlocks * w.k;
  const size_t grain = per_task >= (size_t{1} << 18) ? 1 : (size_t{1} << 18) / per_task;
  parallel_for(pool, chunks * pairs, grain, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      const size_t c = t / pairs, ob = (t % pairs) * kTaskBlocks;
      const size_t r0 = c * kTaskRows;
      const size_t r1 = r0 + kTaskRows < rows ? r0 + kTaskRows : rows;
      const size_t nb = blocks - ob >= kTaskBlocks ? kTaskBlocks : blocks - ob;
      if constexpr (std::is_same<Out, float>::value) {
        dq::vnni_rows(q, params, r0, r1, w, ob, nb, y);
      } else {
        dq::vnni_rows_qs8(q, r0, r1, w, ob, nb, y);
      }
    }
  });
}

}  // namespace

void qs8_linear(const int8_t* x, size_t rows, const DqLinearWeights& w, int8_t* y,
                ThreadPool* pool) {
  if (rows == 0 || w.n == 0 || w.wvnni == nullptr) return;
  const size_t per_row = w.n * w.k;
  if (per_row == 0 || rows <= (kSerialMacs - 1) / per_row) pool = nullptr;
  dq_linear_vnni(x, nullptr, rows, w, y, pool);
}

void dq_linear(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
               float* y, ThreadPool* pool) {
  if (rows == 0 || w.n == 0) return;
  // A layer below kSerialMacs multiply-adds (a few microseconds) runs on the
  // calling thread: waking a worker costs more than the split saves. Larger
  // decode projections are split: the weight stream of two cores is faster
  // than one's (stories110M 8da4w decode at 2 threads on an idle 2-core host:
  // 240-266 tok/s with a 4 M threshold, 347-387 with this one; on a host
  // with more busy threads than cores the split was slower, as a worker
  // descheduled mid-chunk holds the layer up).
  // (rows * n * k < kSerialMacs, written so that it cannot overflow.)
  const size_t per_row = w.n * w.k;
  if (per_row == 0 || rows <= (kSerialMacs - 1) / per_row) pool = nullptr;
  if (w.wvnni != nullptr) {  // set only where dq_vnni_usable
    dq_linear_vnni(q, params, rows, w, y, pool);
    return;
  }
  if (w.w4 != nullptr && w.w4_vnni) {  // set only where qb4w_vnni_supported
    const size_t groups = qb4w_vnni_groups(w.n);
    const size_t per_group = rows * w.k * kQb4wVnniGroup;
    const size_t grain = per_group >= 65536 ? 1 : 65536 / per_group;
    parallel_for(pool, groups, grain, [&](size_t begin, size_t end) {
      dq::qb4w_vnni_block(q, params, rows, w, begin, end, y);
    });
    return;
  }
  if (w.wpairs != nullptr) {  // set only where dq_pairs_usable
    const size_t blocks = (w.n + 15) / 16;
    const size_t per_block = rows * w.k * 16;
    const size_t grain = per_block >= 65536 ? 1 : 65536 / per_block;
    parallel_for(pool, blocks, grain, [&](size_t begin, size_t end) {
      dq::dq_pairs_blocks_avx2(q, params, rows, w, begin, end, y);
    });
    return;
  }
  const size_t pairs = (w.n + kPair - 1) / kPair;
  const size_t per_pair = rows * w.k * kPair;
  const size_t grain = per_pair >= 65536 ? 1 : 65536 / (per_pair == 0 ? 1 : per_pair);
  parallel_for(pool, pairs, grain, [&](size_t begin, size_t end) {
    const size_t o0 = begin * kPair;
    const size_t o1 = end * kPair < w.n ? end * kPair : w.n;
    if (w.w4 != nullptr) {  // set only where qb4w_packed_supported
      dq::qb4w_packed_block_avx2(q, params, rows, w, o0, o1, y);
      return;
    }
    if (opt::cpu_features().avx2_fma &&
        (w.block != 0 ? dq::qb4w_block_avx2(q, params, rows, w, o0, o1, y)
                      : dq::dq_block_avx2(q, params, rows, w, o0, o1, y)))
      return;
    if (w.block != 0) {
      qb4w_block_generic(q, params, rows, w, o0, o1, y);
    } else {
      dq_block_generic(q, params, rows, w, o0, o1, y);
    }
  });
}

}  // namespace xnnpack
}  // namespace etr
