// Optimized aten::convolution.out (Float, NCHW, 1-D and 2-D, not
// transposed), also the run of the fused convolution -> batch norm (->
// activation) kernels. Paths, chosen in prepare and re-checked against the
// current sizes in run:
//   depthwise (groups == c_in == c_out): with AVX2 the direct kernels of
//   util/conv_depthwise.h for 3x3 / 5x5, padding k / 2, stride 1 or 2
//   (applying the fused clamp and SiLU; with channels in blocks of 8, at
//   stride 1 or over up to 32x32 outputs: the channel-blocked kernel), else
//   the banded kernel;
//   a 3x3 stride-2 first layer over up to 4 input channels: the direct kernel
//   of util/conv_direct.h (AVX2);
//   a grouped layer with a few channels per group (output channels per group
//   a multiple of 8): the direct kernel of util/conv_grouped.h (AVX2;
//   op_convolution_grouped.cpp);
//   a pointwise layer over a 1x1 image: a matrix-vector product (util/gemv.h;
//   groups 1 with constant weights: on weights packed at prepare in panels
//   of 16 rows, one stream per product);
//   a 3x3, stride 1, dilation 1, groups 1 layer with constant weights and
//   enough channels and pixels (winograd_tile): Winograd F(4x4, 3x3), or
//   F(2x2, 3x3) on small images (cpu_math/conv_winograd.h, AVX2), its
//   weights transformed at prepare;
//   a 1-D layer of 7 to 11 taps, stride 1, dilation 1, groups 1, with
//   constant weights and enough channels and outputs
//   (opt::winograd1d_pick_tile): 1-D Winograd F(m, 7), or F(m, 7) + F(m,
//   k - 7) on the taps past 7 (cpu_math/conv_winograd1d.h, AVX2), its
//   weights transformed at prepare;
//   otherwise per batch image and group a GEMM
//     out[co, pixels] = W[co, ci*kh*kw] @ X[ci*kh*kw, pixels] + bias[co],
//   with X the input itself for a pointwise (1x1, stride 1, no padding)
//   kernel and an im2col tile of output pixels otherwise (written in the
//   GEMM's packed B layout when its rows are not whole 16-column panels,
//   such as a 1-D layer's 100 output columns; on several threads and
//   with many pixels, such as a 7x7 stem, each thread's chunk of pixels its
//   own im2col tile and product: run_im2col_chunks). When the pixels do
//   not fill the GEMM's 16-wide column panels (a 7x7 output: 49 = 3 x 16 + 1)
//   and the channels do, the product runs transposed,
//     out^T[pixels, co] = X^T[pixels, ci*kh*kw] @ W^T[ci*kh*kw, co] + bias[co],
//   into temp memory and is transposed into out. So does a patch layer (no
//   padding or dilation, kernel rows of 8+ floats: a ViT's 16x16 stride-16
//   patch embedding), its X^T built row-major from kernel-row copies
//   (patch_rows) and read in place, in tiles of pixels when temp memory is
//   short. Constant weights are packed once at prepare, for the product that
//   will run.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include "kernels/cpu_math/conv_depthwise.h"
#include "kernels/cpu_math/conv_direct.h"
#include "kernels/cpu_math/conv_im2col.h"
#include "kernels/cpu_math/conv_winograd.h"
#include "kernels/cpu_math/conv_winograd1d.h"
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/gemv.h"
#include "kernels/cpu_math/scratch_slots.h"
#include "kernels/cpu_math/vec_math.h"
#include "kernels/cpu_math/vec_transpose.h"
#include "kernels/optimized/conv_internal.h"
#include "kernels/optimized/convolution.h"
#include "kernels/portable/util/checks.h"
#include "runtime/platform/log.h"

namespace etr {
namespace {

using internal::ConvPath;
using internal::ConvState;
using Geom = internal::ConvGeom;

constexpr int64_t kMaxParam = INT32_MAX;
// Upper bound of one im2col tile.
constexpr size_t kIm2colBytes = size_t{2} << 20;
// Kernel rows of at least this many floats take patch_rows (below, the
// per-row copies cost more than im2col's vectorized rows).
constexpr int64_t kMinPatchRow = 8;
// Smallest tile of a patch layer's product, in output pixels (one of the
// GEMM's 6-row panels).
constexpr int64_t kMinPatchTile = 6;
// Smallest im2col tile, in output pixels.
constexpr int64_t kMinTile = 16;
// Elements per chunk of the post-activation pass (MobileNetV3's hardswish
// after a depthwise layer: [480, 14, 14] splits over 2 threads).
constexpr size_t kPostGrain = 32768;

// Reads stride, padding and dilation (each 1 or `spatial` entries, in
// range); false otherwise. 1-D fills only the w entries.
bool read_params(IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, size_t spatial,
                 Geom* g) {
  const IntArrayRef lists[3] = {stride, padding, dilation};
  const int64_t mins[3] = {1, 0, 1};
  int64_t* dst[3][2] = {{&g->sh, &g->sw}, {&g->ph, &g->pw}, {&g->dh, &g->dw}};
  for (size_t p = 0; p < 3; ++p) {
    if (lists[p].size() != 1 && lists[p].size() != spatial) return false;
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t v = lists[p].size() == 1 ? lists[p][0] : lists[p][i];
      if (v < mins[p] || v > kMaxParam) return false;
      *dst[p][spatial == 1 ? 1 : i] = v;
    }
  }
  return true;
}

// Only an all-zero output_padding (ignored when not transposed) is taken.
bool zero_output_padding(IntArrayRef output_padding, size_t spatial) {
  if (output_padding.size() > 1 && output_padding.size() != spatial) return false;
  for (size_t i = 0; i < output_padding.size(); ++i) {
    if (output_padding[i] != 0) return false;
  }
  return true;
}

// Sizes of input and weight into g; false when they do not match.
bool read_sizes(const Tensor& input, const Tensor& weight, int64_t groups, Geom* g) {
  const size_t rank = input.dim();
  g->groups = groups;
  g->batch = input.size(0);
  g->c_in = input.size(1);
  g->h = rank == 4 ? input.size(2) : 1;
  g->w = input.size(rank - 1);
  g->c_out = weight.size(0);
  g->kh = rank == 4 ? weight.size(2) : 1;
  g->kw = weight.size(rank - 1);
  return weight.size(1) * groups == g->c_in && g->c_out % groups == 0 && g->kh >= 1 && g->kw >= 1;
}

bool out_extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t* out) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  *out = span < 0 ? -1 : span / s + 1;
  return *out >= 0 && *out <= INT32_MAX;
}

bool is_depthwise(const Geom& g) { return g.groups == g.c_in && g.c_out == g.groups; }

