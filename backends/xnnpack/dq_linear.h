// Dynamically quantized linear layers (the exporter's
// XnnpackDynamicallyQuantizedPartitioner): Convert fp32 -> qdint8 quantizes
// each row of the activations to int8 with its own scale and zero point,
// then FullyConnected qdint8 x qcint8 (per-channel int8 weights) -> fp32.
// Debian's XNNPACK (2022) has neither, so the delegate runs them itself with
// the official XNNPACK numerics:
//   row parameters (src/xnnpack/quantization.h, qd8 asymmetric):
//     rmin = min(0, min x), rmax = max(0, max x)
//     m = rmin == rmax ? 1 : 255 / (rmax - rmin)          (float)
//     zp = (-128 + rmin*m) + (127 + rmax*m) > 0 ? -128 - rmin*m : 127 - rmax*m,
//          clamped to [-128, 127], rounded to nearest even
//     scale = 1 / m
//   q = round_even(clamp(x * m, -128 - zp, 127 - zp)) + zp
//   y[r][o] = fma(float(sum_k (q[r][k] - zp[r]) * w[o][k]) * scale[r], w_scale[o], bias[o]),
//             then max(y, output_min), min(y, output_max)
// (integer accumulation in int32; the inner sum is exact; the clamps use
// XNNPACK's max/min, which turn a NaN result into output_min). A row holding
// +-inf gets m = 0 and scale = inf, so its outputs are +-inf or output_min,
// as in XNNPACK. NaN inputs are skipped by the row min/max and quantized to
// the zero point (XNNPACK's result for them depends on the CPU's kernel).
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {
class ThreadPool;
namespace xnnpack {

// One row's quantization: x ~= scale * (q - zero_point).
struct Qd8Params {
  float scale;
  int32_t zero_point;
};

// The row parameters for a row whose smallest and largest values are
// `min` and `max`; `*multiplier` receives m (x * m is the quantized value
// before the zero point is added).
Qd8Params qd8_params(float min, float max, float* multiplier);

// Quantizes `rows` rows of `k` floats (row stride k) into `q` and `params`.
void qd8_quantize(const float* x, size_t rows, size_t k, int8_t* q, Qd8Params* params,
                  ThreadPool* pool);

// Quantizes `batches` images of `batch_elems` floats each (a qdint8 value
// with num_nonbatch_dims > 1, which XNNPACK quantizes per batch: the
// parameters come from the whole image's min and max), element for element
// as qd8_quantize does a row. The buffer keeps one Qd8Params per row of `k`
// (k divides batch_elems), each row of an image holding the image's.
void qd8_quantize_batches(const float* x, size_t batches, size_t batch_elems, size_t k, int8_t* q,
                          Qd8Params* params, ThreadPool* pool);

// Bytes of a qdint8 value's buffer holding `numel` int8 values in rows of
// `k`: the values, then one Qd8Params per row (8-byte aligned).
size_t qd8_buffer_bytes(size_t numel, size_t k);
// Where the row parameters start inside such a buffer.
inline size_t qd8_params_offset(size_t numel) { return (numel + 7) & ~size_t{7}; }

// 4-bit weights (qcint4: per-channel, qbint4: block-wise) as the exporter
// writes them: [outputs, inputs] row-major, two values per byte, element 2j
// in the low nibble of byte j and 2j+1 in the high nibble, each stored as
// q + 8 (unsigned, zero point 8), so q = nibble - 8 in [-8, 7].
// qbint4 scales are bf16, one per block of `block` consecutive inputs of an
// output row ([outputs, inputs / block], row-major).
//
// The qd8 x qb4w numerics (XNNPACK's qd8-f32-qb4w GEMM as the official x86
// runtime runs it: the AVX2 c8 kernel, packing with kr = 8):
//   kfsum[o] = sum over 16-input chunks c (in order, float, no fma):
//              kfsum - float(sum_{i in c} q[o][i]) * s[o][block(c)]
//   lane j (0..3) of output o starts at j == 0 ? kfsum[o] * float(zp) : 0;
//   per block b: d_j = sum_{i in b, i mod 8 in {2j, 2j+1}} x[i] * q[o][i]
//                (int32, exact), lane_j = fma(float(d_j), s[o][b], lane_j)
//   y = fma((lane0 + lane1) + (lane2 + lane3), scale, bias), clamped.
// (The kernel multiplies nibbles by 16 and stores s / 16; both are exact.)
// qcint4 weights run through the int8 path below unchanged (unpacked), as
// XNNPACK's qd8-f32-qc4w integer accumulation is the same.

// Unpacks n*k 4-bit values (layout above) from `src` (`src_bytes` long)
// into int8 `dst` (n*k). False, and nothing written, when `src` is shorter
// than (n*k + 1) / 2 bytes or n*k overflows.
bool unpack_int4(const uint8_t* src, size_t src_bytes, size_t n, size_t k, int8_t* dst);

// bf16 bits -> float (exact).
inline float bf16_to_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}
// float -> bf16 as the official runtime converts fp32 block scales (a
// payload without a bf16 scale buffer): scaled by 1.00389105f, then the
// high half kept.
uint16_t float_to_bf16_as_official(float f);

// Why [n, k] qbint4 weights with blocks of `block` inputs, `data_bytes` of
// weight data and `num_scales` scales cannot run here; null when they can.
// XNNPACK's kernels need block to be a positive multiple of 32 dividing k.
const char* qb4w_layout_problem(size_t n, size_t k, size_t block, size_t data_bytes,
                                size_t num_scales);

// Per-channel int8 weights prepared once at init (qcint8, or qcint4 and
// qbint4 unpacked to int8). The arrays are the constant's data or copies
// the delegate made from its method allocator; this struct owns nothing.
struct DqLinearWeights {
  size_t k = 0;                   // input channels
  size_t n = 0;                   // output channels
  const int8_t* w = nullptr;      // [n, k] row-major
  const int32_t* ksum = nullptr;  // [n]: sum_k w[o][k]
  const float* scales = nullptr;  // per-channel (block == 0)
  // qbint4: inputs per block (0: per-channel weights), the block scales
  // [n, k / block] as floats, and XNNPACK's float row sums [n] (above).
  size_t block = 0;
  const float* block_scales = nullptr;
  const float* kfsum = nullptr;
  // qbint4 alternatively as nibbles in qb4w_pack's layout (w is then null):
  // the AVX2 kernel reads half the bytes. Set only where qb4w_packed_supported.
  const uint8_t* w4 = nullptr;
  // Per-channel int8 weights also packed for the AVX-512 VNNI kernel
  // (dq_vnni_pack); null where dq_vnni_usable is false.
  const int8_t* wvnni = nullptr;
  // Per-channel int8 weights also widened to int16 in pairs for the AVX2
  // kernel (dq_pairs_pack); null where dq_pairs_usable is false or the VNNI
  // kernel runs them.
  const int16_t* wpairs = nullptr;
  // w4 holds weights and block scales in qb4w_vnni_pack's layout instead
  // (the AVX-512 VNNI kernel; block_scales is then unused). Set only where
  // qb4w_vnni_supported.
  bool w4_vnni = false;
  const float* bias = nullptr;  // [n]; may be null
  // Static int8 layers (qs8_linear): int8 output through XNNPACK's fp32
  // requantization (qs8_linear below) instead of the float epilogue.
  const int32_t* qbias = nullptr;  // [n] int32 bias (qcint32); may be null
  const float* requant = nullptr;  // [n] input_scale * weight_scale / output_scale
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t output_qmin = -128;  // the node's output bounds, quantized as XNNPACK does
  int32_t output_qmax = 127;
  float output_min = -__builtin_inff();
  float output_max = __builtin_inff();
};

// Largest k the int32 accumulation cannot overflow for.
constexpr size_t kDqMaxInputChannels = 65536;

// Whether the AVX-512 VNNI kernel can run per-channel int8 weights of k
// inputs here (this CPU has AVX-512 F, BW and VNNI, this build compiled the
// kernel, and k keeps its int32 sums exact: at most kDqVnniMaxInputs).
constexpr size_t kDqVnniMaxInputs = 16384;
bool dq_vnni_usable(size_t k);

// Whether the AVX2 pair kernel can run per-channel int8 weights of k inputs
// here (AVX2 and FMA, no VNNI kernel, k at most kDqPairsMaxInputs: its rows
// are widened into a stack buffer and its int32 epilogue stays exact).
constexpr size_t kDqPairsMaxInputs = 4096;
bool dq_pairs_usable(size_t k);
// Bytes of dq_pairs_pack's layout: blocks of 16 outputs (n rounded up),
// each k rounded up to even inputs as [k / 2][16 outputs][2] int16, zeros
// past n and k.
size_t dq_pairs_packed_bytes(size_t n, size_t k);
void dq_pairs_pack(const int8_t* w, size_t n, size_t k, int16_t* dst, ThreadPool* pool = nullptr);
// Bytes of the packed weights: n and k rounded up to 16 and 4.
size_t dq_vnni_packed_bytes(size_t n, size_t k);
// Packs int8 weights w[n, k] (row-major) for the kernel (64-byte aligned
// dst): blocks of 16 outputs, in each block groups of 4 inputs, in each group
// the 16 outputs' 4 bytes (zeros past n and k). Large weights are split by
// output block on `pool`.
void dq_vnni_pack(const int8_t* w, size_t n, size_t k, int8_t* dst, ThreadPool* pool = nullptr);
// sums[o] = w[o][0] + ... + w[o][k - 1] for the n rows of int8 weights
// w[n, k] (row-major); large weights are split by rows on `pool`.
void dq_row_sums(const int8_t* w, size_t n, size_t k, int32_t* sums, ThreadPool* pool = nullptr);

// Static int8 linear layer (qint8 per-tensor input and output, qcint8
// weights, qcint32 bias), XNNPACK's qc8 fp32 requantization:
//   acc = bias[o] + sum_k (x[r][k] - input_zp) * w[o][k]        (int32, exact)
//   y[r][o] = clamp(round_even(min(float(acc) * requant[o], qmax - output_zp)) + output_zp,
//                   qmin, qmax)      (qmin, qmax: output_qmin, output_qmax)
// with requant[o] = input_scale * weight_scale[o] / output_scale in float
// (rounded after the product and after the quotient). Runs only with the
// VNNI-packed weights (w.wvnni: dq_vnni_usable).
void qs8_linear(const int8_t* x, size_t rows, const DqLinearWeights& w, int8_t* y,
                ThreadPool* pool);

// Fills kfsum[n] from w.w, w.block and w.block_scales (qbint4).
void qb4w_prepare_sums(const DqLinearWeights& w, float* kfsum);
// kfsum of one output row: its k int8 weights and its k / block scales.
float qb4w_row_kfsum(const int8_t* row, size_t k, size_t block, const float* row_scales);

// Whether qbint4 weights of k inputs in blocks of `block` can run from the
// packed nibbles (DqLinearWeights::w4) on this CPU and build: AVX2 + FMA,
// block a multiple of 64, at most kQb4wMaxPackedBlocks blocks per row.
constexpr size_t kQb4wMaxPackedBlocks = 256;
bool qb4w_packed_supported(size_t k, size_t block);
// Repacks the exporter's nibbles of output row `o` (layout above; k a
// multiple of 64) into k / 2 bytes at `dst`: per 64 inputs 32 bytes, byte b
// holding input b in its low nibble and input 32 + b in its high nibble,
// values kept as stored (q + 8).
void qb4w_pack_row(const uint8_t* src, size_t o, size_t k, uint8_t* dst);

// qbint4 weights for the AVX-512 VNNI kernel (vpdpbusd: four u8 x s8
// products summed into each int32 element). The four inputs of an element
// must belong to one of the kernel's lanes (input i is in lane (i / 2) mod 4),
// so the activations of each 16 inputs are reordered (their int16 pairs taken
// as 0, 4, 1, 5, 2, 6, 3, 7: bytes 4j .. 4j + 3 then hold inputs 2j, 2j + 1,
// 2j + 8, 2j + 9, all of lane j) and the weights are stored to match.
// Outputs go in groups of kQb4wVnniGroup (the last one padded with zero
// weights and scales); each group is qb4w_vnni_group_bytes long, 64-byte
// aligned, and holds, so that the kernel reads one stream front to back:
//   - its block scales as bf16 (exact: the graph's block scales are bf16
//     values), [blocks, kQb4wVnniGroup], zero-padded to a multiple of 64 bytes;
//   - its weights, per 128 inputs 4 vectors of 64 bytes: in vector s, byte
//     16 * o + 4 * j + e holds, for output o of the group, the weight of
//     reordered input 16 * s + 4 * j + e in its low nibble and that of
//     reordered input 64 + 16 * s + 4 * j + e in its high nibble (values as
//     stored, q + 8). One 64-byte load thus feeds four outputs x four lanes.
constexpr size_t kQb4wVnniGroup = 4;
// Largest k the kernel takes (its reordered activations live on the stack:
// 4 rows of k bytes and their block sums, about 72 KiB).
constexpr size_t kQb4wVnniMaxInputs = 16384;
// Whether [*, k] qbint4 weights in blocks of `block` inputs can run on the
// VNNI kernel on this CPU and build: AVX-512 F/BW/VL/VNNI, block a multiple
// of 128 dividing k, k <= kQb4wVnniMaxInputs.
bool qb4w_vnni_supported(size_t k, size_t block);
inline size_t qb4w_vnni_groups(size_t n) { return (n + kQb4wVnniGroup - 1) / kQb4wVnniGroup; }
// Bytes of the scales at the start of a group, and of the whole group.
inline size_t qb4w_vnni_scale_bytes(size_t k, size_t block) {
  return (k / block * kQb4wVnniGroup * 2 + 63) / 64 * 64;
}
inline size_t qb4w_vnni_group_bytes(size_t k, size_t block) {
  return qb4w_vnni_scale_bytes(k, block) + 2 * k;
}
// Repacks the exporter's nibbles of all n rows (k a multiple of 128, block
// as in qb4w_vnni_supported) and their block scales [n, k / block] (bf16
// values) into qb4w_vnni_groups(n) * qb4w_vnni_group_bytes(k, block) bytes
// at dst.
void qb4w_vnni_pack(const uint8_t* src, const float* scales, size_t n, size_t k, size_t block,
                    uint8_t* dst);

// y[rows, n] = dequantized (q[rows, k] x w^T) + bias, clamped; per-channel
// or block-wise by w.block.
void dq_linear(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
               float* y, ThreadPool* pool);

}  // namespace xnnpack
}  // namespace etr
