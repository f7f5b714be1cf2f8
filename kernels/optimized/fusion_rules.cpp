// The optimized library's fusion rules (runtime/kernel/fusion_rule.h): the
// chains of ATen calls its fused kernels (op_conv_bn.cpp, op_matmul.cpp,
// op_softmax.cpp, op_permute_copy.cpp, op_activation.cpp, op_conv_avg_pool.cpp)
// stand in for. Each FusionRule{...} starts with the fused kernel's name and
// then names the steps' operators in order; cmake/selective_build.cmake
// reads those names from this file, so keep other string literals out.
//
// Argument positions are ExecuTorch's out-variant calls, return slot last:
//   aten::convolution.out  0 input, 1 weight, 2 bias, 3 stride, 4 padding,
//                          5 dilation, 6 transposed, 7 output_padding,
//                          8 groups, 9 out, 10 return
//   aten::_native_batch_norm_legit_no_training.out
//                          0 input, 1 weight, 2 bias, 3 running_mean,
//                          4 running_var, 5 momentum, 6 eps, 7 out,
//                          8 save_mean, 9 save_invstd, 10 return
//   aten::relu.out / aten::sigmoid.out        0 self, 1 out, 2 return
//   aten::hardtanh.out     0 self, 1 min_val, 2 max_val, 3 out, 4 return
//   aten::mul.out          0 self, 1 other, 2 out, 3 return
//   aten::permute_copy.out 0 self, 1 dims, 2 out, 3 return
//   aten::add.out          0 self, 1 other, 2 alpha, 3 out, 4 return
//   aten::clamp.out        0 self, 1 min, 2 max, 3 out, 4 return
//   aten::div.out          0 self, 1 other, 2 out, 3 return
//   dim_order_ops::_to_dim_order_copy.out
//                          0 self, 1 non_blocking, 2 dim_order, 3 out, 4 return
//   aten::addmm.out        0 bias, 1 mat1, 2 mat2, 3 beta, 4 alpha, 5 out, 6 return
//   aten::mm.out           0 self, 1 mat2, 2 out, 3 return
//   aten::_softmax.out     0 self, 1 dim, 2 half_to_float, 3 out, 4 return
//   aten::eq.Scalar_out    0 self, 1 other, 2 out, 3 return
//   aten::logical_not.out  0 self, 1 out, 2 return
//   aten::any.out          0 self, 1 dim, 2 keepdim, 3 out, 4 return
//   aten::full_like.out    0 self, 1 fill_value, 2 memory_format, 3 out, 4 return
//   aten::where.self_out   0 condition, 1 self, 2 other, 3 out, 4 return
//   aten::unsqueeze_copy.out / aten::squeeze_copy.dims_out
//                          0 self, 1 dim, 2 out, 3 return
//   dim_order_ops::_clone_dim_order.out
//                          0 self, 1 non_blocking, 2 dim_order, 3 out, 4 return
//   aten::gelu.out         0 self, 1 approximate, 2 out, 3 return
//   aten::cat.out          0 tensors, 1 dim, 2 out, 3 return
//   aten::select_copy.int_out  0 self, 1 dim, 2 index, 3 out, 4 return
//   aten::mul.Scalar_out   0 self, 1 other, 2 out, 3 return
//   aten::expand_copy.out  0 self, 1 size, 2 implicit, 3 out, 4 return
//   aten::bmm.out          0 self, 1 mat2, 2 out, 3 return
//   aten::avg_pool2d.out   0 self, 1 kernel_size, 2 stride, 3 padding,
//                          4 ceil_mode, 5 count_include_pad,
//                          6 divisor_override, 7 out, 8 return
#include <limits>

#include "kernels/optimized/optimized_kernels.h"
#include "runtime/kernel/fusion_rule.h"

