// Shape checks for the nodes XNNPACK runs. XNNPACK 2022 takes every value's
// dims as given and sizes its loops from them, so a payload whose shapes
// disagree with the node parameters would make it read or write outside a
// buffer. Each node's output dims are recomputed here from its inputs and
// parameters (the same formulas PyTorch and XNNPACK use) and compared.
// These are the check hooks of the node kinds XNNPACK runs (node_kinds.h).
#include "backends/xnnpack/node_hooks.h"
#include "runtime/platform/log.h"

namespace etr {
namespace xnnpack {
namespace {

constexpr uint32_t kTransposeWeights = 0x1;  // XNN_FLAG_TRANSPOSE_WEIGHTS
constexpr uint32_t kSamePadding = 0x4;       // XNN_FLAG_TENSORFLOW_SAME_PADDING

class Check {
 public:
  Check(const Values& g, const Node& n, size_t d) : g_(g), n_(n), d_(d) {}

  Error fail(const char* what) const {
    ETR_FAIL(Error::DelegateInvalidCompatibility, "XnnpackBackend: delegate %zu: node %u (%s): %s",
             d_, n_.index, to_string(n_.kind), what);
  }
  const Value& in(uint32_t k) const { return g_[n_.inputs[k]]; }
  bool has_in(uint32_t k) const { return k < n_.num_inputs && n_.inputs[k] != kInvalidId; }
  const Value& out() const { return g_[n_.outputs[0]]; }

  Error same_shape(const Value& a, const Value& b) const {
    if (a.num_dims != b.num_dims) return fail("input and output ranks differ");
    for (uint32_t i = 0; i < a.num_dims; ++i) {
      if (a.dims[i] != b.dims[i]) return fail("input and output dims differ");
    }
    return Error::Ok;
  }

  Error broadcast() const {
    const Value& a = in(0);
    const Value& b = in(1);
    const Value& y = out();
    const uint32_t r = a.num_dims > b.num_dims ? a.num_dims : b.num_dims;
    if (y.num_dims != r) return fail("output rank is not the broadcast rank");
    for (uint32_t i = 0; i < r; ++i) {
      const size_t da = i < a.num_dims ? a.dims[a.num_dims - 1 - i] : 1;
      const size_t db = i < b.num_dims ? b.dims[b.num_dims - 1 - i] : 1;
      if (da != db && da != 1 && db != 1) return fail("operand dims do not broadcast");
      const size_t want = da == 1 ? db : da;
      if (y.dims[r - 1 - i] != want) return fail("output dims are not the broadcast dims");
    }
    return Error::Ok;
  }

  Error fully_connected() const {
    const Value& x = in(0);
    const Value& w = in(1);
    const Value& y = out();
    if (x.num_dims < 1 || w.num_dims != 2 || y.num_dims < 1) return fail("unexpected ranks");
    const bool transposed = (n_.flags & kTransposeWeights) != 0;
    const size_t k = transposed ? w.dims[0] : w.dims[1];
    const size_t o = transposed ? w.dims[1] : w.dims[0];
    if (k == 0 || x.dims[x.num_dims - 1] != k)
      return fail("input channels differ from the filter's");
    if (y.dims[y.num_dims - 1] != o || y.numel() != x.numel() / k * o)
      return fail("output shape does not match input rows x filter outputs");
    if (has_in(2) && (in(2).num_dims != 1 || in(2).dims[0] != o))
      return fail("bias is not [outputs]");
    return Error::Ok;
  }

  static bool out_size(size_t in, uint32_t pad, uint32_t kernel, uint32_t stride, uint32_t dilation,
                       size_t* out) {
    if (kernel == 0 || stride == 0 || dilation == 0) return false;
    const size_t span = (static_cast<size_t>(kernel) - 1) * dilation + 1;
    if (in + pad < span) return false;
    *out = (in + pad - span) / stride + 1;
    return true;
  }

  // Convolution, depthwise convolution and pooling over NHWC.
  // Pads: top, right, bottom, left.
  Error windowed(size_t channels_out, const uint32_t (&pad)[4], uint32_t kh, uint32_t kw,
                 uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw) const {
    const Value& x = in(0);
    const Value& y = out();
    if (x.num_dims != 4 || y.num_dims != 4) return fail("input and output must be 4-d NHWC");
    size_t oh = 0, ow = 0;
    if ((n_.flags & kSamePadding) != 0) {
      if (sh == 0 || sw == 0) return fail("stride is zero");
      oh = (x.dims[1] + sh - 1) / sh;
      ow = (x.dims[2] + sw - 1) / sw;
    } else if (!out_size(x.dims[1], pad[0] + pad[2], kh, sh, dh, &oh) ||
               !out_size(x.dims[2], pad[1] + pad[3], kw, sw, dw, &ow)) {
      return fail("window, stride or dilation is zero, or the window is larger than the input");
    }
    if (y.dims[0] != x.dims[0] || y.dims[1] != oh || y.dims[2] != ow || y.dims[3] != channels_out)
      return fail("output dims differ from the window arithmetic");
    // XNNPACK builds an indirection buffer of about one pointer per window
    // element per output pixel at setup, on the heap: bound it (1 GiB of
    // pointers is far beyond any real model: a 4K image under a 3x3 window
    // needs 0.6 GiB) so a hostile payload cannot ask for gigabytes.
    constexpr double kMaxWindowPointers = double{1 << 27};
    const double pointers = static_cast<double>(x.dims[0]) * static_cast<double>(oh) *
                            (static_cast<double>(ow) + 1) * static_cast<double>(kh) *
                            static_cast<double>(kw);
    if (pointers > kMaxWindowPointers)
      return fail("window buffer too large (batch x output pixels x window elements > 2^27)");
    return Error::Ok;
  }