// What temp memory has left. An allocator without a buffer of its own
// (capacity 0: one that takes each allocation from the heap, such as the
// official MallocMemoryAllocator) cannot say, and is asked for all it needs.
size_t temp_left(const MemoryAllocator* temp) {
  if (temp == nullptr) return 0;
  if (temp->capacity() == 0) return SIZE_MAX;
  return temp->capacity() - temp->used();
}

bool is_pointwise(const Geom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
}

// The GEMM's column panel width (util/gemm_internal.h kGemmNr).
constexpr int64_t kPanel = 16;
int64_t round16(int64_t v) { return (v + kPanel - 1) / kPanel * kPanel; }

opt::Im2colGeom im2col_geom(const Geom& g) {
  opt::Im2colGeom ig;
  ig.channels = g.c_in / g.groups;
  ig.h = g.h;
  ig.w = g.w;
  ig.oh = g.oh;
  ig.ow = g.ow;
  ig.kh = g.kh;
  ig.kw = g.kw;
  ig.sh = g.sh;
  ig.sw = g.sw;
  ig.ph = g.ph;
  ig.pw = g.pw;
  ig.dh = g.dh;
  ig.dw = g.dw;
  return ig;
}

// True when the layer's X^T is built by patch_rows (cpu_math/conv_im2col.h):
// not pointwise, whole input rows per kernel row (no padding or dilation)
// of at least kMinPatchRow floats, no more output channels than X^T has
// columns, and X^T of at most kIm2colBytes. Its product then runs
// transposed, X^T read in place: im2col's [k, n] tile of a 16x16 stride-16
// patch embedding gathers every float 16 apart (ViT-small's 3 -> 192 layer,
// Zen 4, per-layer minima in the model: 0.73 -> 0.59 ms CPU on 1 thread,
// 0.38 -> 0.30 ms wall on 2).
bool takes_patches(const Geom& g) {
  if (is_pointwise(g) || g.kw < kMinPatchRow || g.groups < 1) return false;
  const int64_t k = g.c_in / g.groups * g.kh * g.kw, n = g.oh * g.ow;
  // At least as many columns as output channels: the transpose of the
  // product's [n, ocg] result into out then costs no more than the gather it
  // saves (not so for a 10-tap stride-5 audio layer into 512 channels).
  return n > 0 && k > 0 && k >= g.c_out / g.groups &&
         n <= static_cast<int64_t>(kIm2colBytes / sizeof(float)) / k &&
         opt::patch_rows_supported(im2col_geom(g));
}

// True when the product should run transposed: the channels per group fill
// whole panels, and either the output pixels leave more than 1/8 of the last
// column panel idle and are few enough to take in one tile, or the layer
// takes patches. (A pointwise 7x7 layer then computes 49 rows, 8 full 6-row
// panels and one row, instead of 56 columns for 49.)
bool use_transposed(const Geom& g) {
  const int64_t n = g.oh * g.ow, ocg = g.c_out / g.groups;
  const int64_t idle = (kPanel - n % kPanel) % kPanel;
  return n > 0 && ocg >= kPanel && ocg % kPanel == 0 &&
         ((n <= 8 * kPanel && idle * 8 > n) || takes_patches(g));
}

// True when a pointwise layer over a 1x1 output image (sizes set) runs as
// the panel matrix-vector product (cpu_math/gemv.h gemv_panels_avx2). On
// MobileNetV3's squeeze-excite layers (Zen 4, CPU time in the model) it
// streams the weights at 25-30 GB/s, where gemv_rows_avx2 reached 12-19 and
// the GEMM's 16-column panels (one column used) 10-32.
bool takes_gemv_panels(const Geom& g, bool avx2) {
  return avx2 && is_pointwise(g) && g.groups == 1 && g.oh == 1 && g.ow == 1 && g.c_out > 0 &&
         g.c_in > 0;
}

// Packs constant weights for it into method memory and st; false (nothing
// kept) when memory is short.
bool pack_gemv_panels(KernelPrepareContext& ctx, const Geom& g, const float* weight,
                      ConvState* st) {
  const size_t floats = opt::gemv_panels_floats(g.c_out, g.c_in);
  if (floats == 0) return false;
  auto* dst = static_cast<float*>(ctx.allocate(floats * sizeof(float), 64));
  if (dst == nullptr) return false;
  opt::gemv_pack_panels(weight, g.c_out, g.c_in, dst);
  st->gemv_panels = dst;
  st->gemv_m = g.c_out;
  st->gemv_k = g.c_in;
  return true;
}

// Packs each group's weight rows (transposed: as B, for use_transposed(g));
// false (nothing kept) when memory is short.
bool pack_weights(KernelPrepareContext& ctx, const Geom& g, const float* weight, bool transposed,
                  ConvState* st) {
  const int64_t ocg = g.c_out / g.groups, k = (g.c_in / g.groups) * g.kh * g.kw;
  if (ocg == 0 || k == 0) return false;
  const size_t bytes = transposed ? opt::packed_b_bytes(k, ocg) : opt::packed_a_bytes(ocg, k);
  const size_t one = (bytes + 63) & ~size_t{63};
  size_t all = 0;
  if (bytes == 0 || __builtin_mul_overflow(one, static_cast<size_t>(g.groups), &all)) return false;
  auto* mats = static_cast<opt::PackedMatrix*>(ctx.allocate(
      sizeof(opt::PackedMatrix) * static_cast<size_t>(g.groups), alignof(opt::PackedMatrix)));
  auto* data = static_cast<uint8_t*>(ctx.allocate(all, 64));
  if (mats == nullptr || data == nullptr) return false;
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    float* dst = reinterpret_cast<float*>(data + one * gi);
    const float* w = weight + gi * ocg * k;
    // W^T element (kk, co) is W[co, kk].
    mats[gi] = transposed ? opt::pack_b(opt::MatrixView{w, 1, k}, k, ocg, dst, ctx.thread_pool())
                          : opt::pack_a(opt::MatrixView{w, k, 1}, ocg, k, dst, ctx.thread_pool());
  }
  st->packed = mats;
  st->packed_c_out = g.c_out;
  st->packed_k = k;
  st->packed_groups = g.groups;
  st->packed_transposed = transposed;
  return true;
}

// out = bias (or 0) everywhere: a convolution over zero input channels.
void fill_bias(const Geom& g, const float* bias, float* out) {
  const int64_t plane = g.oh * g.ow;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t c = 0; c < g.c_out; ++c) {
      float* o = out + (b * g.c_out + c) * plane;
      std::fill(o, o + plane, bias == nullptr ? 0.0f : bias[c]);
    }
  }
}

opt::DepthwiseGeom depthwise_geom(const Geom& g) {
  opt::DepthwiseGeom dg;
  dg.batch = g.batch;
  dg.channels = g.c_in;
  dg.h = g.h;
  dg.w = g.w;
  dg.oh = g.oh;
  dg.ow = g.ow;
  dg.kh = g.kh;
  dg.kw = g.kw;
  dg.sh = g.sh;
  dg.sw = g.sw;
  dg.ph = g.ph;
  dg.pw = g.pw;
  dg.dh = g.dh;
  dg.dw = g.dw;
  return dg;
}

