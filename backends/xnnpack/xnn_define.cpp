// Define hooks of the node kinds XNNPACK runs (node_kinds.h): each defines
// one node into the run's subgraph with Debian's XNNPACK (2022-02) API.
#include <xnnpack.h>

#include "backends/xnnpack/node_hooks.h"
#include "runtime/platform/log.h"

namespace etr {
namespace xnnpack {

const char* xnn_status_text(int status) {
  switch (static_cast<xnn_status>(status)) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
  }
  return "unknown status";
}

namespace {

Error finish(const DefineContext& ctx, const Node& n, xnn_status s) {
  if (s == xnn_status_success) return Error::Ok;
  ETR_FAIL(Error::DelegateInvalidCompatibility,
           "XnnpackBackend: delegate %zu: node %u (%s): XNNPACK refused the definition: %s",
           ctx.delegate, n.index, to_string(n.kind), xnn_status_text(s));
}

// The subgraph's id of input k (XNN_INVALID_VALUE_ID for an absent one) and of output k.
uint32_t x(const DefineContext& ctx, const Node& n, uint32_t k) {
  return n.inputs[k] == kInvalidId ? XNN_INVALID_VALUE_ID : ctx.xids[n.inputs[k]];
}
uint32_t y(const DefineContext& ctx, const Node& n, uint32_t k = 0) {
  return ctx.xids[n.outputs[k]];
}

// XNNPACK 2022 has no fully connected with per-channel (qc8) weights but
// has a qc8 convolution: x [N.., K] -> [N, 1, 1, K], a 1x1 convolution
// with the weights viewed as [O, 1, 1, K], then back to [N.., O]. Same
// integer arithmetic, same requantization.
xnn_status define_channelwise_fully_connected(const DefineContext& ctx, const Node& n) {
  xnn_subgraph_t sg = ctx.subgraph;
  const Value& xv = ctx.values[n.inputs[0]];
  const Value& wv = ctx.values[n.inputs[1]];
  const Value& yv = ctx.values[n.outputs[0]];
  if ((n.flags & XNN_FLAG_TRANSPOSE_WEIGHTS) != 0 || xv.quant != QuantKind::PerTensor ||
      yv.quant != QuantKind::PerTensor || wv.channel_dim != 0 || wv.num_dims != 2) {
    return xnn_status_unsupported_parameter;
  }
  const size_t k = wv.dims[1], o = wv.dims[0], rows = xv.numel() / k;
  const xnn_datatype xt = xv.dtype == Dtype::QInt8 ? xnn_datatype_qint8 : xnn_datatype_quint8;
  const size_t x4_dims[4] = {rows, 1, 1, k};
  const size_t w4_dims[4] = {o, 1, 1, k};
  const size_t y4_dims[4] = {rows, 1, 1, o};
  uint32_t x4 = XNN_INVALID_VALUE_ID, w4 = XNN_INVALID_VALUE_ID, y4 = XNN_INVALID_VALUE_ID;
  xnn_status s = xnn_define_quantized_tensor_value(sg, xt, xv.zero_point, xv.scale, 4, x4_dims,
                                                   nullptr, XNN_INVALID_VALUE_ID, 0, &x4);
  if (s == xnn_status_success) {
    s = xnn_define_channelwise_quantized_tensor_value(sg, xnn_datatype_qcint8, wv.channel_scales, 4,
                                                      0, w4_dims, wv.data, XNN_INVALID_VALUE_ID, 0,
                                                      &w4);
  }
  if (s == xnn_status_success) {
    s = xnn_define_quantized_tensor_value(sg, xt, yv.zero_point, yv.scale, 4, y4_dims, nullptr,
                                          XNN_INVALID_VALUE_ID, 0, &y4);
  }
  if (s == xnn_status_success) s = xnn_define_static_reshape(sg, 4, x4_dims, x(ctx, n, 0), x4, 0);
  if (s == xnn_status_success) {
    s = xnn_define_convolution_2d(sg, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, o, n.output_min,
                                  n.output_max, x4, w4, x(ctx, n, 2), y4, 0);
  }
  if (s == xnn_status_success) {
    size_t y_dims[kMaxDims];
    for (uint32_t i = 0; i < yv.num_dims; ++i) y_dims[i] = yv.dims[i];
    s = xnn_define_static_reshape(sg, yv.num_dims, y_dims, y4, y(ctx, n), 0);
  }
  return s;
}

}  // namespace

// Binary elementwise.
Error define_add(const DefineContext& c, const Node& n) {
  return finish(c, n,
                xnn_define_add2(c.subgraph, n.output_min, n.output_max, x(c, n, 0), x(c, n, 1),
                                y(c, n), n.flags));
}
Error define_subtract(const DefineContext& c, const Node& n) {
  return finish(c, n,
                xnn_define_subtract(c.subgraph, n.output_min, n.output_max, x(c, n, 0), x(c, n, 1),
                                    y(c, n), n.flags));
}
Error define_multiply(const DefineContext& c, const Node& n) {
  return finish(c, n,
                xnn_define_multiply2(c.subgraph, n.output_min, n.output_max, x(c, n, 0), x(c, n, 1),
                                     y(c, n), n.flags));
}
Error define_divide(const DefineContext& c, const Node& n) {
  return finish(c, n,
                xnn_define_divide(c.subgraph, n.output_min, n.output_max, x(c, n, 0), x(c, n, 1),
                                  y(c, n), n.flags));
}
Error define_maximum(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_maximum2(c.subgraph, x(c, n, 0), x(c, n, 1), y(c, n), n.flags));
}
Error define_minimum(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_minimum2(c.subgraph, x(c, n, 0), x(c, n, 1), y(c, n), n.flags));
}
Error define_prelu(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_prelu(c.subgraph, x(c, n, 0), x(c, n, 1), y(c, n), n.flags));
}