  // Conv2d (depthwise: one input channel per group, filter [1, kh, kw, C]).
  Error convolution(bool depthwise) const {
    const ConvParams& p = n_.conv();
    const Value& x = in(0);
    const Value& w = in(1);
    if (x.num_dims != 4 || w.num_dims != 4) return fail("input and filter must be 4-d");
    const size_t gin = p.group_input_channels, gout = p.group_output_channels, groups = p.groups;
    if (gin == 0 || gout == 0 || groups == 0) return fail("channel counts are zero");
    size_t cout = groups * gout;
    if (depthwise) {
      if (gout % gin != 0)
        return fail("group output channels are not a multiple of input channels");
      cout = groups * (gout / gin);
      if (x.dims[3] != groups || w.dims[0] != 1 || w.dims[1] != p.kernel_height ||
          w.dims[2] != p.kernel_width || w.dims[3] != cout)
        return fail("input or filter dims do not match the depthwise parameters");
    } else if (x.dims[3] != groups * gin || w.dims[0] != cout || w.dims[1] != p.kernel_height ||
               w.dims[2] != p.kernel_width || w.dims[3] != gin) {
      return fail("input or filter dims do not match the convolution parameters");
    }
    if (has_in(2) && (in(2).num_dims != 1 || in(2).dims[0] != cout))
      return fail("bias is not [output channels]");
    const uint32_t pad[4] = {p.padding_top, p.padding_right, p.padding_bottom, p.padding_left};
    return windowed(cout, pad, p.kernel_height, p.kernel_width, p.subsampling_height,
                    p.subsampling_width, p.dilation_height, p.dilation_width);
  }

  Error deconvolution() const {
    const ConvParams& p = n_.conv();
    const Value& x = in(0);
    const Value& w = in(1);
    const Value& y = out();
    const size_t gin = p.group_input_channels, gout = p.group_output_channels, groups = p.groups;
    if (x.num_dims != 4 || w.num_dims != 4 || y.num_dims != 4) return fail("operands must be 4-d");
    if (gin == 0 || gout == 0 || groups == 0 || p.kernel_height == 0 || p.kernel_width == 0 ||
        p.subsampling_height == 0 || p.subsampling_width == 0 || p.dilation_height == 0 ||
        p.dilation_width == 0)
      return fail("a size, stride or dilation is zero");
    if (x.dims[3] != groups * gin || w.dims[0] != groups * gout || w.dims[1] != p.kernel_height ||
        w.dims[2] != p.kernel_width || w.dims[3] != gin)
      return fail("input or filter dims do not match the parameters");
    const size_t full_h = p.subsampling_height * (x.dims[1] - 1) + p.adjustment_height +
                          (p.kernel_height - 1) * static_cast<size_t>(p.dilation_height) + 1;
    const size_t full_w = p.subsampling_width * (x.dims[2] - 1) + p.adjustment_width +
                          (p.kernel_width - 1) * static_cast<size_t>(p.dilation_width) + 1;
    const size_t pad_h = size_t{p.padding_top} + p.padding_bottom;
    const size_t pad_w = size_t{p.padding_right} + p.padding_left;
    if (x.dims[1] == 0 || x.dims[2] == 0 || full_h < pad_h || full_w < pad_w ||
        y.dims[0] != x.dims[0] || y.dims[1] != full_h - pad_h || y.dims[2] != full_w - pad_w ||
        y.dims[3] != groups * gout)
      return fail("output dims differ from the transposed-convolution arithmetic");
    if (has_in(2) && (in(2).num_dims != 1 || in(2).dims[0] != groups * gout))
      return fail("bias is not [output channels]");
    return Error::Ok;
  }

  // Average (no dilation), max and argmax pooling over NHWC.
  Error pooling(bool dilated) const {
    const PoolParams& p = n_.pool();
    if (in(0).num_dims != 4) return fail("input must be 4-d NHWC");
    const uint32_t pad[4] = {p.padding_top, p.padding_right, p.padding_bottom, p.padding_left};
    return windowed(in(0).dims[3], pad, p.pooling_height, p.pooling_width, p.stride_height,
                    p.stride_width, dilated ? p.dilation_height : 1,
                    dilated ? p.dilation_width : 1);
  }