// st's clamp and SiLU as the kernels' epilogue.
opt::DepthwiseEpilogue epilogue_of(const ConvState& st) {
  opt::DepthwiseEpilogue e;
  e.lo = st.lo;
  e.hi = st.hi;
  e.silu = st.silu;
  return e;
}

// The channel-blocked depthwise kernel (util/conv_depthwise.h,
// depthwise_c8_avx2); false when temp memory lacks its scratch.
bool run_depthwise_c8(KernelContext& ctx, const opt::DepthwiseGeom& dg, const ConvState& st,
                      const float* in, const float* weight, const float* bias, float* out) {
  ThreadPool* pool = ctx.thread_pool();
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  void* scratch = nullptr;
  size_t bytes = 0;
  for (size_t t = threads; scratch == nullptr && t >= 1; --t) {
    bytes = opt::depthwise_c8_scratch_bytes(dg, t);
    scratch = ctx.allocate_temp(bytes, 64);
  }
  if (scratch == nullptr) return false;  // the other kernels report what they lack
  const opt::DepthwiseEpilogue e = epilogue_of(st);
  opt::depthwise_c8_avx2(dg, in, weight, bias, e, out, scratch, bytes, pool);
  return true;
}

// The depthwise convolution; true when it also applied st's clamp and SiLU
// (the direct kernels do; the banded one leaves them to the caller).
bool run_depthwise(KernelContext& ctx, const Geom& g, const ConvState& st, const float* in,
                   const float* weight, const float* bias, float* out) {
  const opt::DepthwiseGeom dg = depthwise_geom(g);
  ThreadPool* pool = ctx.thread_pool();
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  if (st.avx2 && opt::depthwise_c8_supported(dg) &&
      run_depthwise_c8(ctx, dg, st, in, weight, bias, out)) {
    return true;
  }
  if (st.avx2 && opt::depthwise_direct_supported(dg)) {
    const opt::DepthwiseEpilogue e = epilogue_of(st);
    // Scratch for as many threads as temp memory holds (at least one).
    size_t bytes = opt::depthwise_direct_scratch_bytes(dg, threads);
    void* scratch = nullptr;
    for (size_t t = threads; scratch == nullptr && t >= 1; --t) {
      bytes = opt::depthwise_direct_scratch_bytes(dg, t);
      scratch = ctx.allocate_temp(bytes, 64);
    }
    if (scratch == nullptr) {
      ETR_LOG(Error, "%s: depthwise scratch of %zu bytes not available from temp memory",
              ctx.op_name(), bytes);
      ctx.fail(Error::MemoryAllocationFailed);
      return true;
    }
    opt::depthwise_direct_avx2(dg, in, weight, bias, e, out, scratch, bytes, pool);
    return true;
  }
  const opt::DepthwisePlan plan = opt::plan_depthwise(dg, threads);
  void* scratch = plan.scratch_bytes == 0 ? nullptr : ctx.allocate_temp(plan.scratch_bytes, 64);
  if (scratch == nullptr) {
    ETR_LOG(Error, "%s: depthwise scratch of %zu bytes not available from temp memory",
            ctx.op_name(), plan.scratch_bytes);
    ctx.fail(Error::MemoryAllocationFailed);
    return true;
  }
  opt::depthwise_conv(dg, plan, in, weight, bias, out, scratch, pool, st.avx2);
  return false;
}

opt::DirectConvGeom direct_geom(const Geom& g) {
  opt::DirectConvGeom dg;
  dg.batch = g.batch;
  dg.c_in = g.c_in;
  dg.h = g.h;
  dg.w = g.w;
  dg.c_out = g.c_out;
  dg.oh = g.oh;
  dg.ow = g.ow;
  return dg;
}

// True when run_direct takes g (sizes set, oh and ow included).
bool takes_direct(const Geom& g, bool avx2) {
  return avx2 && g.groups == 1 && g.kh == 3 && g.kw == 3 && g.sh == 2 && g.sw == 2 && g.ph == 1 &&
         g.pw == 1 && g.dh == 1 && g.dw == 1 && opt::conv3x3s2_supported(direct_geom(g));
}

// The direct kernel for a first layer (3x3, stride 2, padding 1, a few input
// channels; util/conv_direct.h); false when it does not take g. Applies
// st's clamp and SiLU.
bool run_direct(KernelContext& ctx, const Geom& g, const ConvState& st, const float* in,
                const float* weight, const float* bias, float* out) {
  if (!takes_direct(g, st.avx2)) return false;
  const opt::DirectConvGeom dg = direct_geom(g);
  ThreadPool* pool = ctx.thread_pool();
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  size_t bytes = 0;
  void* scratch = nullptr;
  for (size_t t = threads; scratch == nullptr && t >= 1; --t) {
    bytes = opt::conv3x3s2_scratch_bytes(dg, t);
    scratch = ctx.allocate_temp(bytes, 64);
  }
  if (scratch == nullptr) return false;  // the GEMM path reports what it lacks
  const opt::DepthwiseEpilogue e = epilogue_of(st);
  if (opt::cpu_features().avx512f) {
    // Zen 4, MobileNetV3's 3 -> 16 channels at 224x224: 1.4x faster.
    opt::conv3x3s2_avx512(dg, in, weight, bias, e, out, scratch, bytes, pool);
  } else {
    opt::conv3x3s2_avx2(dg, in, weight, bias, e, out, scratch, bytes, pool);
  }
  return true;
}

// Winograd choices, measured on Zen 4 against im2col + GEMM (one thread,
// padding 1). The tile: the one with fewer multiplies counting the idle
// lanes of the GEMM's 16-tile panels, positions x tiles rounded up to 16
// (F(4x4, 3x3) from 11x11 pixels up: 64 x 64 channels at 56x56 3.2x faster
// than im2col, F(2x2, 3x3) 2.0x; 256 x 256 at 14x14: 3.3x and 1.9x; F(2x2,
// 3x3) below: 512 x 512 at 7x7 1.9x, F(4x4, 3x3) 0.73x; 256 x 256 at 10x10
// 2.1x and 1.8x). Taken from 9 tiles per image, or from 4 with up to 128 x
// 128 channels: with fewer tiles per transformed weight matrix streaming
// the weights costs more than the products save (512 x 512 at 4x4 pixels:
// 0.47x; 128 x 32: 1.7x). From 16 input and output channels: layers of 8
// to 15 would gain too (8 x 8 at 32x32: 2.1x) but keep the im2col product:
// Winograd's error is small against the output's scale, not against every
// element (the per-element bounds such layers are tested to).
constexpr int64_t kWinogradMinChannels = 16;
constexpr int64_t kWinogradMinTiles = 4;
constexpr int64_t kWinogradManyTiles = 9;
constexpr int64_t kWinogradFewTilesMaxChannels = 128 * 128;  // c_in * c_out

