// The grouped-convolution path of the optimized convolution (see
// op_convolution.cpp): groups of a few channels (RegNet's 3x3 layers, 8 per
// group) run through the direct kernel of util/conv_grouped.h instead of a
// GEMM per group whose 8-row products fill no tile.
#include <cstdint>

#include "kernels/cpu_math/conv_grouped.h"
#include "kernels/optimized/conv_internal.h"
#include "runtime/platform/log.h"

namespace etr {
namespace internal {
namespace {

opt::GroupedConvGeom grouped_geom(const ConvGeom& g) {
  opt::GroupedConvGeom gg;
  gg.batch = g.batch;
  gg.c_in = g.c_in;
  gg.h = g.h;
  gg.w = g.w;
  gg.c_out = g.c_out;
  gg.oh = g.oh;
  gg.ow = g.ow;
  gg.groups = g.groups;
  gg.kh = g.kh;
  gg.kw = g.kw;
  gg.sh = g.sh;
  gg.sw = g.sw;
  gg.ph = g.ph;
  gg.pw = g.pw;
  gg.dh = g.dh;
  gg.dw = g.dw;
  return gg;
}

}  // namespace

bool takes_grouped(const ConvGeom& g, bool avx2) {
  // Depthwise layers (one channel per group) have their own kernels.
  const bool depthwise = g.groups == g.c_in && g.c_out == g.groups;
  return avx2 && !depthwise && opt::conv_grouped_supported(grouped_geom(g));
}

void prepare_grouped(KernelPrepareContext& ctx, const ConvGeom& g, const float* packable,
                     ConvState* st) {
  const opt::GroupedConvGeom gg = grouped_geom(g);
  const size_t floats = opt::conv_grouped_packed_floats(gg);
  if (packable == nullptr || floats == 0 || floats > SIZE_MAX / sizeof(float)) return;
  auto* dst = static_cast<float*>(ctx.allocate(floats * sizeof(float), 64));
  if (dst == nullptr) return;
  opt::conv_grouped_pack(gg, packable, dst);
  st->grouped_packed = dst;
  st->grouped_c_out = g.c_out;
  st->grouped_k = (g.c_in / g.groups) * g.kh * g.kw;
  st->grouped_groups = g.groups;
}

bool run_grouped(KernelContext& ctx, const ConvGeom& g, const ConvState& st, const float* in,
                 const float* weight, const float* bias, float* out) {
  if (!takes_grouped(g, st.avx2)) return false;
  const opt::GroupedConvGeom gg = grouped_geom(g);
  // The packed weights belong to these weights only when the sizes match
  // (run_conv passes the ones prepare saw: the constant or folded weights).
  const float* packed = st.grouped_packed != nullptr && st.grouped_c_out == g.c_out &&
                                st.grouped_k == (g.c_in / g.groups) * g.kh * g.kw &&
                                st.grouped_groups == g.groups
                            ? st.grouped_packed
                            : nullptr;
  ThreadPool* pool = ctx.thread_pool();
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  size_t bytes = 0;
  void* scratch = nullptr;
  for (size_t t = threads; scratch == nullptr && t >= 1; --t) {
    bytes = opt::conv_grouped_scratch_bytes(gg, t, packed != nullptr);
    scratch = ctx.allocate_temp(bytes, 64);
  }
  if (scratch == nullptr) return false;  // the GEMM path reports what it lacks
  opt::DepthwiseEpilogue e;
  e.lo = st.lo;
  e.hi = st.hi;
  e.silu = st.silu;
  opt::conv_grouped_avx2(gg, in, weight, packed, bias, e, out, scratch, bytes, pool);
  return true;
}

}  // namespace internal
}  // namespace etr
