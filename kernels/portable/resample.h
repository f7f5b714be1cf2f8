// Resampling of [N, C, H, W] inputs: nearest, bilinear and antialiased
// bilinear resizing (op_upsample.cpp, op_upsample_aa.cpp) and grid sampling
// (op_grid_sampler.cpp). Index and weight rules follow PyTorch's CPU
// kernels; weights are computed in the input's type (uint8 bilinear: in
// PyTorch's fixed point, util/resample_u8.h). Prepare steps check
// dtypes, ranks and the constant mode arguments; run() computes the output
// size, resizes out and samples. Parameters follow the ATen schema in
// order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_upsample.cpp: `scale_factors` is a float list or None (raw EValue).
// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors,
//   *, Tensor(a!) out)
void upsample_nearest2d_vec_out(KernelContext& ctx, const Tensor& input,
                                std::optional<IntArrayRef> output_size, EValue& scale_factors,
                                Tensor& out);
Error upsample_nearest2d_vec_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                     std::optional<IntArrayRef> output_size, EValue& scale_factors,
                                     Tensor& out);
// aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//   float[]? scale_factors, *, Tensor(a!) out)
void upsample_bilinear2d_vec_out(KernelContext& ctx, const Tensor& input,
                                 std::optional<IntArrayRef> output_size, bool align_corners,
                                 EValue& scale_factors, Tensor& out);
Error upsample_bilinear2d_vec_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                      std::optional<IntArrayRef> output_size, bool align_corners,
                                      EValue& scale_factors, Tensor& out);

// ---- op_upsample_aa.cpp
// aten::_upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
//   float? scales_h=None, float? scales_w=None, *, Tensor(a!) out)
void upsample_bilinear2d_aa_out(KernelContext& ctx, const Tensor& input, IntArrayRef output_size,
                                bool align_corners, std::optional<double> scales_h,
                                std::optional<double> scales_w, Tensor& out);
Error upsample_bilinear2d_aa_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                     IntArrayRef output_size, bool align_corners,
                                     std::optional<double> scales_h, std::optional<double> scales_w,
                                     Tensor& out);

// ---- op_grid_sampler.cpp
// aten::grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//   bool align_corners, *, Tensor(a!) out)
void grid_sampler_2d_out(KernelContext& ctx, const Tensor& input, const Tensor& grid,
                         int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                         Tensor& out);
Error grid_sampler_2d_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& grid,
                              int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                              Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kResampleKernels[] = {
    make_kernel<&upsample_nearest2d_vec_out, &upsample_nearest2d_vec_prepare>(
        "aten::upsample_nearest2d.vec_out",
        DtypeSet::of(ScalarType::Byte, ScalarType::Float, ScalarType::Double)),
    make_kernel<&upsample_bilinear2d_vec_out, &upsample_bilinear2d_vec_prepare>(
        "aten::upsample_bilinear2d.vec_out",
        DtypeSet::of(ScalarType::Byte, ScalarType::Float, ScalarType::Double)),
    make_kernel<&upsample_bilinear2d_aa_out, &upsample_bilinear2d_aa_prepare>(
        "aten::_upsample_bilinear2d_aa.out",
        DtypeSet::of(ScalarType::Byte, ScalarType::Float, ScalarType::Double)),
    make_kernel<&grid_sampler_2d_out, &grid_sampler_2d_prepare>("aten::grid_sampler_2d.out",
                                                                kFloatingTypes),
};

}  // namespace etr
