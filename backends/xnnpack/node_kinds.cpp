// The node-kind table: one entry per XNodeUnion type code, in code order.
// Columns: kind, name, parse, check (XNNPACK's run), infer (output shape),
// define (XNNPACK), native hooks.
#include "backends/xnnpack/node_kinds.h"

#include "backends/xnnpack/node_hooks.h"

namespace etr {
namespace xnnpack {
namespace {

using K = NodeKind;

const NodeKindDesc kTable[] = {
    {K::Add, "Add", parse_2x1, check_broadcast, infer_broadcast, define_add, &kAddNative},
    {K::FullyConnected, "FullyConnected", parse_fully_connected, check_fully_connected,
     infer_fully_connected, define_fully_connected, &kFullyConnectedNative},
    {K::Softmax, "Softmax", parse_1x1, check_softmax, infer_same_shape, define_softmax,
     &kSoftmaxNative},
    {K::Sigmoid, "Sigmoid", parse_1x1, check_same_shape, infer_same_shape, define_sigmoid,
     &kSigmoidNative},
    {K::StaticTranspose, "StaticTranspose", parse_transpose, nullptr, infer_transpose, nullptr,
     &kTransposeNative},
    {K::Clamp, "Clamp", parse_1x1, check_same_shape, infer_same_shape, define_clamp, &kClampNative},
    {K::Conv2d, "Conv2d", parse_conv, check_conv2d, infer_conv, define_conv2d, &kConv2dNative},
    {K::Div, "Div", parse_2x1, check_broadcast, infer_broadcast, define_divide, nullptr},
    {K::StaticResizeBilinear2D, "StaticResizeBilinear2D", parse_resize, check_resize, infer_resize,
     define_resize, nullptr},
    {K::StaticConstantPad, "StaticConstantPad", parse_pad, check_pad, infer_pad, define_pad,
     nullptr},
    {K::AvgPooling2d, "AvgPooling2d", parse_pool, check_avg_pool, infer_avg_pool, define_avg_pool,
     nullptr},
    {K::Minimum, "Minimum", parse_2x1, check_broadcast, infer_broadcast, define_minimum, nullptr},
    {K::DepthwiseConv2d, "DepthwiseConv2d", parse_conv, check_depthwise_conv2d, infer_conv,
     define_depthwise_conv2d, &kDepthwiseConv2dNative},
    {K::MaxPooling2d, "MaxPooling2d", parse_pool, check_max_pool, infer_max_pool, define_max_pool,
     nullptr},
    {K::Multiply, "Multiply", parse_2x1, check_broadcast, infer_broadcast, define_multiply,
     &kMultiplyNative},
    {K::Subtract, "Subtract", parse_2x1, check_broadcast, infer_broadcast, define_subtract,
     nullptr},
    {K::Floor, "Floor", parse_1x1, check_same_shape, infer_same_shape, define_floor, nullptr},
    {K::Convert, "Convert", parse_1x1, check_same_shape, infer_same_shape, define_convert,
     &kConvertNative},
    {K::GlobalAvgPooling2d, "GlobalAvgPooling2d", parse_1x1, check_global_avg_pool,
     infer_global_avg_pool, define_global_avg_pool, &kGlobalAvgPoolNative},
    {K::StaticReshape, "StaticReshape", parse_reshape, check_reshape, infer_reshape, define_reshape,
     &kReshapeNative},
    {K::ArgMaxPooling2d, "ArgMaxPooling2d", parse_argmax_pool, check_argmax_pool, nullptr,
     define_argmax_pool, nullptr},
    {K::SquareRoot, "SquareRoot", parse_1x1, check_same_shape, infer_same_shape, define_square_root,
     nullptr},
    {K::Ceiling, "Ceiling", parse_1x1, check_same_shape, infer_same_shape, define_ceiling, nullptr},
    {K::Hardswish, "Hardswish", parse_1x1, check_same_shape, infer_same_shape, define_hardswish,
     nullptr},
    {K::LeakyReLU, "LeakyReLU", parse_leaky_relu, check_same_shape, infer_same_shape,
     define_leaky_relu, nullptr},
    {K::Maximum, "Maximum", parse_2x1, check_broadcast, infer_broadcast, define_maximum, nullptr},
    {K::Negate, "Negate", parse_1x1, check_same_shape, infer_same_shape, define_negate, nullptr},
    {K::Square, "Square", parse_1x1, check_same_shape, infer_same_shape, define_square, nullptr},
    {K::ELU, "ELU", parse_elu, check_same_shape, infer_same_shape, define_elu, nullptr},
    {K::Abs, "Abs", parse_1x1, check_same_shape, infer_same_shape, define_abs, nullptr},
    {K::PReLU, "PReLU", parse_2x1, check_prelu, infer_same_shape, define_prelu, nullptr},
    {K::Concatenate2, "Concatenate2", parse_concat2, nullptr, infer_concat, nullptr,
     &kConcatNative},
    {K::Concatenate3, "Concatenate3", parse_concat3, nullptr, infer_concat, nullptr,
     &kConcatNative},
    {K::Concatenate4, "Concatenate4", parse_concat4, nullptr, infer_concat, nullptr,
     &kConcatNative},
    {K::StaticSlice, "StaticSlice", parse_slice, nullptr, infer_slice, nullptr, &kSliceNative},
    {K::ScaledDotProductAttention, "ScaledDotProductAttention", parse_sdpa, nullptr, nullptr,
     nullptr, &kSdpaNative},
    {K::BatchMatrixMultiply, "BatchMatrixMultiply", parse_2x1, nullptr, infer_batch_matmul, nullptr,
     &kBatchMatmulNative},
    {K::Concatenate5, "Concatenate5", parse_concat5, nullptr, infer_concat, nullptr,
     &kConcatNative},
    {K::ConvTranspose2d, "ConvTranspose2d", parse_conv, check_conv_transpose2d, nullptr,
     define_conv_transpose2d, nullptr},
    {K::ReciprocalSquareRoot, "ReciprocalSquareRoot", parse_1x1, nullptr, infer_same_shape, nullptr,
     &kRsqrtNative},
    {K::Log, "Log", parse_1x1, nullptr, infer_same_shape, nullptr, &kLogNative},
    {K::Gelu, "Gelu", parse_1x1, nullptr, infer_same_shape, nullptr, &kGeluNative},
    {K::Tanh, "Tanh", parse_1x1, nullptr, infer_same_shape, nullptr, &kTanhNative},
    {K::Exp, "Exp", parse_1x1, nullptr, infer_same_shape, nullptr, &kExpNative},
    {K::Sin, "Sin", parse_1x1, nullptr, infer_same_shape, nullptr, &kSinNative},
    {K::Copy, "Copy", parse_1x1, nullptr, infer_same_shape, nullptr, &kCopyNative},
    {K::Cos, "Cos", parse_1x1, nullptr, infer_same_shape, nullptr, &kCosNative},
};

constexpr size_t kTableSize = sizeof(kTable) / sizeof(kTable[0]);
static_assert(kTableSize == kMaxNodeKindCode, "one descriptor per XNodeUnion type code");

}  // namespace

const NodeKindDesc* find_node_kind(uint32_t code) {
  if (code == 0 || code > kTableSize) return nullptr;
  const NodeKindDesc* d = &kTable[code - 1];
  return static_cast<uint32_t>(d->kind) == code ? d : nullptr;  // in code order (a test checks it)
}

Span<const NodeKindDesc> node_kind_table() { return Span<const NodeKindDesc>(kTable, kTableSize); }

}  // namespace xnnpack
}  // namespace etr