// Linear and convolution.
Error define_fully_connected(const DefineContext& c, const Node& n) {
  if (c.values[n.inputs[1]].dtype == Dtype::QCInt8)
    return finish(c, n, define_channelwise_fully_connected(c, n));
  return finish(c, n,
                xnn_define_fully_connected(c.subgraph, n.output_min, n.output_max, x(c, n, 0),
                                           x(c, n, 1), x(c, n, 2), y(c, n), n.flags));
}
Error define_conv2d(const DefineContext& c, const Node& n) {
  const ConvParams& p = n.conv();
  return finish(c, n,
                xnn_define_convolution_2d(
                    c.subgraph, p.padding_top, p.padding_right, p.padding_bottom, p.padding_left,
                    p.kernel_height, p.kernel_width, p.subsampling_height, p.subsampling_width,
                    p.dilation_height, p.dilation_width, p.groups, p.group_input_channels,
                    p.group_output_channels, n.output_min, n.output_max, x(c, n, 0), x(c, n, 1),
                    x(c, n, 2), y(c, n), n.flags));
}
Error define_depthwise_conv2d(const DefineContext& c, const Node& n) {
  const ConvParams& p = n.conv();
  if (p.group_input_channels == 0 || p.group_output_channels % p.group_input_channels != 0)
    return finish(c, n, xnn_status_unsupported_parameter);
  return finish(c, n,
                xnn_define_depthwise_convolution_2d(
                    c.subgraph, p.padding_top, p.padding_right, p.padding_bottom, p.padding_left,
                    p.kernel_height, p.kernel_width, p.subsampling_height, p.subsampling_width,
                    p.dilation_height, p.dilation_width,
                    p.group_output_channels / p.group_input_channels, p.groups, n.output_min,
                    n.output_max, x(c, n, 0), x(c, n, 1), x(c, n, 2), y(c, n), n.flags));
}
Error define_conv_transpose2d(const DefineContext& c, const Node& n) {
  const ConvParams& p = n.conv();
  return finish(c, n,
                xnn_define_deconvolution_2d(
                    c.subgraph, p.padding_top, p.padding_right, p.padding_bottom, p.padding_left,
                    p.adjustment_height, p.adjustment_width, p.kernel_height, p.kernel_width,
                    p.subsampling_height, p.subsampling_width, p.dilation_height, p.dilation_width,
                    p.groups, p.group_input_channels, p.group_output_channels, n.output_min,
                    n.output_max, x(c, n, 0), x(c, n, 1), x(c, n, 2), y(c, n), n.flags));
}