bool is_winograd_shape(const Geom& g) {
  return g.groups == 1 && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 &&
         g.dw == 1;
}

// The Winograd output tile prepare picks for g (sizes set, oh and ow
// included): 4 (F(4x4, 3x3)), 2 (F(2x2, 3x3)), or 0 for none.
int64_t winograd_tile(const Geom& g, bool avx2) {
  if (!avx2 || !opt::winograd_available() || !is_winograd_shape(g) ||
      g.c_in < kWinogradMinChannels || g.c_out < kWinogradMinChannels) {
    return 0;
  }
  const int64_t tiles4 = ((g.oh + 3) / 4) * ((g.ow + 3) / 4);
  const int64_t tiles2 = ((g.oh + 1) / 2) * ((g.ow + 1) / 2);
  auto lanes = [](int64_t tiles) { return (tiles + kPanel - 1) / kPanel * kPanel; };
  const bool small = 16 * lanes(tiles2) < 36 * lanes(tiles4);
  const int64_t tiles = small ? tiles2 : tiles4;
  if (tiles >= kWinogradManyTiles ||
      (tiles >= kWinogradMinTiles && g.c_in * g.c_out <= kWinogradFewTilesMaxChannels)) {
    return small ? 2 : 4;
  }
  return 0;
}

// Transforms and packs the constant weights for the Winograd kernel with
// output tiles of `tile`; false (nothing kept) when memory is short.
bool pack_winograd(KernelPrepareContext& ctx, const Geom& g, int64_t tile, const float* weight,
                   ConvState* st) {
  const size_t bytes = opt::winograd_weight_bytes(g.c_out, g.c_in, tile);
  auto* dst = bytes == 0 ? nullptr : static_cast<float*>(ctx.allocate(bytes, 64));
  if (dst == nullptr) return false;
  opt::winograd_pack_weights(weight, g.c_out, g.c_in, tile, dst);
  st->winograd = dst;
  st->winograd_c_out = g.c_out;
  st->winograd_c_in = g.c_in;
  st->winograd_tile = tile;
  return true;
}

// Temp memory for a Winograd kernel's scratch: for all of pool's threads,
// or for fewer (down to one) when temp memory is short; nullptr when not
// even one fits or bytes_for reports 0 (an overflow). bytes_for(t) is the
// size for t threads; *bytes receives the size taken.
template <typename BytesFor>
void* winograd_scratch(KernelContext& ctx, ThreadPool* pool, BytesFor bytes_for, size_t* bytes) {
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  void* scratch = nullptr;
  for (size_t t = threads; scratch == nullptr && t >= 1; --t) {
    *bytes = bytes_for(t);
    scratch = *bytes == 0 ? nullptr : ctx.allocate_temp(*bytes, 64);
  }
  return scratch;
}

// The Winograd kernel when prepare transformed the weights for g's shape and
// temp memory holds its scratch for at least one thread; false otherwise
// (the GEMM path then runs). Applies st's clamp and SiLU.
bool run_winograd(KernelContext& ctx, const Geom& g, const ConvState& st, const float* in,
                  const float* bias, float* out) {
  if (st.winograd == nullptr || st.winograd_c_out != g.c_out || st.winograd_c_in != g.c_in ||
      !is_winograd_shape(g)) {
    return false;
  }
  opt::WinogradGeom wg;
  wg.batch = g.batch;
  wg.c_in = g.c_in;
  wg.h = g.h;
  wg.w = g.w;
  wg.c_out = g.c_out;
  wg.oh = g.oh;
  wg.ow = g.ow;
  wg.ph = g.ph;
  wg.pw = g.pw;
  wg.tile = st.winograd_tile;
  ThreadPool* pool = ctx.thread_pool();
  size_t bytes = 0;
  void* scratch = winograd_scratch(
      ctx, pool, [&](size_t t) { return opt::winograd_scratch_bytes(wg, t); }, &bytes);
  if (scratch == nullptr) return false;
  return opt::conv3x3_winograd_avx2(wg, in, st.winograd, bias, epilogue_of(st), out, scratch, bytes,
                                    pool);
}

bool is_winograd1d_shape(const Geom& g) {
  return g.groups == 1 && g.h == 1 && g.kh == 1 && g.oh == 1 && g.sw == 1 && g.dw == 1;
}

// The 1-D Winograd output tile prepare picks for g (sizes set, ow
// included; opt::winograd1d_pick_tile), or 0 for none.
int64_t winograd1d_tile(const Geom& g, bool avx2) {
  if (!avx2 || !is_winograd1d_shape(g)) return 0;
  return opt::winograd1d_pick_tile(g.c_in, g.c_out, g.kw, g.ow);
}

// Transforms and packs the constant weights for the 1-D Winograd kernel;
// false (nothing kept) when memory is short.
bool pack_winograd1d(KernelPrepareContext& ctx, const Geom& g, int64_t tile, const float* weight,
                     ConvState* st) {
  const size_t bytes = opt::winograd1d_weight_bytes(g.c_out, g.c_in, g.kw, tile);
  auto* dst = bytes == 0 ? nullptr : static_cast<float*>(ctx.allocate(bytes, 64));
  if (dst == nullptr) return false;
  opt::winograd1d_pack_weights(weight, g.c_out, g.c_in, g.kw, tile, dst);
  st->winograd1d = dst;
  st->winograd1d_c_out = g.c_out;
  st->winograd1d_c_in = g.c_in;
  st->winograd1d_k = g.kw;
  st->winograd1d_tile = tile;
  return true;
}

// The 1-D Winograd kernel when prepare transformed the weights for g's
// shape and temp memory holds its scratch for at least one thread; false
// otherwise (the GEMM path then runs). Applies st's clamp and SiLU.
bool run_winograd1d(KernelContext& ctx, const Geom& g, const ConvState& st, const float* in,
                    const float* bias, float* out) {
  if (st.winograd1d == nullptr || st.winograd1d_c_out != g.c_out || st.winograd1d_c_in != g.c_in ||
      st.winograd1d_k != g.kw || !is_winograd1d_shape(g)) {
    return false;
  }
  opt::Winograd1dGeom wg;
  wg.batch = g.batch;
  wg.c_in = g.c_in;
  wg.w = g.w;
  wg.c_out = g.c_out;
  wg.ow = g.ow;
  wg.pad = g.pw;
  wg.k = g.kw;
  wg.tile = st.winograd1d_tile;
  ThreadPool* pool = ctx.thread_pool();
  size_t bytes = 0;
  void* scratch = winograd_scratch(
      ctx, pool, [&](size_t t) { return opt::winograd1d_scratch_bytes(wg, t); }, &bytes);
  if (scratch == nullptr) return false;
  return opt::conv1d_winograd_avx2(wg, in, st.winograd1d, bias, epilogue_of(st), out, scratch,
                                   bytes, pool);
}