  // Quantized convolutions and linear layers requantize by
  // input_scale * weight_scale / output_scale per output channel; XNNPACK
  // (2022) asserts that this lies in [2^-32, 2^8), so check it first.
  Error requantization() const {
    const Value& x = in(0);
    const Value& w = in(1);
    const Value& y = out();
    if (y.quant != QuantKind::PerTensor || x.quant != QuantKind::PerTensor) return Error::Ok;
    const size_t count = w.quant == QuantKind::PerChannel ? w.num_channel_scales : 1;
    for (size_t c = 0; c < count; ++c) {
      const double ws = w.quant == QuantKind::PerChannel ? w.channel_scales[c] : w.scale;
      const double r = static_cast<double>(x.scale) * ws / static_cast<double>(y.scale);
      if (!(r >= 0x1.0p-32) || !(r < 256.0)) {
        return fail("input x weight / output scale is outside [2^-32, 256)");
      }
    }
    return Error::Ok;
  }

  Error prelu() const {
    if (in(1).numel() != 1 &&
        (in(0).num_dims == 0 || in(1).numel() != in(0).dims[in(0).num_dims - 1]))
      return fail("slope is neither one value nor one per channel");
    return same_shape(in(0), out());
  }

  Error softmax() const {
    if (in(0).num_dims == 0) return fail("softmax needs at least one dim");
    return same_shape(in(0), out());
  }

  Error global_avg_pool() const {
    const Value& x = in(0);
    const Value& y = out();
    if (x.num_dims != 4 || y.num_dims != 4 || y.dims[0] != x.dims[0] || y.dims[1] != 1 ||
        y.dims[2] != 1 || y.dims[3] != x.dims[3])
      return fail("expects NHWC input and [N, 1, 1, C] output");
    return Error::Ok;
  }

  Error reshape() const {
    if (in(0).numel() != out().numel()) return fail("input and output element counts differ");
    return Error::Ok;
  }

  Error pad() const {
    const PadParams& p = n_.pad();
    const Value& x = in(0);
    const Value& y = out();
    if (y.num_dims != x.num_dims) return fail("input and output ranks differ");
    for (uint32_t i = 0; i < x.num_dims; ++i) {
      if (y.dims[i] != x.dims[i] + p.pre[i] + p.post[i])
        return fail("output dims are not input + paddings");
    }
    return Error::Ok;
  }

  Error resize() const {
    const ResizeParams& p = n_.resize();
    const Value& x = in(0);
    const Value& y = out();
    if (x.num_dims != 4 || y.num_dims != 4 || y.dims[0] != x.dims[0] || y.dims[1] != p.new_height ||
        y.dims[2] != p.new_width || y.dims[3] != x.dims[3] || p.new_height == 0 || p.new_width == 0)
      return fail("output is not [N, new_height, new_width, C]");
    return Error::Ok;
  }

 private:
  const Values& g_;
  const Node& n_;
  size_t d_;
};

}  // namespace

Error check_broadcast(const Values& g, const Node& n, size_t d) {
  return Check(g, n, d).broadcast();
}
Error check_prelu(const Values& g, const Node& n, size_t d) { return Check(g, n, d).prelu(); }
Error check_softmax(const Values& g, const Node& n, size_t d) { return Check(g, n, d).softmax(); }
Error check_same_shape(const Values& g, const Node& n, size_t d) {
  const Check c(g, n, d);
  return c.same_shape(c.in(0), c.out());
}
Error check_fully_connected(const Values& g, const Node& n, size_t d) {
  const Check c(g, n, d);
  ETR_RETURN_IF_ERROR(c.requantization());
  return c.fully_connected();
}
Error check_conv2d(const Values& g, const Node& n, size_t d) {
  const Check c(g, n, d);
  ETR_RETURN_IF_ERROR(c.requantization());
  return c.convolution(false);
}
Error check_depthwise_conv2d(const Values& g, const Node& n, size_t d) {
  const Check c(g, n, d);
  ETR_RETURN_IF_ERROR(c.requantization());
  return c.convolution(true);
}
Error check_conv_transpose2d(const Values& g, const Node& n, size_t d) {
  const Check c(g, n, d);
  ETR_RETURN_IF_ERROR(c.requantization());
  return c.deconvolution();
}
Error check_avg_pool(const Values& g, const Node& n, size_t d) {
  return Check(g, n, d).pooling(false);
}
Error check_max_pool(const Values& g, const Node& n, size_t d) {
  return Check(g, n, d).pooling(true);
}
Error check_argmax_pool(const Values& g, const Node& n, size_t d) {
  const Check c(g, n, d);
  ETR_RETURN_IF_ERROR(c.pooling(false));
  return c.same_shape(c.out(), g[n.outputs[1]]);
}
Error check_global_avg_pool(const Values& g, const Node& n, size_t d) {
  return Check(g, n, d).global_avg_pool();
}
Error check_reshape(const Values& g, const Node& n, size_t d) { return Check(g, n, d).reshape(); }
Error check_pad(const Values& g, const Node& n, size_t d) { return Check(g, n, d).pad(); }
Error check_resize(const Values& g, const Node& n, size_t d) { return Check(g, n, d).resize(); }

}  // namespace xnnpack
}  // namespace etr
