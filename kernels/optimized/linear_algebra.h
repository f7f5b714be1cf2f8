// Optimized matrix products on the GEMM engine (util/gemm.h): mm, bmm, addmm
// and linear for Float in the default dim order (prepare declines everything
// else with NotSupported, which the portable kernels run). Operands that are
// program constants (weights) are packed once at prepare into method memory;
// the others are packed per call from scratch memory.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_matmul.cpp
// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void opt_mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error opt_mm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2,
                     Tensor& out);
// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void opt_bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error opt_bmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2,
                      Tensor& out);
// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//   Tensor(a!) out)
void opt_addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                   Scalar beta, Scalar alpha, Tensor& out);
Error opt_addmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, Scalar beta, Scalar alpha, Tensor& out);
// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
void opt_linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                    const Tensor* bias, Tensor& out);
Error opt_linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor* bias, Tensor& out);
// The fused linear layers of fusion_rules.cpp (a constant
// weight's permute_copy absorbed into the addmm / mm reading it):
// etr::linear.fused(Tensor input, Tensor weight, Tensor? bias, *, Tensor(a!) out)
// runs as aten::linear.out; etr::linear_nobias.fused has no bias argument.
void opt_linear_nobias_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                           Tensor& out);
Error opt_linear_nobias_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor& weight, Tensor& out);
// ---- op_attention.cpp
// nn.MultiheadAttention's self-attention core (fusion_rules.cpp: 30 calls,
// from the packed q/k/v projection to the heads merged back):
// etr::attention.fused(Tensor qkv [L, B, 3, E], Tensor q_rows, Tensor k_rows,
//   Tensor v_rows, Tensor q4, Tensor k4, Tensor v4, Tensor q3, Tensor kt3,
//   Tensor s4, Tensor p3, Tensor v3, Tensor o4 (the group's views, sizes
//   only), int[] expand_q, int[] expand_k, int[] expand_p, int[] expand_v,
//   Scalar scale_q, Scalar scale_k, *, Tensor(a!) out [L, B, H, D])
void opt_attention_out(KernelContext& ctx, const Tensor& qkv, const Tensor& q_rows,
                       const Tensor& k_rows, const Tensor& v_rows, const Tensor& q4,
                       const Tensor& k4, const Tensor& v4, const Tensor& q3, const Tensor& kt3,
                       const Tensor& s4, const Tensor& p3, const Tensor& v3, const Tensor& o4,
                       IntArrayRef expand_q, IntArrayRef expand_k, IntArrayRef expand_p,
                       IntArrayRef expand_v, Scalar scale_q, Scalar scale_k, Tensor& out);
Error opt_attention_prepare(KernelPrepareContext& ctx, const Tensor& qkv, const Tensor& q_rows,
                            const Tensor& k_rows, const Tensor& v_rows, const Tensor& q4,
                            const Tensor& k4, const Tensor& v4, const Tensor& q3, const Tensor& kt3,
                            const Tensor& s4, const Tensor& p3, const Tensor& v3, const Tensor& o4,
                            IntArrayRef expand_q, IntArrayRef expand_k, IntArrayRef expand_p,
                            IntArrayRef expand_v, Scalar scale_q, Scalar scale_k, Tensor& out);
// The causal self-attention of a decoder as the exporter writes
// q.transpose(1, 2) @ k.transpose(1, 2).transpose(-2, -1) * scale + mask,
// softmax, @ v.transpose(1, 2), transposed back (fusion_rules.cpp: 16 calls):
// etr::attention_mask.fused(Tensor q [B, L, H, D], Tensor k, Tensor v,
//   Tensor scale (one value), Tensor mask [L, L], Tensor q3, Tensor kt3,
//   Tensor s4, Tensor p3, Tensor v3, Tensor o4 (the group's views, sizes
//   only), int[] expand_q, int[] expand_k, int[] expand_p, int[] expand_v, *,
//   Tensor(a!) out [B, L, H, D])
void opt_attention_mask_out(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                            const Tensor& scale, const Tensor& mask, const Tensor& q3,
                            const Tensor& kt3, const Tensor& s4, const Tensor& p3, const Tensor& v3,
                            const Tensor& o4, IntArrayRef expand_q, IntArrayRef expand_k,
                            IntArrayRef expand_p, IntArrayRef expand_v, Tensor& out);
Error opt_attention_mask_prepare(KernelPrepareContext& ctx, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const Tensor& scale, const Tensor& mask,
                                 const Tensor& q3, const Tensor& kt3, const Tensor& s4,
                                 const Tensor& p3, const Tensor& v3, const Tensor& o4,
                                 IntArrayRef expand_q, IntArrayRef expand_k, IntArrayRef expand_p,
                                 IntArrayRef expand_v, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptLinearAlgebraKernels[] = {
    make_kernel<&opt_mm_out, &opt_mm_prepare>("aten::mm.out", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_bmm_out, &opt_bmm_prepare>("aten::bmm.out", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_addmm_out, &opt_addmm_prepare>("aten::addmm.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_linear_out, &opt_linear_prepare>("aten::linear.out",
                                                      DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_linear_out, &opt_linear_prepare>("etr::linear.fused",
                                                      DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_linear_nobias_out, &opt_linear_nobias_prepare>(
        "etr::linear_nobias.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_attention_out, &opt_attention_prepare>("etr::attention.fused",
                                                            DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_attention_mask_out, &opt_attention_mask_prepare>(
        "etr::attention_mask.fused", DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