// The im2col product transposed (see the top of this file): per batch image
// and group, X^T [n, k] @ W^T [k, ocg] into a temp [n, ocg] block, then
// transposed into out's [ocg, n] rows. `packed`: W^T packed per group, or null.
void run_gemm_transposed(KernelContext& ctx, const Geom& g, const opt::PackedMatrix* packed,
                         const float* in, const float* weight, const float* bias, float lo,
                         float hi, bool silu, const opt::UnaryParams* post, const float* k_scale,
                         const float* k_shift, bool k_relu, float* out) {
  const char* op = ctx.op_name();
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  const int64_t k = icg * g.kh * g.kw;
  const int64_t n = g.oh * g.ow;
  ThreadPool* pool = ctx.thread_pool();
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  // The GEMM shifts and clamps the operand it packs: here the input (A)
  // only when the weights (B) come packed.
  ETR_KERNEL_CHECK(ctx, packed != nullptr || (k_shift == nullptr && !k_relu), Error::Internal,
                   "%s: an input shift reached a transposed product without packed weights", op);
  // A pointwise layer reads its input as X itself (no im2col); a patch
  // layer's X^T is built row-major (takes_patches) and read in place.
  const bool pointwise = is_pointwise(g);
  const opt::Im2colGeom ig = im2col_geom(g);
  const bool patches = takes_patches(g);
  auto make_args = [&](int64_t gi, int64_t rows, const float* cols, float* ct) {
    opt::GemmArgs a;
    a.m = rows;
    a.n = ocg;
    a.k = k;
    // X^T (i, kk) is cols[kk, i], or cols[i, kk] for patches.
    a.a = patches ? opt::MatrixView{cols, k, 1} : opt::MatrixView{cols, 1, n};
    if (packed != nullptr) {
      a.packed_b = &packed[gi];
    } else {
      a.b = opt::MatrixView{weight + gi * ocg * k, 1, k};
    }
    a.c = ct;
    a.ldc = ocg;
    a.epilogue.col_bias = bias == nullptr ? nullptr : bias + gi * ocg;
    a.epilogue.lo = lo;
    a.epilogue.hi = hi;
    a.epilogue.silu = silu;
    a.epilogue.post = post;
    a.k_scale = k_scale;
    a.k_shift = k_shift;
    a.k_relu = k_relu;
    return a;
  };
  // k, ocg and n (at most 8 * kPanel, or a patch layer's X^T of at most
  // kIm2colBytes) are bounded by the checked tensor sizes. A patch layer
  // runs in tiles of output pixels when temp memory cannot hold them all.
  auto col_bytes_of = [&](int64_t rows) {
    return pointwise ? 0 : static_cast<size_t>(k) * static_cast<size_t>(rows) * sizeof(float);
  };
  auto ct_bytes_of = [&](int64_t rows) {
    return static_cast<size_t>(ocg) * static_cast<size_t>(rows) * sizeof(float);
  };
  auto gemm_bytes_of = [&](int64_t rows) {
    return opt::gemm_scratch_bytes(make_args(0, rows, in, nullptr), threads);
  };
  int64_t nt = n;
  if (patches) {
    const size_t room = temp_left(ctx.temp_allocator());
    while (nt > kMinPatchTile &&
           col_bytes_of(nt) + ct_bytes_of(nt) + gemm_bytes_of(nt) + 128 > room) {
      nt = (nt + 1) / 2;
    }
  }
  const size_t col_bytes = col_bytes_of(nt), ct_bytes = ct_bytes_of(nt);
  const size_t gemm_bytes = gemm_bytes_of(nt);
  float* cols = pointwise ? nullptr : static_cast<float*>(ctx.allocate_temp(col_bytes, 64));
  float* ct = static_cast<float*>(ctx.allocate_temp(ct_bytes, 64));
  ETR_KERNEL_CHECK(ctx, (pointwise || cols != nullptr) && ct != nullptr,
                   Error::MemoryAllocationFailed,
                   "%s: im2col tile and output block of %zu and %zu bytes not available from "
                   "temp memory",
                   op, col_bytes, ct_bytes);
  // What is left of temp memory holds the GEMM's packing scratch (it runs
  // with fewer workers or smaller blocks when that is less than gemm_bytes).
  const size_t left = temp_left(ctx.temp_allocator());
  const size_t scratch_bytes = std::min(gemm_bytes, left > 64 ? left - 64 : 0);
  void* gemm_mem = scratch_bytes == 0 ? nullptr : ctx.allocate_temp(scratch_bytes, 64);
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float* x = in + (b * g.c_in + gi * icg) * g.h * g.w;
      float* o = out + (b * g.c_out + gi * ocg) * n;
      for (int64_t n0 = 0; n0 < n; n0 += nt) {
        const int64_t rows = std::min(nt, n - n0);
        if (patches) {
          opt::patch_rows(ig, x, n0, rows, cols, pool);
        } else if (!pointwise) {
          opt::im2col_tile(ig, x, 0, n, cols, pool);
        }
        MemoryAllocator scratch(gemm_mem, gemm_mem == nullptr ? 0 : scratch_bytes);
        ETR_KERNEL_TRY(ctx,
                       opt::gemm(make_args(gi, rows, pointwise ? x : cols, ct), &scratch, pool));
        // out[co, n0 + i] = ct[i, co]
        opt::transpose_f32(ct, ocg, o + n0, n, ocg, rows);
      }
    }
  }
}

// Writes the im2col tile of output pixels [n0, n0 + nt) to cols for the
// product *a. A tile whose rows are not whole 16-column panels would be
// packed by the GEMM: im2col writes it packed instead (one copy, not two;
// *packed_cols describes it and becomes a's B), except where the GEMM must
// scale B's rows as it packs.
void make_tile(const opt::Im2colGeom& ig, const float* x, int64_t n0, int64_t nt, float* cols,
               bool packed, const float* k_scale, ThreadPool* pool,
               const opt::PackedMatrix* packed_cols, opt::GemmArgs* a) {
  if (nt % kPanel != 0 && (k_scale == nullptr || !packed)) {
    opt::im2col_tile_packed(ig, x, n0, nt, cols, pool);
    a->packed_b = packed_cols;
  } else {
    opt::im2col_tile(ig, x, n0, nt, cols, pool);
  }
}

