// The optimized library's fusion rules (runtime/kernel/fusion_rule.h): the
// chains of ATen calls its fused kernels (op_conv_bn.cpp, op_matmul.cpp)
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
//   aten::addmm.out        0 bias, 1 mat1, 2 mat2, 3 beta, 4 alpha, 5 out, 6 return
//   aten::mm.out           0 self, 1 mat2, 2 out, 3 return
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

constexpr FusionRule kOptimizedFusionRules[] = {
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
};

#undef ETR_CONV_BN_INPUTS

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