// Pooling.
Error define_avg_pool(const DefineContext& c, const Node& n) {
  const PoolParams& p = n.pool();
  return finish(c, n,
                xnn_define_average_pooling_2d(
                    c.subgraph, p.padding_top, p.padding_right, p.padding_bottom, p.padding_left,
                    p.pooling_height, p.pooling_width, p.stride_height, p.stride_width,
                    n.output_min, n.output_max, x(c, n, 0), y(c, n), n.flags));
}
Error define_max_pool(const DefineContext& c, const Node& n) {
  const PoolParams& p = n.pool();
  return finish(
      c, n,
      xnn_define_max_pooling_2d(c.subgraph, p.padding_top, p.padding_right, p.padding_bottom,
                                p.padding_left, p.pooling_height, p.pooling_width, p.stride_height,
                                p.stride_width, p.dilation_height, p.dilation_width, n.output_min,
                                n.output_max, x(c, n, 0), y(c, n), n.flags));
}
Error define_argmax_pool(const DefineContext& c, const Node& n) {
  const PoolParams& p = n.pool();
  return finish(c, n,
                xnn_define_argmax_pooling_2d(
                    c.subgraph, p.padding_top, p.padding_right, p.padding_bottom, p.padding_left,
                    p.pooling_height, p.pooling_width, x(c, n, 0), y(c, n), y(c, n, 1), n.flags));
}
Error define_global_avg_pool(const DefineContext& c, const Node& n) {
  return finish(c, n,
                xnn_define_global_average_pooling_2d(c.subgraph, n.output_min, n.output_max,
                                                     x(c, n, 0), y(c, n), n.flags));
}

// Unary.
Error define_clamp(const DefineContext& c, const Node& n) {
  return finish(
      c, n, xnn_define_clamp(c.subgraph, n.output_min, n.output_max, x(c, n, 0), y(c, n), n.flags));
}
Error define_softmax(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_softmax(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_sigmoid(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_sigmoid(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_floor(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_floor(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_ceiling(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_ceiling(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_square_root(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_square_root(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_hardswish(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_hardswish(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_negate(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_negate(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_square(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_square(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_abs(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_abs(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_convert(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_convert(c.subgraph, x(c, n, 0), y(c, n), n.flags));
}
Error define_leaky_relu(const DefineContext& c, const Node& n) {
  return finish(
      c, n,
      xnn_define_leaky_relu(c.subgraph, n.slope().negative_slope, x(c, n, 0), y(c, n), n.flags));
}
Error define_elu(const DefineContext& c, const Node& n) {
  return finish(c, n, xnn_define_elu(c.subgraph, n.elu().alpha, x(c, n, 0), y(c, n), n.flags));
}

// Data movement.
Error define_reshape(const DefineContext& c, const Node& n) {
  // The output value's dims: new_shape may hold 0 (inferred), which this
  // XNNPACK does not know.
  const Value& yv = c.values[n.outputs[0]];
  size_t shape[kMaxDims];
  for (uint32_t i = 0; i < yv.num_dims; ++i) shape[i] = yv.dims[i];
  return finish(
      c, n,
      xnn_define_static_reshape(c.subgraph, yv.num_dims, shape, x(c, n, 0), y(c, n), n.flags));
}
Error define_pad(const DefineContext& c, const Node& n) {
  const PadParams& p = n.pad();
  return finish(c, n,
                xnn_define_static_constant_pad(c.subgraph, p.pre, p.post, p.value, x(c, n, 0),
                                               y(c, n), n.flags));
}
Error define_resize(const DefineContext& c, const Node& n) {
  const ResizeParams& p = n.resize();
  return finish(c, n,
                xnn_define_static_resize_bilinear_2d(c.subgraph, p.new_height, p.new_width,
                                                     x(c, n, 0), y(c, n), n.flags));
}

}  // namespace xnnpack
}  // namespace etr