// Bytes of one chunk's im2col tile in run_im2col_chunks: with the chunk's
// output block and the weights it stays in a core's L2 (1 MiB on Zen 4).
constexpr size_t kChunkIm2colBytes = size_t{384} << 10;
// At least this many chunks per thread, so that the claiming evens out a
// thread that starts late (a pool worker's wake-up) or is slowed.
constexpr int64_t kChunksPerThread = 4;
// Fewest output pixels per chunk. ResNet-18's stride-2 layers over 28x28
// outputs (784 pixels: chunks of 96) ran 3-10% slower chunked on 2 threads
// (Zen 4, per-layer minima), its 7x7 stem (chunks of 656) 10% faster.
constexpr int64_t kMinChunk = 16 * kPanel;

// The im2col convolution on several threads, each chunk of output pixels
// (whole 16-column panels) one thread's im2col and GEMM from start to end
// (args_for(gi, n0, cols, tile) builds its product): the tile is made and
// read in the same core's cache, where splitting the im2col by rows and
// then the GEMM by columns has every core read tiles the other one wrote,
// with two barriers per tile. Chunks are claimed as threads come free.
// False (nothing done) when there are too few pixels for kChunksPerThread
// chunks of at least kMinChunk pixels per thread or temp memory cannot hold a tile
// for 2 threads; the caller then runs the shared-tile path. Outputs are
// the same bits either way (each column's sums run in the same order).
template <typename ArgsFor>
bool run_im2col_chunks(KernelContext& ctx, const Geom& g, const float* in, int64_t n, int64_t k,
                       size_t threads, size_t free_bytes, bool packed, const float* k_scale,
                       const ArgsFor& args_for) {
  const size_t per_col = static_cast<size_t>(k) * sizeof(float);
  const int64_t by_bytes = static_cast<int64_t>(kChunkIm2colBytes / per_col) / kPanel * kPanel;
  const int64_t want = n / (kChunksPerThread * static_cast<int64_t>(threads)) / kPanel * kPanel;
  const int64_t chunk = std::min(by_bytes, want);
  if (chunk < kMinChunk) return false;
  // chunk <= n / (kChunksPerThread * threads): at least that many chunks.
  const int64_t per_image = (n + chunk - 1) / chunk;
  const int64_t items = g.batch * g.groups * per_image;
  auto align = [](size_t v) { return (v + 63) & ~size_t{63}; };
  const size_t col_bytes = align(per_col * static_cast<size_t>(chunk));
  const size_t gemm_need = opt::gemm_scratch_bytes(args_for(0, 0, chunk, nullptr), 1);
  if (gemm_need > kChunkIm2colBytes * 16) return false;  // SIZE_MAX: too large to say
  const size_t gemm_bytes = align(gemm_need);
  const size_t slot_bytes = col_bytes + gemm_bytes;
  size_t slots = std::min<size_t>(threads, opt::ScratchSlots::kMaxSlots);
  slots = std::min(slots, free_bytes / (slot_bytes + 64));
  if (slots < 2) return false;
  uint8_t* mem = static_cast<uint8_t*>(ctx.allocate_temp(slot_bytes * slots, 64));
  if (mem == nullptr) return false;
  const opt::Im2colGeom ig = im2col_geom(g);
  const int64_t icg = g.c_in / g.groups;
  const int64_t in_plane = g.h * g.w;
  opt::ScratchSlots scratch_slots(slots);
  std::atomic<int> failed{0};
  ThreadPool* pool = ctx.thread_pool();
  parallel_for(pool, static_cast<size_t>(items), 1, [&](size_t first, size_t last) {
    bool fresh = false;
    const size_t sl = scratch_slots.acquire(&fresh);
    float* cols = reinterpret_cast<float*>(mem + sl * slot_bytes);
    void* gemm_mem = mem + sl * slot_bytes + col_bytes;
    for (size_t item = first; item < last; ++item) {
      const int64_t i = static_cast<int64_t>(item);
      const int64_t image = i / per_image;  // batch * groups + group
      const int64_t b = image / g.groups, gi = image % g.groups;
      const int64_t n0 = (i % per_image) * chunk;
      const int64_t nt = std::min(chunk, n - n0);
      const float* x = in + (b * g.c_in + gi * icg) * in_plane;
      opt::GemmArgs a = args_for(gi, n0, nt, cols);
      opt::PackedMatrix packed_cols{cols, k, nt};
      make_tile(ig, x, n0, nt, cols, packed, k_scale, nullptr, &packed_cols, &a);
      a.c += b * g.c_out * n;
      MemoryAllocator scratch(gemm_mem, gemm_bytes);
      if (opt::gemm(a, &scratch, nullptr) != Error::Ok) failed.store(1);
    }
    scratch_slots.release(sl);
  });
  if (failed.load() != 0) {
    ETR_LOG(Error, "%s: an im2col chunk's product failed", ctx.op_name());
    ctx.fail(Error::Internal);
  }
  return true;
}