namespace etr {
namespace {

constexpr ChainRef conv(int8_t a) { return arg_of(0, a); }
constexpr ChainRef bn(int8_t a) { return arg_of(1, a); }

// Each fused convolution reads the convolution's 9 inputs and the batch
// norm's 6 parameters first (op_conv_bn.cpp); the batch norm is folded into
// the constant weights at prepare.
#define ETR_CONV_BN_INPUTS                                                                        \
  input(conv(0)), input(conv(1)), input(conv(2)), input(conv(3)), input(conv(4)), input(conv(5)), \
      input(conv(6)), input(conv(7)), input(conv(8)), input(bn(1)), input(bn(2)), input(bn(3)),   \
      input(bn(4)), input(bn(5)), input(bn(6))

// The second convolution of an expansion -> depthwise pair (step s, its
// batch norm step s + 1): its inputs but the first, then the batch norm's
// 6 parameters (op_conv_bn.cpp, etr::conv_bn_*_dw.fused).
#define ETR_DW_BN_INPUTS(s)                                                               \
  input(arg_of(s, 1)), input(arg_of(s, 2)), input(arg_of(s, 3)), input(arg_of(s, 4)),     \
      input(arg_of(s, 5)), input(arg_of(s, 6)), input(arg_of(s, 7)), input(arg_of(s, 8)), \
      input(arg_of(s + 1, 1)), input(arg_of(s + 1, 2)), input(arg_of(s + 1, 3)),          \
      input(arg_of(s + 1, 4)), input(arg_of(s + 1, 5)), input(arg_of(s + 1, 6))

// nn.MultiheadAttention's self-attention core as the exporter writes it
// (need_weights=False; steps 0-29 of kAttentionSteps below): the packed
// q/k/v projection x [L, B, 3, E] split into heads, q and k scaled, the
// scores' safe softmax, the product with v and the heads merged back into
// [L, B, H, D]. The plan views between the steps (the exporter's view ops
// have no call) are SameBytes links; the fused kernel reads x and writes
// the result (op_attention.cpp), checking every view's shape at prepare.
constexpr FusionCheck kAttentionChecks[] = {
    {FusionCheckKind::ScalarEquals, arg_of(0, 1), {}, 0, 0.0},           // unsqueeze dim
    {FusionCheckKind::IntListEquals, arg_of(1, 1), {3, 1, 2, 0, 4}, 5},  // to [3, L, B, 1, E]
    {FusionCheckKind::IntListEquals, arg_of(3, 2), {0, 1, 2, 3}, 4},     // contiguous clone
    {FusionCheckKind::ScalarEquals, arg_of(4, 1), {}, 0, 0.0},           // q = x[0]
    {FusionCheckKind::ScalarEquals, arg_of(4, 2), {}, 0, 0.0},
    {FusionCheckKind::ScalarEquals, arg_of(5, 1), {}, 0, 0.0},  // k = x[1]
    {FusionCheckKind::ScalarEquals, arg_of(5, 2), {}, 0, 1.0},
    {FusionCheckKind::ScalarEquals, arg_of(6, 1), {}, 0, 0.0},  // v = x[2]
    {FusionCheckKind::ScalarEquals, arg_of(6, 2), {}, 0, 2.0},
    {FusionCheckKind::IntListEquals, arg_of(7, 1), {1, 0, 2}, 3},  // heads first
    {FusionCheckKind::IntListEquals, arg_of(8, 1), {1, 0, 2}, 3},
    {FusionCheckKind::IntListEquals, arg_of(9, 1), {1, 0, 2}, 3},
    {FusionCheckKind::IntListEquals, arg_of(11, 1), {0, 1, 3, 2}, 4},  // k transposed
    {FusionCheckKind::ScalarEquals, arg_of(16, 1), {}, 0, -1.0},       // softmax dim
    {FusionCheckKind::ScalarEquals, arg_of(16, 2), {}, 0, 0.0},        // half_to_float
    {FusionCheckKind::ScalarEquals, arg_of(17, 1), {}, 0, -std::numeric_limits<double>::infinity()},
    {FusionCheckKind::ScalarEquals, arg_of(19, 1), {}, 0, -1.0},       // any dim
    {FusionCheckKind::ScalarEquals, arg_of(19, 2), {}, 0, 1.0},        // keepdim
    {FusionCheckKind::ScalarEquals, arg_of(21, 1), {}, 0, 0.0},        // full_like 0
    {FusionCheckKind::IntListEquals, arg_of(26, 1), {2, 0, 1, 3}, 4},  // heads merged
    {FusionCheckKind::IntListEquals, arg_of(27, 2), {0, 1, 2, 3}, 4},
    {FusionCheckKind::IntListEquals, arg_of(28, 1), {1, 2, 0, 3}, 4},
    {FusionCheckKind::IntListEquals, arg_of(29, 1), {2, 0, 1, 3}, 4},
};

// A decoder's causal self-attention (nanoGPT's block; kAttentionMask steps
// below): q, k, v [B, L, H, D] (views of a split projection) to heads,
// scores q @ k^T times a one-value scale tensor plus an [L, L] additive mask
// (a constant read through alias_copy), softmax, the product with v and the
// heads merged back ([B, L, H, D], then viewed as [B, L, E]).
constexpr FusionCheck kAttentionMaskChecks[] = {
    {FusionCheckKind::IntListEquals, arg_of(0, 1), {0, 2, 1, 3}, 4},  // q, k, v to heads
    {FusionCheckKind::IntListEquals, arg_of(1, 1), {0, 2, 1, 3}, 4},
    {FusionCheckKind::IntListEquals, arg_of(2, 1), {0, 2, 1, 3}, 4},
    {FusionCheckKind::IntListEquals, arg_of(3, 1), {0, 1, 3, 2}, 4},   // k transposed
    {FusionCheckKind::ScalarEquals, arg_of(9, 2), {}, 0, 1.0},         // add's alpha
    {FusionCheckKind::ScalarEquals, arg_of(10, 1), {}, 0, -1.0},       // softmax dim
    {FusionCheckKind::ScalarEquals, arg_of(10, 2), {}, 0, 0.0},        // half_to_float
    {FusionCheckKind::IntListEquals, arg_of(14, 1), {0, 2, 1, 3}, 4},  // heads merged
    {FusionCheckKind::IntListEquals, arg_of(15, 2), {0, 1, 2, 3}, 4},
};

constexpr FusionRule kOptimizedFusionRules[] = {
    FusionRule{
        "etr::attention.fused",
        {{{"aten::unsqueeze_copy.out", 4},    {"aten::permute_copy.out", 4},
          {"aten::squeeze_copy.dims_out", 4}, {"dim_order_ops::_clone_dim_order.out", 5},
          {"aten::select_copy.int_out", 5},   {"aten::select_copy.int_out", 5},
          {"aten::select_copy.int_out", 5},   {"aten::permute_copy.out", 4},
          {"aten::permute_copy.out", 4},      {"aten::permute_copy.out", 4},
          {"aten::mul.Scalar_out", 4},        {"aten::permute_copy.out", 4},
          {"aten::mul.Scalar_out", 4},        {"aten::expand_copy.out", 5},
          {"aten::expand_copy.out", 5},       {"aten::bmm.out", 4},
          {"aten::_softmax.out", 5},          {"aten::eq.Scalar_out", 4},
          {"aten::logical_not.out", 3},       {"aten::any.out", 5},
          {"aten::logical_not.out", 3},       {"aten::full_like.out", 5},
          {"aten::where.self_out", 5},        {"aten::expand_copy.out", 5},
          {"aten::expand_copy.out", 5},       {"aten::bmm.out", 4},
          {"aten::permute_copy.out", 4},      {"dim_order_ops::_clone_dim_order.out", 5},
          {"aten::permute_copy.out", 4},      {"aten::permute_copy.out", 4}},
         {same(arg_of(1, 0), arg_of(0, 2)),         same(arg_of(2, 0), arg_of(1, 2)),
          same(arg_of(3, 0), arg_of(2, 2)),         same(arg_of(4, 0), arg_of(3, 3)),
          same(arg_of(5, 0), arg_of(3, 3)),         same(arg_of(6, 0), arg_of(3, 3)),
          same_bytes(arg_of(4, 3), arg_of(7, 0)),   same_bytes(arg_of(5, 3), arg_of(8, 0)),
          same_bytes(arg_of(6, 3), arg_of(9, 0)),   same_bytes(arg_of(7, 2), arg_of(10, 0)),
          same_bytes(arg_of(8, 2), arg_of(11, 0)),  same(arg_of(12, 0), arg_of(11, 2)),
          same(arg_of(13, 0), arg_of(10, 2)),       same(arg_of(14, 0), arg_of(12, 2)),
          same_bytes(arg_of(13, 3), arg_of(15, 0)), same_bytes(arg_of(14, 3), arg_of(15, 1)),
          same_bytes(arg_of(15, 2), arg_of(16, 0)), same(arg_of(17, 0), arg_of(16, 0)),
          same(arg_of(18, 0), arg_of(17, 2)),       same(arg_of(19, 0), arg_of(18, 1)),
          same(arg_of(20, 0), arg_of(19, 3)),       same(arg_of(21, 0), arg_of(16, 3)),
          same(arg_of(22, 0), arg_of(20, 1)),       same(arg_of(22, 1), arg_of(21, 3)),
          same(arg_of(22, 2), arg_of(16, 3)),       same(arg_of(23, 0), arg_of(22, 3)),
          same_bytes(arg_of(9, 2), arg_of(24, 0)),  same_bytes(arg_of(23, 3), arg_of(25, 0)),
          same_bytes(arg_of(24, 3), arg_of(25, 1)), same_bytes(arg_of(25, 2), arg_of(26, 0)),
          same(arg_of(27, 0), arg_of(26, 2)),       same(arg_of(28, 0), arg_of(27, 3)),
          same(arg_of(29, 0), arg_of(28, 2))}},
        {input(arg_of(0, 0)),     shape_of(arg_of(7, 0)),  shape_of(arg_of(8, 0)),
         shape_of(arg_of(9, 0)),  shape_of(arg_of(10, 0)), shape_of(arg_of(11, 0)),
         shape_of(arg_of(24, 0)), shape_of(arg_of(15, 0)), shape_of(arg_of(15, 1)),
         shape_of(arg_of(16, 0)), shape_of(arg_of(25, 0)), shape_of(arg_of(25, 1)),
         shape_of(arg_of(26, 0)), input(arg_of(13, 1)),    input(arg_of(14, 1)),
         input(arg_of(23, 1)),    input(arg_of(24, 1)),    input(arg_of(10, 1)),
         input(arg_of(12, 1)),    output(arg_of(29, -2)),  output(arg_of(29, -1))},
        {arg_of(0, 2),  arg_of(1, 2),  arg_of(2, 2),  arg_of(3, 3),  arg_of(4, 3),  arg_of(5, 3),
         arg_of(6, 3),  arg_of(7, 0),  arg_of(7, 2),  arg_of(8, 0),  arg_of(8, 2),  arg_of(9, 0),
         arg_of(9, 2),  arg_of(10, 0), arg_of(10, 2), arg_of(11, 0), arg_of(11, 2), arg_of(12, 2),
         arg_of(13, 3), arg_of(14, 3), arg_of(15, 0), arg_of(15, 1), arg_of(15, 2), arg_of(16, 0),
         arg_of(16, 3), arg_of(17, 2), arg_of(18, 1), arg_of(19, 3), arg_of(20, 1), arg_of(21, 3),
         arg_of(22, 3), arg_of(23, 3), arg_of(24, 0), arg_of(24, 3), arg_of(25, 0), arg_of(25, 1),
         arg_of(25, 2), arg_of(26, 0), arg_of(26, 2), arg_of(27, 3), arg_of(28, 2)},
        {},
        15,
        kAttentionChecks,
        sizeof(kAttentionChecks) / sizeof(kAttentionChecks[0])},
    FusionRule{
        "etr::attention_mask.fused",
        {{{"aten::permute_copy.out", 4},
          {"aten::permute_copy.out", 4},
          {"aten::permute_copy.out", 4},
          {"aten::permute_copy.out", 4},
          {"aten::expand_copy.out", 5},
          {"aten::expand_copy.out", 5},
          {"aten::bmm.out", 4},
          {"aten::mul.out", 4},
          {"aten::alias_copy.out", 3},
          {"aten::add.out", 5},
          {"aten::_softmax.out", 5},
          {"aten::expand_copy.out", 5},
          {"aten::expand_copy.out", 5},
          {"aten::bmm.out", 4},
          {"aten::permute_copy.out", 4},
          {"dim_order_ops::_clone_dim_order.out", 5}},
         {same(arg_of(3, 0), arg_of(1, 2)), same(arg_of(4, 0), arg_of(0, 2)),
          same(arg_of(5, 0), arg_of(3, 2)), same_bytes(arg_of(4, 3), arg_of(6, 0)),
          same_bytes(arg_of(5, 3), arg_of(6, 1)), same_bytes(arg_of(6, 2), arg_of(7, 0)),
          same(arg_of(9, 0), arg_of(7, 2)), same(arg_of(9, 1), arg_of(8, 1)),
          same(arg_of(10, 0), arg_of(9, 3)), same(arg_of(11, 0), arg_of(10, 3)),
          same(arg_of(12, 0), arg_of(2, 2)), same_bytes(arg_of(11, 3), arg_of(13, 0)),
          same_bytes(arg_of(12, 3), arg_of(13, 1)), same_bytes(arg_of(13, 2), arg_of(14, 0)),
          same(arg_of(15, 0), arg_of(14, 2))}},
        {input(arg_of(0, 0)), input(arg_of(1, 0)), input(arg_of(2, 0)), input(arg_of(7, 1)),
         input(arg_of(8, 0)), shape_of(arg_of(6, 0)), shape_of(arg_of(6, 1)),
         shape_of(arg_of(7, 0)), shape_of(arg_of(13, 0)), shape_of(arg_of(13, 1)),
         shape_of(arg_of(14, 0)), input(arg_of(4, 1)), input(arg_of(5, 1)), input(arg_of(11, 1)),
         input(arg_of(12, 1)), output(arg_of(15, -2)), output(arg_of(15, -1))},
        {arg_of(0, 2),  arg_of(1, 2),  arg_of(2, 2),  arg_of(3, 2),  arg_of(4, 3),  arg_of(5, 3),
         arg_of(6, 0),  arg_of(6, 1),  arg_of(6, 2),  arg_of(7, 0),  arg_of(7, 2),  arg_of(8, 1),
         arg_of(9, 3),  arg_of(10, 3), arg_of(11, 3), arg_of(12, 3), arg_of(13, 0), arg_of(13, 1),
         arg_of(13, 2), arg_of(14, 0), arg_of(14, 2)},
        {},
        6,
        kAttentionMaskChecks,
        sizeof(kAttentionMaskChecks) / sizeof(kAttentionMaskChecks[0])},
    // conv -> batch norm -> sigmoid -> mul: SiLU as the exporter writes it,
    // y = bn * sigmoid(bn), the mul's operands in either order.
    FusionRule{"etr::conv_bn_silu.fused",
               {{{"aten::convolution.out", 11},
                 {"aten::_native_batch_norm_legit_no_training.out", 11},
                 {"aten::sigmoid.out", 3},
                 {"aten::mul.out", 4, 0, 1}},
                {same(bn(0), conv(9)), same(arg_of(2, 0), bn(7)), same(arg_of(3, 0), bn(7)),
                 same(arg_of(3, 1), arg_of(2, 1))}},
               {ETR_CONV_BN_INPUTS, scratch(conv(9)), output(arg_of(3, -2)), output(arg_of(3, -1))},
               {conv(9), conv(10), bn(7), bn(8), bn(9), bn(10), arg_of(2, 1), arg_of(2, 2)},
               {},
               0},
    // conv -> batch norm -> hardswish as the exporter decomposes it: s =
    // _to_dim_order_copy(3); t = add(bn, s); clamp(t, 0); clamp(., None, 6);
    // m = mul(bn, .) (either order); d = _to_dim_order_copy(6); div(m, d).
    FusionRule{"etr::conv_bn_hardswish.fused",
               {{{"aten::convolution.out", 11},
                 {"aten::_native_batch_norm_legit_no_training.out", 11},
                 {"dim_order_ops::_to_dim_order_copy.out", 5},
                 {"aten::add.out", 5},
                 {"aten::clamp.out", 5},
                 {"aten::clamp.out", 5},
                 {"aten::mul.out", 4, 0, 1},
                 {"dim_order_ops::_to_dim_order_copy.out", 5},
                 {"aten::div.out", 4}},
                {same(bn(0), conv(9)), same(arg_of(3, 0), bn(7)), same(arg_of(3, 1), arg_of(2, 3)),
                 same(arg_of(4, 0), arg_of(3, 3)), same(arg_of(5, 0), arg_of(4, 3)),
                 same(arg_of(6, 0), bn(7)), same(arg_of(6, 1), arg_of(5, 3)),
                 same(arg_of(8, 0), arg_of(6, 2)), same(arg_of(8, 1), arg_of(7, 3))}},
               {ETR_CONV_BN_INPUTS, input(arg_of(2, 0)), input(arg_of(4, 1)), input(arg_of(4, 2)),
                input(arg_of(5, 1)), input(arg_of(5, 2)), input(arg_of(7, 0)), scratch(conv(9)),
                output(arg_of(8, -2)), output(arg_of(8, -1))},
               {conv(9), conv(10), bn(7), bn(8), bn(9), bn(10), arg_of(2, 3), arg_of(2, 4),
                arg_of(3, 3), arg_of(3, 4), arg_of(4, 3), arg_of(4, 4), arg_of(5, 3), arg_of(5, 4),
                arg_of(6, 2), arg_of(6, 3), arg_of(7, 3), arg_of(7, 4)},
               {{FusionCheckKind::ScalarEquals, arg_of(3, 2), {}, 0, 1.0}},
               0},
    // Squeeze-excite: mul(x, s) (s [1, C, 1, 1], either order) -> conv ->
    // batch norm; the product goes into the convolution's input packing.
    // The mul's output (live across the mul, so apart from its inputs) is
    // the scratch. Named after the convolution.
    FusionRule{
        "etr::mul_conv_bn.fused",
        {{{"aten::mul.out", 4, 0, 1},
          {"aten::convolution.out", 11},
          {"aten::_native_batch_norm_legit_no_training.out", 11}},
         {same(arg_of(1, 0), arg_of(0, 2)), same(arg_of(2, 0), arg_of(1, 9))}},
        {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(1, 1)), input(arg_of(1, 2)),
         input(arg_of(1, 3)), input(arg_of(1, 4)), input(arg_of(1, 5)), input(arg_of(1, 6)),
         input(arg_of(1, 7)), input(arg_of(1, 8)), input(arg_of(2, 1)), input(arg_of(2, 2)),
         input(arg_of(2, 3)), input(arg_of(2, 4)), input(arg_of(2, 5)), input(arg_of(2, 6)),
         scratch(arg_of(0, 2)), output(arg_of(2, 7)), output(arg_of(2, 10))},
        {arg_of(0, 2), arg_of(0, 3), arg_of(1, 9), arg_of(1, 10), arg_of(2, 8), arg_of(2, 9)},
        {},
        1},
    // The expansion and depthwise of an inverted-residual block
    // (MobileNetV2): conv -> batch norm -> hardtanh -> conv -> batch norm ->
    // hardtanh, the second convolution reading the first hardtanh's output.
    // The first convolution's output is the scratch.
    FusionRule{
        "etr::conv_bn_hardtanh_dw.fused",
        {{{"aten::convolution.out", 11},
          {"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::hardtanh.out", 5},
          {"aten::convolution.out", 11},
          {"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::hardtanh.out", 5}},
         {same(bn(0), conv(9)), same(arg_of(2, 0), bn(7)), same(arg_of(3, 0), arg_of(2, 3)),
          same(arg_of(4, 0), arg_of(3, 9)), same(arg_of(5, 0), arg_of(4, 7))}},
        {ETR_CONV_BN_INPUTS, input(arg_of(2, 1)), input(arg_of(2, 2)), ETR_DW_BN_INPUTS(3),
         input(arg_of(5, 1)), input(arg_of(5, 2)), scratch(conv(9)), output(arg_of(5, -2)),
         output(arg_of(5, -1))},
        {conv(9), conv(10), bn(7), bn(8), bn(9), bn(10), arg_of(2, 3), arg_of(2, 4), arg_of(3, 9),
         arg_of(3, 10), arg_of(4, 7), arg_of(4, 8), arg_of(4, 9), arg_of(4, 10)},
        {},
        3},
    // The same with ReLU (MobileNetV3's first blocks).
    FusionRule{
        "etr::conv_bn_relu_dw.fused",
        {{{"aten::convolution.out", 11},
          {"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::relu.out", 3},
          {"aten::convolution.out", 11},
          {"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::relu.out", 3}},
         {same(bn(0), conv(9)), same(arg_of(2, 0), bn(7)), same(arg_of(3, 0), arg_of(2, 1)),
          same(arg_of(4, 0), arg_of(3, 9)), same(arg_of(5, 0), arg_of(4, 7))}},
        {ETR_CONV_BN_INPUTS, ETR_DW_BN_INPUTS(3), scratch(conv(9)), output(arg_of(5, -2)),
         output(arg_of(5, -1))},
        {conv(9), conv(10), bn(7), bn(8), bn(9), bn(10), arg_of(2, 1), arg_of(2, 2), arg_of(3, 9),
         arg_of(3, 10), arg_of(4, 7), arg_of(4, 8), arg_of(4, 9), arg_of(4, 10)},
        {},
        3},
    // conv -> batch norm -> relu.
    FusionRule{"etr::conv_bn_relu.fused",
               {{{"aten::convolution.out", 11},
                 {"aten::_native_batch_norm_legit_no_training.out", 11},
                 {"aten::relu.out", 3}},
                {same(bn(0), conv(9)), same(arg_of(2, 0), bn(7))}},
               {ETR_CONV_BN_INPUTS, scratch(conv(9)), output(arg_of(2, -2)), output(arg_of(2, -1))},
               {conv(9), conv(10), bn(7), bn(8), bn(9), bn(10)},
               {},
               0},
    // conv -> batch norm -> hardtanh (ReLU6 and friends): the bounds follow
    // the batch norm's parameters.
    FusionRule{"etr::conv_bn_hardtanh.fused",
               {{{"aten::convolution.out", 11},
                 {"aten::_native_batch_norm_legit_no_training.out", 11},
                 {"aten::hardtanh.out", 5}},
                {same(bn(0), conv(9)), same(arg_of(2, 0), bn(7))}},
               {ETR_CONV_BN_INPUTS, input(arg_of(2, 1)), input(arg_of(2, 2)), scratch(conv(9)),
                output(arg_of(2, -2)), output(arg_of(2, -1))},
               {conv(9), conv(10), bn(7), bn(8), bn(9), bn(10)},
               {},
               0},
    // conv -> batch norm (also when the batch norm's output is read elsewhere
    // and a longer rule failed).
    FusionRule{
        "etr::conv_bn.fused",
        {{{"aten::convolution.out", 11}, {"aten::_native_batch_norm_legit_no_training.out", 11}},
         {same(bn(0), conv(9))}},
        {ETR_CONV_BN_INPUTS, scratch(conv(9)), output(bn(7)), output(bn(10))},
        {conv(9), conv(10), bn(8), bn(9)},
        {},
        0},
    // batch norm -> relu -> conv -> batch norm -> relu (a DenseNet's
    // pre-activation and bottleneck convolution): the first batch norm and
    // relu go into the convolution's input packing. The first batch norm's
    // output (apart from the input) is the scratch. Named after the
    // convolution.
    FusionRule{
        "etr::bn_relu_conv_bn_relu.fused",
        {{{"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::relu.out", 3},
          {"aten::convolution.out", 11},
          {"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::relu.out", 3}},
         {same(arg_of(1, 0), arg_of(0, 7)), same(arg_of(2, 0), arg_of(1, 1)),
          same(arg_of(3, 0), arg_of(2, 9)), same(arg_of(4, 0), arg_of(3, 7))}},
        {input(arg_of(0, 0)), input(arg_of(0, 1)),   input(arg_of(0, 2)),   input(arg_of(0, 3)),
         input(arg_of(0, 4)), input(arg_of(0, 5)),   input(arg_of(0, 6)),   input(arg_of(2, 1)),
         input(arg_of(2, 2)), input(arg_of(2, 3)),   input(arg_of(2, 4)),   input(arg_of(2, 5)),
         input(arg_of(2, 6)), input(arg_of(2, 7)),   input(arg_of(2, 8)),   input(arg_of(3, 1)),
         input(arg_of(3, 2)), input(arg_of(3, 3)),   input(arg_of(3, 4)),   input(arg_of(3, 5)),
         input(arg_of(3, 6)), scratch(arg_of(0, 7)), output(arg_of(4, -2)), output(arg_of(4, -1))},
        {arg_of(0, 7), arg_of(0, 8), arg_of(0, 9), arg_of(0, 10), arg_of(1, 1), arg_of(1, 2),
         arg_of(2, 9), arg_of(2, 10), arg_of(3, 7), arg_of(3, 8), arg_of(3, 9), arg_of(3, 10)},
        {},
        2},
    // conv -> avg_pool2d (a DenseNet's transition layer): prepare takes a 1x1
    // convolution and a 2x2 stride-2 window only, and pools first. The
    // convolution's output is the scratch (it holds the pooled input).
    FusionRule{"etr::conv_avg_pool.fused",
               {{{"aten::convolution.out", 11}, {"aten::avg_pool2d.out", 9}},
                {same(arg_of(1, 0), conv(9))}},
               {input(conv(0)), input(conv(1)), input(conv(2)), input(conv(3)), input(conv(4)),
                input(conv(5)), input(conv(6)), input(conv(7)), input(conv(8)), input(arg_of(1, 1)),
                input(arg_of(1, 2)), input(arg_of(1, 3)), input(arg_of(1, 4)), input(arg_of(1, 5)),
                input(arg_of(1, 6)), scratch(conv(9)), output(arg_of(1, 7)), output(arg_of(1, 8))},
               {conv(9), conv(10)},
               {},
               0},
    // Hardswish as the exporter decomposes it (MobileNetV3):
    //   t = add(x, s) (s a 0-dim 3.0); clamp(t, 0); clamp(., None, 6);
    //   m = mul(x, .) (either order); d = _to_dim_order_copy(6); div(m, d)
    // in one pass over x. The copy feeding the add comes before the chain
    // and stays.
    FusionRule{"etr::hardswish.fused",
               {{{"aten::add.out", 5},
                 {"aten::clamp.out", 5},
                 {"aten::clamp.out", 5},
                 {"aten::mul.out", 4, 0, 1},
                 {"dim_order_ops::_to_dim_order_copy.out", 5},
                 {"aten::div.out", 4}},
                {same(arg_of(1, 0), arg_of(0, 3)), same(arg_of(2, 0), arg_of(1, 3)),
                 same(arg_of(3, 0), arg_of(0, 0)), same(arg_of(3, 1), arg_of(2, 3)),
                 same(arg_of(5, 0), arg_of(3, 2)), same(arg_of(5, 1), arg_of(4, 3))}},
               {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(1, 1)), input(arg_of(1, 2)),
                input(arg_of(2, 1)), input(arg_of(2, 2)), input(arg_of(4, 0)), output(arg_of(5, 2)),
                output(arg_of(5, 3))},
               {arg_of(0, 3), arg_of(0, 4), arg_of(1, 3), arg_of(1, 4), arg_of(2, 3), arg_of(2, 4),
                arg_of(3, 2), arg_of(3, 3), arg_of(4, 3), arg_of(4, 4)},
               {{FusionCheckKind::ScalarEquals, arg_of(0, 2), {}, 0, 1.0}},
               0},
    // cat along channels -> batch norm -> relu (a DenseNet's dense layer
    // input): the concatenation is never written. The cat's output (apart
    // from its inputs) is the scratch.
    FusionRule{
        "etr::cat_batch_norm_relu.fused",
        {{{"aten::cat.out", 4},
          {"aten::_native_batch_norm_legit_no_training.out", 11},
          {"aten::relu.out", 3}},
         {same(arg_of(1, 0), arg_of(0, 2)), same(arg_of(2, 0), arg_of(1, 7))}},
        {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(1, 1)), input(arg_of(1, 2)),
         input(arg_of(1, 3)), input(arg_of(1, 4)), input(arg_of(1, 5)), input(arg_of(1, 6)),
         scratch(arg_of(0, 2)), output(arg_of(2, -2)), output(arg_of(2, -1))},
        {arg_of(0, 2), arg_of(0, 3), arg_of(1, 7), arg_of(1, 8), arg_of(1, 9), arg_of(1, 10)},
        {},
        1},
    // batch norm -> relu without a convolution before it (a DenseNet's
    // pre-activation): one pass over the tensor instead of two.
    FusionRule{"etr::batch_norm_relu.fused",
               {{{"aten::_native_batch_norm_legit_no_training.out", 11}, {"aten::relu.out", 3}},
                {same(arg_of(1, 0), arg_of(0, 7))}},
               {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(0, 2)), input(arg_of(0, 3)),
                input(arg_of(0, 4)), input(arg_of(0, 5)), input(arg_of(0, 6)),
                output(arg_of(1, -2)), output(arg_of(1, -1))},
               {arg_of(0, 7), arg_of(0, 8), arg_of(0, 9), arg_of(0, 10)},
               {},
               0},
    // A linear layer: permute_copy(W, [1, 0]) -> addmm(bias, x, W^T) with
    // beta = alpha = 1, W a constant 2-D weight. The product reads W
    // transposed in place (packed once at prepare), so the per-run copy of
    // the transpose disappears. W^T is the product's second operand and
    // nothing else of it.
    FusionRule{"etr::linear.fused",
               {{{"aten::permute_copy.out", 4}, {"aten::addmm.out", 7}},
                {same(arg_of(1, 2), arg_of(0, 2)), different(arg_of(1, 0), arg_of(0, 2)),
                 different(arg_of(1, 1), arg_of(0, 2)), different(arg_of(1, -2), arg_of(0, 2))}},
               {input(arg_of(1, 1)), input(arg_of(0, 0)), input(arg_of(1, 0)),
                output(arg_of(1, -2)), output(arg_of(1, -1))},
               {arg_of(0, 2), arg_of(0, 3)},
               {{FusionCheckKind::ConstantTensor2D, arg_of(0, 0)},
                {FusionCheckKind::IntListEquals, arg_of(0, 1), {1, 0}, 2},
                {FusionCheckKind::ScalarEquals, arg_of(1, 3), {}, 0, 1.0},
                {FusionCheckKind::ScalarEquals, arg_of(1, 4), {}, 0, 1.0}},
               1},
    // The same without a bias: permute_copy(W, [1, 0]) -> mm(x, W^T).
    FusionRule{
        "etr::linear_nobias.fused",
        {{{"aten::permute_copy.out", 4}, {"aten::mm.out", 4}},
         {same(arg_of(1, 1), arg_of(0, 2)), different(arg_of(1, 0), arg_of(0, 2)),
          different(arg_of(1, -2), arg_of(0, 2))}},
        {input(arg_of(1, 0)), input(arg_of(0, 0)), output(arg_of(1, -2)), output(arg_of(1, -1))},
        {arg_of(0, 2), arg_of(0, 3)},
        {{FusionCheckKind::ConstantTensor2D, arg_of(0, 0)},
         {FusionCheckKind::IntListEquals, arg_of(0, 1), {1, 0}, 2}},
        1},
    // Softmax with fully masked rows set to zero, as the exporter decomposes
    // PyTorch's _safe_softmax (nn.MultiheadAttention):
    //   s = softmax(x, d); m = eq(x, -inf); all = not(any(not(m), d, keepdim))
    //   y = where(all, full_like(s, 0), s)
    // The fused kernel computes the softmax and writes zeros for rows that
    // are -inf throughout; its prepare checks that d is the last dim for both
    // the softmax and the any. The softmax's own output is its scratch (for
    // a memory plan that put the result over x).
    FusionRule{"etr::safe_softmax.fused",
               {{{"aten::_softmax.out", 5},
                 {"aten::eq.Scalar_out", 4},
                 {"aten::logical_not.out", 3},
                 {"aten::any.out", 5},
                 {"aten::logical_not.out", 3},
                 {"aten::full_like.out", 5},
                 {"aten::where.self_out", 5}},
                {same(arg_of(1, 0), arg_of(0, 0)), same(arg_of(2, 0), arg_of(1, 2)),
                 same(arg_of(3, 0), arg_of(2, 1)), same(arg_of(4, 0), arg_of(3, 3)),
                 same(arg_of(5, 0), arg_of(0, 3)), same(arg_of(6, 0), arg_of(4, 1)),
                 same(arg_of(6, 1), arg_of(5, 3)), same(arg_of(6, 2), arg_of(0, 3))}},
               {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(0, 2)), input(arg_of(3, 1)),
                scratch(arg_of(0, 3)), output(arg_of(6, -2)), output(arg_of(6, -1))},
               {arg_of(0, 3), arg_of(0, 4), arg_of(1, 2), arg_of(1, 3), arg_of(2, 1), arg_of(2, 2),
                arg_of(3, 3), arg_of(3, 4), arg_of(4, 1), arg_of(4, 2), arg_of(5, 3), arg_of(5, 4)},
               {{FusionCheckKind::ScalarEquals,
                 arg_of(1, 1),
                 {},
                 0,
                 -std::numeric_limits<double>::infinity()},
                {FusionCheckKind::ScalarEquals, arg_of(3, 2), {}, 0, 1.0},
                {FusionCheckKind::ScalarEquals, arg_of(5, 1), {}, 0, 0.0}},
               0},
    // The same guard around a softmax computed elsewhere (a delegate's
    // output s of scores x), in the two orders the exporter writes it:
    //   where(not(any(not(eq(x, -inf)), d, keepdim)), full_like(s, 0), s)
    // The fused kernel copies s with the rows of x that are -inf throughout
    // zeroed.
    FusionRule{"etr::softmax_guard.fused",
               {{{"aten::eq.Scalar_out", 4},
                 {"aten::full_like.out", 5},
                 {"aten::logical_not.out", 3},
                 {"aten::any.out", 5},
                 {"aten::logical_not.out", 3},
                 {"aten::where.self_out", 5}},
                {same(arg_of(2, 0), arg_of(0, 2)), same(arg_of(3, 0), arg_of(2, 1)),
                 same(arg_of(4, 0), arg_of(3, 3)), same(arg_of(5, 0), arg_of(4, 1)),
                 same(arg_of(5, 1), arg_of(1, 3)), same(arg_of(5, 2), arg_of(1, 0))}},
               {input(arg_of(0, 0)), input(arg_of(1, 0)), input(arg_of(3, 1)),
                output(arg_of(5, -2)), output(arg_of(5, -1))},
               {arg_of(0, 2), arg_of(0, 3), arg_of(1, 3), arg_of(1, 4), arg_of(2, 1), arg_of(2, 2),
                arg_of(3, 3), arg_of(3, 4), arg_of(4, 1), arg_of(4, 2)},
               {{FusionCheckKind::ScalarEquals,
                 arg_of(0, 1),
                 {},
                 0,
                 -std::numeric_limits<double>::infinity()},
                {FusionCheckKind::ScalarEquals, arg_of(3, 2), {}, 0, 1.0},
                {FusionCheckKind::ScalarEquals, arg_of(1, 1), {}, 0, 0.0}},
               5},
    FusionRule{"etr::softmax_guard.fused",
               {{{"aten::eq.Scalar_out", 4},
                 {"aten::logical_not.out", 3},
                 {"aten::any.out", 5},
                 {"aten::logical_not.out", 3},
                 {"aten::full_like.out", 5},
                 {"aten::where.self_out", 5}},
                {same(arg_of(1, 0), arg_of(0, 2)), same(arg_of(2, 0), arg_of(1, 1)),
                 same(arg_of(3, 0), arg_of(2, 3)), same(arg_of(5, 0), arg_of(3, 1)),
                 same(arg_of(5, 1), arg_of(4, 3)), same(arg_of(5, 2), arg_of(4, 0))}},
               {input(arg_of(0, 0)), input(arg_of(4, 0)), input(arg_of(2, 1)),
                output(arg_of(5, -2)), output(arg_of(5, -1))},
               {arg_of(0, 2), arg_of(0, 3), arg_of(1, 1), arg_of(1, 2), arg_of(2, 3), arg_of(2, 4),
                arg_of(3, 1), arg_of(3, 2), arg_of(4, 3), arg_of(4, 4)},
               {{FusionCheckKind::ScalarEquals,
                 arg_of(0, 1),
                 {},
                 0,
                 -std::numeric_limits<double>::infinity()},
                {FusionCheckKind::ScalarEquals, arg_of(2, 2), {}, 0, 1.0},
                {FusionCheckKind::ScalarEquals, arg_of(4, 1), {}, 0, 0.0}},
               5},
    // The exporter's split of a packed q/k/v projection into heads:
    // unsqueeze_copy -> permute_copy -> squeeze_copy.dims -> clone, one
    // permute of the input into the clone's output (the unsqueeze's output
    // is scratch memory for a plan that put the clone's over the input).
    FusionRule{
        "etr::unsqueeze_permute_squeeze.fused",
        {{{"aten::unsqueeze_copy.out", 4},
          {"aten::permute_copy.out", 4},
          {"aten::squeeze_copy.dims_out", 4},
          {"dim_order_ops::_clone_dim_order.out", 5}},
         {same(arg_of(1, 0), arg_of(0, 2)), same(arg_of(2, 0), arg_of(1, 2)),
          same(arg_of(3, 0), arg_of(2, 2))}},
        {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(1, 1)), input(arg_of(2, 1)),
         input(arg_of(3, 2)), scratch(arg_of(0, 2)), output(arg_of(3, -2)), output(arg_of(3, -1))},
        {arg_of(0, 2), arg_of(0, 3), arg_of(1, 2), arg_of(1, 3), arg_of(2, 2), arg_of(2, 3)},
        {},
        1},
    // The attention heads merged back: permute_copy -> clone -> permute_copy
    // -> permute_copy, one permute by the composed dims (the first permute's
    // output is scratch memory as above).
    FusionRule{
        "etr::permute_clone_permute_permute.fused",
        {{{"aten::permute_copy.out", 4},
          {"dim_order_ops::_clone_dim_order.out", 5},
          {"aten::permute_copy.out", 4},
          {"aten::permute_copy.out", 4}},
         {same(arg_of(1, 0), arg_of(0, 2)), same(arg_of(2, 0), arg_of(1, 3)),
          same(arg_of(3, 0), arg_of(2, 2))}},
        {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(1, 2)), input(arg_of(2, 1)),
         input(arg_of(3, 1)), scratch(arg_of(0, 2)), output(arg_of(3, -2)), output(arg_of(3, -1))},
        {arg_of(0, 2), arg_of(0, 3), arg_of(1, 3), arg_of(1, 4), arg_of(2, 2), arg_of(2, 3)},
        {},
        0},
    // gelu -> clone: the GELU written into the clone's output (or into the
    // gelu's own, then moved, when the plan put the clone's over the input).
    FusionRule{"etr::gelu_clone.fused",
               {{{"aten::gelu.out", 4}, {"dim_order_ops::_clone_dim_order.out", 5}},
                {same(arg_of(1, 0), arg_of(0, 2))}},
               {input(arg_of(0, 0)), input(arg_of(0, 1)), input(arg_of(1, 2)),
                scratch(arg_of(0, 2)), output(arg_of(1, -2)), output(arg_of(1, -1))},
               {arg_of(0, 2), arg_of(0, 3)},
               {},
               0},
};

#undef ETR_CONV_BN_INPUTS
#undef ETR_DW_BN_INPUTS

constexpr bool all_rules_valid() {
  for (const FusionRule& r : kOptimizedFusionRules) {
    if (!fusion_rule_valid(r)) return false;
  }
  return true;
}
static_assert(all_rules_valid(), "a fusion rule refers to an argument its steps lack");

}  // namespace

Span<const FusionRule> optimized_fusion_rules() {
  return {kOptimizedFusionRules, sizeof(kOptimizedFusionRules) / sizeof(kOptimizedFusionRules[0])};
}

}  // namespace etr
