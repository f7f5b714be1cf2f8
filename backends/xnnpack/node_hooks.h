// The hooks the node-kind table (node_kinds.cpp) points at, by family and
// by the file that defines them. Internal to the delegate.
#pragma once

#include "backends/xnnpack/native_nodes.h"
#include "backends/xnnpack/node_kinds.h"

namespace etr {
namespace xnnpack {

// node_parse.cpp: flatbuffer table -> Node.
Error parse_1x1(const ParseContext& ctx, const void* table, Node* n);
Error parse_2x1(const ParseContext& ctx, const void* table, Node* n);
Error parse_fully_connected(const ParseContext& ctx, const void* table, Node* n);
Error parse_conv(const ParseContext& ctx, const void* table, Node* n);
Error parse_pool(const ParseContext& ctx, const void* table, Node* n);
Error parse_argmax_pool(const ParseContext& ctx, const void* table, Node* n);
Error parse_transpose(const ParseContext& ctx, const void* table, Node* n);
Error parse_resize(const ParseContext& ctx, const void* table, Node* n);
Error parse_pad(const ParseContext& ctx, const void* table, Node* n);
Error parse_reshape(const ParseContext& ctx, const void* table, Node* n);
Error parse_slice(const ParseContext& ctx, const void* table, Node* n);
Error parse_concat2(const ParseContext& ctx, const void* table, Node* n);
Error parse_concat3(const ParseContext& ctx, const void* table, Node* n);
Error parse_concat4(const ParseContext& ctx, const void* table, Node* n);
Error parse_concat5(const ParseContext& ctx, const void* table, Node* n);
Error parse_sdpa(const ParseContext& ctx, const void* table, Node* n);
Error parse_leaky_relu(const ParseContext& ctx, const void* table, Node* n);
Error parse_elu(const ParseContext& ctx, const void* table, Node* n);

// node_checks.cpp: shape and dtype rules of XNNPACK's run.
Error check_broadcast(const Values& g, const Node& n, size_t d);
Error check_prelu(const Values& g, const Node& n, size_t d);
Error check_softmax(const Values& g, const Node& n, size_t d);
Error check_same_shape(const Values& g, const Node& n, size_t d);
Error check_fully_connected(const Values& g, const Node& n, size_t d);
Error check_conv2d(const Values& g, const Node& n, size_t d);
Error check_depthwise_conv2d(const Values& g, const Node& n, size_t d);
Error check_conv_transpose2d(const Values& g, const Node& n, size_t d);
Error check_avg_pool(const Values& g, const Node& n, size_t d);
Error check_max_pool(const Values& g, const Node& n, size_t d);
Error check_argmax_pool(const Values& g, const Node& n, size_t d);
Error check_global_avg_pool(const Values& g, const Node& n, size_t d);
Error check_reshape(const Values& g, const Node& n, size_t d);
Error check_pad(const Values& g, const Node& n, size_t d);
Error check_resize(const Values& g, const Node& n, size_t d);

// shapes.cpp: output dims from the inputs'.
Error infer_broadcast(const ShapeContext& ctx, const Node& n);
Error infer_same_shape(const ShapeContext& ctx, const Node& n);
Error infer_fully_connected(const ShapeContext& ctx, const Node& n);
Error infer_conv(const ShapeContext& ctx, const Node& n);
Error infer_avg_pool(const ShapeContext& ctx, const Node& n);
Error infer_max_pool(const ShapeContext& ctx, const Node& n);
Error infer_global_avg_pool(const ShapeContext& ctx, const Node& n);
Error infer_reshape(const ShapeContext& ctx, const Node& n);
Error infer_transpose(const ShapeContext& ctx, const Node& n);
Error infer_concat(const ShapeContext& ctx, const Node& n);
Error infer_slice(const ShapeContext& ctx, const Node& n);
Error infer_batch_matmul(const ShapeContext& ctx, const Node& n);
Error infer_pad(const ShapeContext& ctx, const Node& n);
Error infer_resize(const ShapeContext& ctx, const Node& n);

// xnn_define.cpp: definitions in an XNNPACK subgraph.
// XNNPACK's name for an xnn_status value (for messages).
const char* xnn_status_text(int status);
Error define_add(const DefineContext& c, const Node& n);
Error define_subtract(const DefineContext& c, const Node& n);
Error define_multiply(const DefineContext& c, const Node& n);
Error define_divide(const DefineContext& c, const Node& n);
Error define_maximum(const DefineContext& c, const Node& n);
Error define_minimum(const DefineContext& c, const Node& n);
Error define_prelu(const DefineContext& c, const Node& n);
Error define_fully_connected(const DefineContext& c, const Node& n);
Error define_conv2d(const DefineContext& c, const Node& n);
Error define_depthwise_conv2d(const DefineContext& c, const Node& n);
Error define_conv_transpose2d(const DefineContext& c, const Node& n);
Error define_avg_pool(const DefineContext& c, const Node& n);
Error define_max_pool(const DefineContext& c, const Node& n);
Error define_argmax_pool(const DefineContext& c, const Node& n);
Error define_global_avg_pool(const DefineContext& c, const Node& n);
Error define_clamp(const DefineContext& c, const Node& n);
Error define_softmax(const DefineContext& c, const Node& n);
Error define_sigmoid(const DefineContext& c, const Node& n);
Error define_floor(const DefineContext& c, const Node& n);
Error define_ceiling(const DefineContext& c, const Node& n);
Error define_square_root(const DefineContext& c, const Node& n);
Error define_hardswish(const DefineContext& c, const Node& n);
Error define_negate(const DefineContext& c, const Node& n);
Error define_square(const DefineContext& c, const Node& n);
Error define_abs(const DefineContext& c, const Node& n);
Error define_convert(const DefineContext& c, const Node& n);
Error define_leaky_relu(const DefineContext& c, const Node& n);
Error define_elu(const DefineContext& c, const Node& n);
Error define_reshape(const DefineContext& c, const Node& n);
Error define_pad(const DefineContext& c, const Node& n);
Error define_resize(const DefineContext& c, const Node& n);

// native_nodes.cpp: the delegate's own code.
extern const NativeHooks kReshapeNative;
extern const NativeHooks kCopyNative;
extern const NativeHooks kTransposeNative;
extern const NativeHooks kConcatNative;
extern const NativeHooks kSliceNative;
extern const NativeHooks kBatchMatmulNative;
extern const NativeHooks kSdpaNative;
extern const NativeHooks kTanhNative;
extern const NativeHooks kExpNative;
extern const NativeHooks kLogNative;
extern const NativeHooks kSinNative;
extern const NativeHooks kCosNative;
extern const NativeHooks kRsqrtNative;
extern const NativeHooks kGeluNative;
extern const NativeHooks kFullyConnectedNative;
extern const NativeHooks kConv2dNative;
extern const NativeHooks kDepthwiseConv2dNative;
extern const NativeHooks kSigmoidNative;
extern const NativeHooks kSoftmaxNative;
extern const NativeHooks kMultiplyNative;
extern const NativeHooks kAddNative;
extern const NativeHooks kConvertNative;
extern const NativeHooks kGlobalAvgPoolNative;
extern const NativeHooks kClampNative;

}  // namespace xnnpack
}  // namespace etr