void run_gemm(KernelContext& ctx, const Geom& g, const ConvState& st, const float* in,
              const float* weight, const float* bias, const opt::UnaryParams* post,
              const float* k_scale, const float* k_shift, bool k_relu, float* out) {
  const char* op = ctx.op_name();
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  const int64_t k = icg * g.kh * g.kw;
  const int64_t n = g.oh * g.ow;
  const int64_t in_plane = g.h * g.w;
  const bool transposed = use_transposed(g);
  const bool packed = st.packed != nullptr && st.packed_c_out == g.c_out && st.packed_k == k &&
                      st.packed_groups == g.groups && st.packed_transposed == transposed;
  const bool pointwise = is_pointwise(g);
  ThreadPool* pool = ctx.thread_pool();
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  const size_t free_bytes = temp_left(ctx.temp_allocator());

  // The product of group gi for output pixels [n0, n0 + cols): B is the
  // input itself (pointwise, every batch image in one call) or an im2col tile.
  auto make_args = [&](int64_t gi, int64_t n0, int64_t cols, const float* b_data) {
    opt::GemmArgs a;
    a.m = ocg;
    a.n = cols;
    a.k = k;
    if (packed) {
      a.packed_a = &st.packed[gi];
    } else {
      a.a = opt::MatrixView{weight + gi * ocg * k, k, 1};
    }
    a.b = opt::MatrixView{b_data, pointwise ? in_plane : cols, 1};
    a.c = out + gi * ocg * n + n0;
    a.ldc = n;
    a.epilogue.row_bias = bias == nullptr ? nullptr : bias + gi * ocg;
    a.epilogue.lo = st.lo;
    a.epilogue.hi = st.hi;
    a.epilogue.silu = st.silu;
    a.epilogue.post = post;
    a.k_scale = k_scale;
    a.k_shift = k_shift;
    a.k_relu = k_relu;
    if (pointwise) {
      a.batch = g.batch;
      a.batch_stride_b = g.c_in * in_plane;
      a.batch_stride_c = g.c_out * n;
    }
    return a;
  };
  auto scratch_bytes = [&](int64_t cols) {
    const size_t b = opt::gemm_scratch_bytes(make_args(0, 0, cols, in), threads);
    return b > SIZE_MAX / 2 ? SIZE_MAX / 2 : b + 64;
  };
  if (pointwise && n == 1 && st.avx2 && g.groups == 1 && k_scale == nullptr && k_shift == nullptr &&
      !k_relu && st.gemv_panels != nullptr && st.gemv_m == g.c_out && st.gemv_k == g.c_in) {
    // A 1x1 image with panel-packed weights: one stream over them per image.
    const opt::DepthwiseEpilogue e = epilogue_of(st);
    for (int64_t b = 0; b < g.batch; ++b) {
      float* y = out + b * g.c_out;
      opt::gemv_panels_avx2(st.gemv_panels, g.c_out, g.c_in, in + b * g.c_in, bias, e, y, pool);
      if (post != nullptr) opt::unary(*post, y, y, static_cast<size_t>(g.c_out));
    }
    return;
  }
  if (pointwise && n == 1 && st.avx2 && post == nullptr && k_scale == nullptr) {
    // A 1x1 image: one dot product per output channel, on the weights as stored.
    const opt::DepthwiseEpilogue e = epilogue_of(st);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        opt::gemv_rows_avx2(weight + gi * ocg * k, ocg, k, in + b * g.c_in + gi * icg,
                            bias == nullptr ? nullptr : bias + gi * ocg, e,
                            out + b * g.c_out + gi * ocg);
      }
    }
    return;
  }
  if (transposed) {
    run_gemm_transposed(ctx, g, packed ? st.packed : nullptr, in, weight, bias, st.lo, st.hi,
                        st.silu, post, k_scale, k_shift, k_relu, out);
    return;
  }
  if (!pointwise && threads >= 2 &&
      run_im2col_chunks(ctx, g, in, n, k, threads, free_bytes, packed, k_scale, make_args)) {
    return;
  }
  // Output pixels per im2col tile: all of them when they fit, else halved to
  // a multiple of 16 (rows of whole cache lines, which the GEMM reads in place).
  int64_t tile = n;
  size_t col_bytes = 0;
  if (!pointwise) {
    const size_t per_col = static_cast<size_t>(k) * sizeof(float);
    const size_t cap = std::min(kIm2colBytes, free_bytes);
    // Room for the tile in the packed layout too (columns rounded up to 16).
    auto tile_bytes = [&](int64_t cols) { return per_col * static_cast<size_t>(round16(cols)); };
    while (tile > kMinTile && tile_bytes(tile) + scratch_bytes(tile) + 256 > cap) {
      tile = std::max(kMinTile, (tile / 2 + 15) / 16 * 16);
    }
    col_bytes = tile_bytes(tile);
  }
  const size_t gemm_bytes = scratch_bytes(tile);
  float* cols = nullptr;
  if (col_bytes != 0) {
    cols = static_cast<float*>(ctx.allocate_temp(col_bytes, 64));
    ETR_KERNEL_CHECK(ctx, cols != nullptr, Error::MemoryAllocationFailed,
                     "%s: im2col tile of %zu bytes not available from temp memory", op, col_bytes);
  }
  void* gemm_mem = ctx.allocate_temp(gemm_bytes, 64);
  ETR_KERNEL_CHECK(ctx, gemm_mem != nullptr, Error::MemoryAllocationFailed,
                   "%s: GEMM scratch of %zu bytes not available from temp memory", op, gemm_bytes);

  if (pointwise) {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      MemoryAllocator scratch(gemm_mem, gemm_bytes);
      ETR_KERNEL_TRY(ctx, opt::gemm(make_args(gi, 0, n, in + gi * icg * in_plane), &scratch, pool));
    }
    return;
  }
  const opt::Im2colGeom ig = im2col_geom(g);
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float* x = in + (b * g.c_in + gi * icg) * in_plane;
      for (int64_t n0 = 0; n0 < n; n0 += tile) {
        const int64_t nt = std::min(tile, n - n0);
        opt::GemmArgs a = make_args(gi, n0, nt, cols);
        opt::PackedMatrix packed_cols{cols, k, nt};
        make_tile(ig, x, n0, nt, cols, packed, k_scale, pool, &packed_cols, &a);
        a.c += b * g.c_out * n;
        MemoryAllocator scratch(gemm_mem, gemm_bytes);
        ETR_KERNEL_TRY(ctx, opt::gemm(a, &scratch, pool));
      }
    }
  }
}

}  // namespace

namespace internal {

bool conv_accepts(const Tensor& input, const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool transposed,
                  IntArrayRef output_padding, int64_t groups, const Tensor& out, Geom* g) {
  const size_t rank = input.dim();
  if (transposed || (rank != 3 && rank != 4) || weight.dim() != rank || out.dim() != rank ||
      input.dtype() != ScalarType::Float || weight.dtype() != ScalarType::Float ||
      out.dtype() != ScalarType::Float || groups < 1 || groups > kMaxParam) {
    return false;
  }
  if (bias != nullptr && (bias->dtype() != ScalarType::Float || bias->dim() != 1)) return false;
  if (!is_default_layout(input) || !is_default_layout(weight) || !is_default_layout(out)) {
    return false;
  }
  return read_params(stride, padding, dilation, rank - 2, g) &&
         zero_output_padding(output_padding, rank - 2) && read_sizes(input, weight, groups, g);
}

ConvState* make_conv_state(KernelPrepareContext& ctx, Geom g, const float* packable) {
  ConvState* st = ctx.make_state<ConvState>();
  if (st == nullptr) return nullptr;
  st->avx2 = opt::cpu_features().avx2_fma;
  st->path = is_depthwise(g) ? ConvPath::kDepthwise : ConvPath::kGemm;
  // Packing is an optimization: without memory for it, run packs per call.
  if (st->path == ConvPath::kGemm && packable != nullptr) {
    // The output extent decides which product runs (use_transposed), and
    // whether one runs at all (the direct kernel reads the weights as they are).
    const bool sized = out_extent(g.h, g.kh, g.sh, g.ph, g.dh, &g.oh) &&
                       out_extent(g.w, g.kw, g.sw, g.pw, g.dw, &g.ow);
    const int64_t tile = sized ? winograd_tile(g, st->avx2) : 0;
    const int64_t tile1d = sized ? winograd1d_tile(g, st->avx2) : 0;
    if (tile != 0 && pack_winograd(ctx, g, tile, packable, st)) {
      // The Winograd kernel reads only its own transformed weights.
    } else if (tile1d != 0 && pack_winograd1d(ctx, g, tile1d, packable, st)) {
      // So does the 1-D one.
    } else if (sized && internal::takes_grouped(g, st->avx2)) {
      internal::prepare_grouped(ctx, g, packable, st);
    } else if (sized && takes_gemv_panels(g, st->avx2) && pack_gemv_panels(ctx, g, packable, st)) {
      // The panel product reads only its own packed weights.
    } else if (!(sized && takes_direct(g, st->avx2))) {
      (void)pack_weights(ctx, g, packable, sized && use_transposed(g), st);
    }
  }
  return st;
}

}  // namespace internal

