// Shared by op_convolution.cpp (aten::convolution.out and the paths that
// run it) and op_conv_bn.cpp (the fused convolution -> batch norm (->
// activation) kernels, which prepare the same state with folded weights):
// the geometry, the prepared state, and the entry points between the two.
#pragma once

#include <cstdint>
#include <limits>

#include "kernels/cpu_math/gemm.h"
#include "runtime/kernel/kernel.h"

namespace etr {
namespace internal {

enum class ConvPath : uint8_t { kGemm, kDepthwise };

// A 1-D convolution is a 2-D one with h == kh == oh == 1.
struct ConvGeom {
  int64_t batch = 0, c_in = 0, h = 1, w = 0;
  int64_t c_out = 0, kh = 1, kw = 0;
  int64_t oh = 1, ow = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t groups = 1;
};

struct ConvState {
  ConvPath path = ConvPath::kGemm;
  bool avx2 = false;
  // One packed matrix per group, or null; valid for this weight shape only:
  // W [c_out / groups, K] packed as A, or (packed_transposed) W^T
  // [K, c_out / groups] packed as B for the transposed product.
  const opt::PackedMatrix* packed = nullptr;
  int64_t packed_c_out = 0, packed_k = 0, packed_groups = 0;
  bool packed_transposed = false;
  // A 3x3, stride 1, dilation 1, groups 1 layer with enough channels and
  // pixels (winograd_tile in op_convolution.cpp): its constant weights
  // transformed and packed for the Winograd kernel (cpu_math/conv_winograd.h)
  // with output tiles of winograd_tile, for this weight shape, or null. Such
  // a layer has no `packed` matrices.
  const float* winograd = nullptr;
  int64_t winograd_c_out = 0, winograd_c_in = 0, winograd_tile = 0;
  // A 1-D, stride 1, dilation 1, groups 1 layer of 7 to 11 taps with enough
  // channels and outputs (winograd1d_tile in op_convolution.cpp): its constant weights
  // transformed and packed for the 1-D Winograd kernel
  // (cpu_math/conv_winograd1d.h) with output tiles of winograd1d_tile, for
  // this weight shape, or null. Such a layer has no `packed` matrices.
  const float* winograd1d = nullptr;
  int64_t winograd1d_c_out = 0, winograd1d_c_in = 0, winograd1d_k = 0, winograd1d_tile = 0;
  // A pointwise, groups 1 layer over a 1x1 output image (a squeeze-excite
  // layer): its constant weights packed for gemv_panels_avx2
  // (cpu_math/gemv.h), for this weight shape (gemv_m x gemv_k), or null. Such
  // a layer has no `packed` matrices.
  const float* gemv_panels = nullptr;
  int64_t gemv_m = 0, gemv_k = 0;
  // Fused kernels (etr::conv_bn*.fused): the weights and bias with the batch
  // norm folded in (method memory; run uses them instead of the arguments'),
  // and the activation's bounds applied to the output, then SiLU
  // (etr::conv_bn_silu.fused).
  const float* folded_weight = nullptr;
  const float* folded_bias = nullptr;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  bool silu = false;
  // etr::bn_relu_conv_bn_relu.fused: the batch norm before the convolution
  // as a per-input-channel scale and shift (method memory), applied with a
  // clamp at 0 as the GEMM packs the input; null otherwise.
  const float* in_scale = nullptr;
  const float* in_shift = nullptr;
  // The grouped kernel's weights in its order (op_convolution_grouped.cpp),
  // or null; valid for weights of grouped_c_out x grouped_k per group count
  // grouped_groups only.
  const float* grouped_packed = nullptr;
  int64_t grouped_c_out = 0, grouped_k = 0, grouped_groups = 0;
};

// True when every stride is 1 and every padding 0 (the fused 1x1 kernels'
// test of a convolution's arguments).
inline bool unit_stride_no_padding(IntArrayRef stride, IntArrayRef padding) {
  for (size_t i = 0; i < stride.size(); ++i) {
    if (stride[i] != 1) return false;
  }
  for (size_t i = 0; i < padding.size(); ++i) {
    if (padding[i] != 0) return false;
  }
  return true;
}

// The calls the optimized kernels take (Float NCHW, not transposed); fills g.
bool conv_accepts(const Tensor& input, const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool transposed,
                  IntArrayRef output_padding, int64_t groups, const Tensor& out, ConvGeom* g);

// The state for geometry g (method memory); `packable`: constant weights to
// pack for the product that will run (null: none). Null when memory is short.
ConvState* make_conv_state(KernelPrepareContext& ctx, ConvGeom g, const float* packable);

// The convolution with state st; `w` / `b`: the weights and bias to use
// (the arguments', or the folded ones). `post`: an elementwise activation
// applied last (after st's clamp and SiLU), or null: the GEMM paths apply
// it to each block while it is in cache, the others in a pass over out.
// `k_scale` (c_in values, or null): the input's channels scaled first, as
// the GEMM packs them (a pointwise, groups 1, batch 1 convolution only);
// with `k_shift` (c_in values, or null) shifted after the scale and with
// `k_relu` clamped at 0 (GemmArgs::k_shift; these need st's packed weights,
// so that the GEMM packs the input).
void run_conv(KernelContext& ctx, const ConvState* st, const Tensor& input, const Tensor& weight,
              const float* w, const float* b, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups, Tensor& out,
              const opt::UnaryParams* post = nullptr, const float* k_scale = nullptr,
              const float* k_shift = nullptr, bool k_relu = false);

// True when run_conv with state st may write its output over `input` (the
// same memory, the same size): the channel-blocked depthwise kernel at
// stride 1 over whole planes (depthwise_c8_in_place), its scratch for one
// thread free in ctx's temp memory.
bool conv_in_place_ok(KernelContext& ctx, const ConvState* st, const Tensor& input,
                      const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, int64_t groups);

// The direct grouped-convolution path (op_convolution_grouped.cpp): true
// when it takes g (sizes set, oh and ow included).
bool takes_grouped(const ConvGeom& g, bool avx2);
// Packs constant weights (`packable`) for it into method memory and st;
// without the memory, run packs per call.
void prepare_grouped(KernelPrepareContext& ctx, const ConvGeom& g, const float* packable,
                     ConvState* st);
// Runs it and applies st's clamp and SiLU; false (nothing written) when it
// does not take g or temp memory lacks its scratch.
bool run_grouped(KernelContext& ctx, const ConvGeom& g, const ConvState& st, const float* in,
                 const float* weight, const float* bias, float* out);

}  // namespace internal
}  // namespace etr