using internal::ConvState;

Error opt_convolution_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                              const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                              int64_t groups, Tensor& out) {
  internal::ConvGeom g;
  if (!internal::conv_accepts(input, weight, bias, stride, padding, dilation, transposed,
                              output_padding, groups, out, &g)) {
    return Error::NotSupported;
  }
  ConvState* st = internal::make_conv_state(
      ctx, g, ctx.is_constant_arg(1) ? weight.const_data_ptr<float>() : nullptr);
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the convolution's packed state", ctx.op_name());
  ctx.set_state(st);
  return Error::Ok;
}

namespace internal {

void run_conv(KernelContext& ctx, const ConvState* st, const Tensor& input, const Tensor& weight,
              const float* w, const float* b, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups, Tensor& out, const opt::UnaryParams* post,
              const float* k_scale, const float* k_shift, bool k_relu) {
  const char* op = ctx.op_name();
  const size_t rank = input.dim();
  Geom g;
  ETR_KERNEL_CHECK(ctx, st != nullptr && read_params(stride, padding, dilation, rank - 2, &g),
                   Error::Internal, "%s: parameters reached run unchecked", op);
  ETR_KERNEL_CHECK(ctx, read_sizes(input, weight, groups, &g), Error::InvalidArgument,
                   "%s: weight %s does not match input %s with groups=%lld", op,
                   ShapeText(weight).c_str(), ShapeText(input).c_str(),
                   static_cast<long long>(groups));
  const bool ok_h = out_extent(g.h, g.kh, g.sh, g.ph, g.dh, &g.oh);
  const bool ok_w = out_extent(g.w, g.kw, g.sw, g.pw, g.dw, &g.ow);
  ETR_KERNEL_CHECK(ctx, ok_h && ok_w, Error::InvalidArgument,
                   "%s: kernel %s (with dilation) is larger than padded input %s", op,
                   ShapeText(weight).c_str(), ShapeText(input).c_str());
  // 1-D: [batch, c_out, ow]; 2-D: [batch, c_out, oh, ow].
  const int64_t out_sizes[4] = {g.batch, g.c_out, rank == 4 ? g.oh : g.ow, g.ow};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(out_sizes, rank)));
  if (out.numel() == 0) return;
  const float* in = input.const_data_ptr<float>();
  float* o = out.data_ptr<float>();
  const bool clamp = st->lo > -std::numeric_limits<float>::infinity() ||
                     st->hi < std::numeric_limits<float>::infinity();
  // The post activation as a pass over out (the paths other than the GEMM's).
  auto apply_post = [&]() {
    if (post == nullptr || ctx.failure_state() != Error::Ok) return;
    parallel_for(
        ctx.thread_pool(), static_cast<size_t>(out.numel()), kPostGrain,
        [&](size_t begin, size_t end) { opt::unary(*post, o + begin, o + begin, end - begin); });
  };
  if (k_scale != nullptr) {
    // Only the GEMM scales its input by channel (fused kernels check at prepare).
    ETR_KERNEL_CHECK(
        ctx,
        st->path == ConvPath::kGemm && is_pointwise(g) && g.groups == 1 && g.c_in > 0 &&
            g.batch == 1 && st->winograd == nullptr && st->winograd1d == nullptr,
        Error::Internal, "%s: a channel scale reached a convolution it cannot take", op);
    run_gemm(ctx, g, *st, in, w, b, post, k_scale, k_shift, k_relu, o);
    return;
  }
  if (g.c_in == 0) {
    fill_bias(g, b, o);
  } else if (st->path == ConvPath::kDepthwise && is_depthwise(g)) {
    if (run_depthwise(ctx, g, *st, in, w, b, o)) {  // the clamp and SiLU are applied
      apply_post();
      return;
    }
  } else {
    // Each of these applies the clamp and SiLU; the GEMM also the post activation.
    if (run_winograd(ctx, g, *st, in, b, o) || run_winograd1d(ctx, g, *st, in, b, o) ||
        run_direct(ctx, g, *st, in, w, b, o) || internal::run_grouped(ctx, g, *st, in, w, b, o)) {
      apply_post();
    } else {
      run_gemm(ctx, g, *st, in, w, b, post, nullptr, nullptr, false, o);
    }
    return;
  }
  if (clamp && ctx.failure_state() == Error::Ok) {
    opt::UnaryParams p;
    p.kind = opt::UnaryKind::kClamp;
    p.lo = st->lo;
    p.hi = st->hi;
    opt::unary(p, o, o, static_cast<size_t>(out.numel()));
  }
  if (st->silu && ctx.failure_state() == Error::Ok) {
    opt::UnaryParams p;
    p.kind = opt::UnaryKind::kSilu;
    opt::unary(p, o, o, static_cast<size_t>(out.numel()));
  }
  apply_post();
}

bool conv_in_place_ok(KernelContext& ctx, const ConvState* st, const Tensor& input,
                      const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, int64_t groups) {
  Geom g;
  if (st == nullptr || !st->avx2 || st->path != ConvPath::kDepthwise ||
      !read_params(stride, padding, dilation, input.dim() - 2, &g) ||
      !read_sizes(input, weight, groups, &g) || !is_depthwise(g) ||
      !out_extent(g.h, g.kh, g.sh, g.ph, g.dh, &g.oh) ||
      !out_extent(g.w, g.kw, g.sw, g.pw, g.dw, &g.ow)) {
    return false;
  }
  const opt::DepthwiseGeom dg = depthwise_geom(g);
  const MemoryAllocator* temp = ctx.temp_allocator();
  if (temp == nullptr || !opt::depthwise_c8_in_place(dg)) return false;
  // run_depthwise_c8 then gets scratch for at least one thread (64-byte aligned).
  const size_t free_bytes = temp->capacity() - temp->used();
  return free_bytes >= opt::depthwise_c8_scratch_bytes(dg, 1) + 64;
}

}  // namespace internal

void opt_convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, bool /*transposed*/, IntArrayRef /*output_padding*/,
                         int64_t groups, Tensor& out) {
  ETR_KERNEL_CHECK(ctx, bias == nullptr || bias->size(0) == weight.size(0), Error::InvalidArgument,
                   "%s: bias %s must have %lld elements", ctx.op_name(), ShapeText(*bias).c_str(),
                   static_cast<long long>(weight.size(0)));
  internal::run_conv(ctx, ctx.state<ConvState>(), input, weight, weight.const_data_ptr<float>(),
                     bias == nullptr ? nullptr : bias->const_data_ptr<float>(), stride, padding,
                     dilation, groups, out);
}

}  // namespace etr
